"""Position bias of the chosen reader on choice questions (issue 48: "measure position bias
with the gold passages moved within the prompt"), on **train** questions.

A choice question names its two options ("Which film came out first, X or Y?"); its Golden
prompt holds the options' own documents. Each such question is read twice with the reading
chosen on train questions (``bench_reader_design.CHOSEN``: the 1.5B model, a context a
document, 3 demonstrations, the best 4 documents; its reading by hops leaves a choice question
whole), its documents in Golden's order and
reversed (``read.context_order``), so the same documents, the same passages and the same
question differ only in which option's document comes first. An unbiased reader names the
same option both times; a reader led by position names the first document's option.

The questions: the first ``--questions`` of each bundled train file (HotpotQA, 2Wiki: MuSiQue
asks no choice question) whose last clause is "X or Y?" with each option the title of a
supporting document, a demonstration's question left out. Every reply goes through the committed store ``results/llm``
(``--store-only``: no model call), so the table is rebuilt from a fresh clone.

    .venv/bin/python benchmarks/bench_position_bias.py [--questions 500] [--store-only] [--threads 2]

The same shares on a benchmark's committed dev answers (``--benchmark``, default
``qa_benchmark_dev``; no model call): each method's choice questions, the option whose document
its prompt shows first (the document of its best-ranked passage that names an option: the
prompt's documents are in the rank of their best passage), the option answered, and ``kgp``
minus DPR on choice questions and on the others, with paired 95 % intervals.

Writes ``results/reader_design/position_bias.csv`` (one row a question and order) and
``results/reader_design/position_bias.md``.
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
from pathlib import Path

import pandas as pd

from bench_reader_design import (CHOSEN, CONFIGS, OUT, add_threads, run_config,
                                 study_parameters)
from kgp_kedro.corpus.sources import read_source
from kgp_kedro.evaluation.qa_metrics import normalize_answer
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.reading.choices import CHOICES, choice_options
from kgp_kedro.reading.demonstrations import train_demonstrations
from kgp_kedro.reporting.qa_tables import paired_differences

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("hotpotqa", "2wikimultihopqa")
ORDERS = ("rank", "reversed")


def named(text: str, choices: tuple[str, str]) -> int | None:
    """Which of ``choices`` (0 or 1) ``text`` names, by normalised containment either way;
    None when it names neither or both."""
    said = normalize_answer(str(text))
    hits = [i for i, option in enumerate(choices)
            if said and (normalize_answer(option) in said or said in normalize_answer(option))]
    return hits[0] if len(hits) == 1 else None


def golden_prompts(raw: dict, questions: int) -> dict:
    """The choice questions of the first ``questions`` of each train file with both options a
    supporting document's title, their passages and Golden's retrieval (kept in
    ``data/reader_design/`` for the next run); each question's options and which of them the
    first supporting document (Golden's order) is about."""
    kept = ROOT / "data" / "reader_design" / f"position-{questions}.pkl"
    if kept.exists():
        return pd.read_pickle(kept)
    one = copy.deepcopy(raw)
    one["ingest"]["sources"] = [{**s, "limit": questions} for s in raw["train"]["sources"]
                                if s["dataset"] in SOURCES]
    one["ingest"].update(qa_questions_per_source=questions, questions_per_source=None)
    one["retrieve"]["methods"] = {"golden": {"method": "golden"}}
    variant = raw["retrieve"]["graph"]["variant"]
    one["kg"]["variants"] = {variant: raw["kg"]["variants"][variant]}
    one["pooled"]["methods"] = []
    one["retrieval_quality"]["collection_size"]["methods"] = []
    out = run_chain("retrieve", one, to_outputs=["retrieved_golden"])
    passages, asked = out["passages"], out["questions"]
    titles = passages.drop_duplicates("passage_id").set_index("passage_id")["title"]
    golden = out["retrieved_golden"].sort_values(["question_id", "rank"])
    ranked = golden.groupby("question_id", sort=False)["passage_id"].agg(list)
    shown = {d[0] for d in train_demonstrations(validate_parameters(raw).train.sources,
                                                CONFIGS[CHOSEN].demonstrations)}
    rows = []
    for q in asked.itertuples():
        choices = choice_options(q.question)
        if q.question in shown:
            continue   # a demonstration of the prompt's system message
        if choices is None or named(q.answer, choices) is None or q.question_id not in ranked:
            continue
        # the options in the order of their documents in Golden's prompt
        about = [a for a in (named(titles.get(p, ""), choices) for p in ranked[q.question_id])
                 if a is not None]
        if sorted(set(about)) != [0, 1]:
            continue   # an option without its own document among the supporting ones
        rows.append({"question_id": q.question_id, "source": q.source, "first": choices[0],
                     "second": choices[1], "gold": named(q.answer, choices),
                     "shown_first": {"rank": about[0], "reversed": about[-1]}})
    chosen = pd.DataFrame(rows)
    keep = asked["question_id"].isin(chosen["question_id"])
    data = {"questions": asked[keep], "passages": passages,
            "golden": out["retrieved_golden"], "options": chosen}
    kept.parent.mkdir(parents=True, exist_ok=True)
    pd.to_pickle(data, kept)
    return data


def measure(data: dict, raw: dict, store_only: bool, choices: list[str]) -> pd.DataFrame:
    """One row a reading of choice questions (``read.choice``), question and order: the option
    whose document the prompt shows first, the option the answer names (None: neither), the
    gold option, F1, the reader's seconds (every call of the question)."""
    opts = data["options"].set_index("question_id")
    rows = []
    for choice, order in [(c, o) for c in choices for o in ORDERS]:
        config = dataclasses.replace(CONFIGS[CHOSEN], context_order=order, choice=choice)
        scored = run_config(f"{CHOSEN}_{choice}_{order}", config, data, raw, store_only,
                            ["golden"])
        for r in scored[scored["answer_form"] == "short"].itertuples():
            o = opts.loc[r.question_id]
            rows.append({"choice": choice, "source": r.source, "question_id": r.question_id,
                         "order": order,
                         "shown_first": o["shown_first"][order], "gold": o["gold"],
                         "answered": named(r.prediction, (o["first"], o["second"])),
                         "prediction": r.prediction, "f1": r.f1,
                         "seconds": r.reader_latency_ms / 1000})
    return pd.DataFrame(rows)


def render(rows: pd.DataFrame, questions: int) -> str:
    """Per source and in all: questions; in each order the share answered right and the
    share whose answer names the option shown first; how often the two orders name the same
    option, and how often that option is right; F1 in each order."""
    lines = ["#### Position bias on choice questions (Golden prompts, the chosen reading)", "",
             "Generated by `benchmarks/bench_position_bias.py` from `position_bias.csv` "
             f"(replies in `results/llm`): the choice questions among the first {questions} "
             "of the HotpotQA and 2Wiki train files, each read with its documents in Golden's "
             "order and reversed, in one call (`whole`), one option at a time "
             "(`facts`), or one option at a time with the facts' dates deciding where they "
             "tell (`dates`). Right: the answer names the gold option; first: it names "
             "the option whose document the prompt shows first (an unbiased reader: about "
             "the share of questions whose gold option is shown first, 50 % over both "
             "orders); agree: both orders name the same option.", "",
             "| read.choice: questions | n | right (Golden's order / reversed) | names the "
             "first shown (Golden's order / reversed) | gold shown first | agree | right when "
             "they agree | F1 (Golden's order / reversed) | s / question |",
             "| --- | ---: | --- | --- | ---: | ---: | ---: | --- | ---: |"]
    rows = rows.assign(right=rows["answered"] == rows["gold"],
                       first=rows["answered"] == rows["shown_first"],
                       gold_first=rows["gold"] == rows["shown_first"])
    parts = []
    for choice, read in rows.groupby("choice", sort=False):
        parts += [(f"{choice}: {s}", read[read["source"] == s]) for s in SOURCES]
        parts.append((f"{choice}: all", read))
    for label, part in parts:
        if part.empty:
            continue
        by = {o: part[part["order"] == o] for o in ORDERS}
        both = by["rank"].merge(by["reversed"], on="question_id", suffixes=("_r", "_v"))
        agree = both["answered_r"].notna() & (both["answered_r"] == both["answered_v"])

        def pair(column: str, fmt=lambda x: f"{x:.0%}") -> str:
            return " / ".join(fmt(by[o][column].mean()) for o in ORDERS)

        when_agree = f"{both.loc[agree, 'right_r'].mean():.0%}" if agree.any() else "–"
        lines.append(f"| {label} | {len(both)} | {pair('right')} | {pair('first')} | "
                     f"{part['gold_first'].mean():.0%} | {agree.mean():.0%} | {when_agree} | "
                     f"{pair('f1', lambda x: f'{100 * x:.1f}')} | "
                     f"{part['seconds'].mean():.1f} |")
    return "\n".join(lines) + "\n"


def dev_choices(raw: dict, benchmark: str) -> pd.DataFrame:
    """One row a method and choice question of ``results/<benchmark>/``: the option its
    prompt's first option document is about, the option answered, the gold option, F1."""
    folder = ROOT / "results" / benchmark
    answers = pd.read_csv(folder / "answers.csv")
    retrieved = pd.read_csv(folder / "retrieved.csv.gz").sort_values(
        ["method", "question_id", "rank"])
    questions, titles = {}, {}
    for i, source in enumerate(raw["ingest"]["sources"]):
        asked, documents = read_source(source["dataset"], source["path"], source["dataset"],
                                       source.get("limit"), param_key=f"ingest.sources[{i}]")
        questions.update({q["question_id"]: q["question"] for q in asked})
        titles.update({d["doc_id"]: d["title"] for d in documents})
    ranked = retrieved.groupby(["method", "question_id"], sort=False)["passage_id"].agg(list)
    rows = []
    for a in answers.itertuples():
        choices = choice_options(questions.get(a.question_id, ""))
        if choices is None or named(a.gold, choices) is None:
            continue
        shown = [named(titles.get(p.split("#")[0], ""), choices)
                 for p in ranked.get((a.method, a.question_id), [])]
        shown = [x for x in shown if x is not None]
        rows.append({"source": a.source, "question_id": a.question_id, "method": a.method,
                     "shown_first": shown[0] if shown else None,
                     "gold": named(a.gold, choices), "answered": named(a.prediction, choices),
                     "f1": a.f1})
    return pd.DataFrame(rows)


def render_dev(choices: pd.DataFrame, answers: pd.DataFrame, benchmark: str) -> str:
    """Per source and method on the benchmark's choice questions: the share of answers naming
    the option shown first, the share of questions whose gold option is shown first, F1;
    then ``kgp`` minus DPR on choice questions and on the others."""
    lines = [f"#### The same on the dev answers of `{benchmark}` (no model call)", "",
             "Each method's choice questions: first: the answer names the option whose "
             "document the method's prompt shows first; gold first: the gold option's "
             "document is shown first; F1 in %.", "",
             "| source | method | choice questions | names the first shown | gold shown first | "
             "F1 |", "| --- | --- | ---: | ---: | ---: | ---: |"]
    shown = choices[choices["shown_first"].notna()]
    for (source, method), part in shown.groupby(["source", "method"], sort=False):
        lines.append(f"| {source} | {method} | {len(part)} | "
                     f"{(part['answered'] == part['shown_first']).mean():.0%} | "
                     f"{(part['gold'] == part['shown_first']).mean():.0%} | "
                     f"{100 * part['f1'].mean():.1f} |")
    asked = choices.drop_duplicates("question_id").groupby("source", sort=False)["gold"]
    lines += ["", "The gold option is the question's first option on " + ", ".join(
        f"{(part == 0).mean():.0%} of {source}'s {len(part)}" for source, part in asked) + "."]
    lines += ["", "`kgp` minus DPR F1 (points) with its paired 95 % interval, per source, on "
              "the choice questions and on the others:", "",
              "| source | choice questions | other questions |", "| --- | --- | --- |"]
    chosen = set(choices["question_id"])
    kinds = answers.assign(kind=answers["question_id"].isin(chosen).map(
        {True: "choice", False: "other"}))
    diffs = paired_differences(kinds.assign(source=kinds["source"] + "/" + kinds["kind"]),
                               "dpr").set_index(["source", "method"])
    for source in dict.fromkeys(answers["source"]):
        cells = []
        for kind in ("choice", "other"):
            key = (f"{source}/{kind}", "kgp")
            cells.append("–" if key not in diffs.index else
                         "{:+.1f} [{:+.1f}, {:+.1f}] ({:d})".format(
                             *(100 * diffs.loc[key, ["diff", "low", "high"]]),
                             int(diffs.loc[key, "questions"])))
        lines.append(f"| {source} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=500,
                        help="train questions a source searched for choice questions")
    parser.add_argument("--store-only", action="store_true",
                        help="every reply from the store (llm.store_only): no model call")
    parser.add_argument("--benchmark", default="qa_benchmark_dev",
                        help="the results/ benchmark whose dev answers are split the same way")
    parser.add_argument("--choices", nargs="+", default=list(CHOICES), choices=CHOICES,
                        help="the read.choice readings measured")
    add_threads(parser)
    args = parser.parse_args()
    raw = study_parameters(args.threads)
    rows = measure(golden_prompts(raw, args.questions), raw, args.store_only, args.choices)
    OUT.mkdir(parents=True, exist_ok=True)
    rows.to_csv(OUT / "position_bias.csv", index=False)
    answers = pd.read_csv(ROOT / "results" / args.benchmark / "answers.csv")
    (OUT / "position_bias.md").write_text(
        render(rows, args.questions) + "\n"
        + render_dev(dev_choices(raw, args.benchmark), answers, args.benchmark))


if __name__ == "__main__":
    main()
