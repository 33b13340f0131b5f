"""Reader design study (issue 34): each reader choice for a small local model measured on
**train** questions (never the dev questions the tables report), so the benchmark's reader is
chosen apart from what it is scored on.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_reader_design.py --questions 30 \
        [--read 20] [--configs base titled documents ...] [--threads 2] [--table-only]

The choosing set: the first ``--questions`` questions of each bundled train file
(``train.sources``), each in its own collection of its documents plus 20 sampled negatives
(the qa_benchmark env's pool rule), retrieved by Golden (the supporting passages), DPR (MiniLM,
off the shelf) and ``kgp`` (the entity walk), with the qa_benchmark env's settings (fp32
encoder, at most ``max_passages`` passages a prompt). The demonstrations are drawn from the
same files' *last* questions (:mod:`kgp_kedro.reading.demonstrations`), apart from the
choosing set. Every reply goes through the committed store ``results/llm``, so the table is
rebuilt from the store with no model call (``--store-only`` stops at a reply the store lacks;
``--table-only`` only rewrites the table from the recorded files) and a stopped run goes on
where it stopped. Each configuration's answers are scored twice from the
same replies: ``line`` (the reply's first line) and ``short`` (a sentence frame dropped), so
the post-processing's effect is its own row.

Issue 48's configurations vary what the chosen reader (1.5B, a context a document, 3
demonstrations) is shown: the passages of the best few documents only
(``read.max_documents``, distractor control), a question read by hops (``read.hops``), a
choice decided by dates (``read.choice``), each passage's neighbours (``read.passage_window``);
the configurations whose options issue 65 removed (:data:`ARCHIVED`: the contexts best last,
the reader's own selection of contexts, the steps answer form, the untyped chain) keep their
recorded rows in the tables, and commit d66a357a's version of this script runs them. Each
row records the
passages read and offered and how many are supporting, so a selection's precision and recall
show. The tables give ``kgp`` minus DPR and each configuration minus the chosen reader
(:data:`CHOSEN`) with their paired 95 % bootstrap intervals.

Writes ``results/reader_design/<config>.csv`` (one row an answer form, method and question)
and ``results/reader_design/tables.md`` (every recorded config).

``--position-bias [--benchmark qa_benchmark_dev]``: position bias of the chosen reader on
choice questions (issue 48: "measure position bias with the gold passages moved within the
prompt"), on train questions, and the same split of a benchmark's committed dev answers (no
model call). The train measurement is an archived record
(``results/reader_design/position_bias.csv``): each choice question among the first 500 of the
HotpotQA and 2Wiki train files (its last clause "X or Y?", each option the title of a
supporting document) was read with the reading chosen then (the 1.5B model, a context a
document, 3 demonstrations, the best 4 documents), its documents in Golden's order and
reversed (``read.context_order``), in one call (``whole``), one option at a time (``facts``)
and with the facts' dates deciding (``dates``). Issue 65 removed ``read.context_order`` and
``read.choice: facts`` (docs/changelog.md); commit d66a357a's ``bench_position_bias.py``
measures them again. The dev split: each method's choice questions, the option whose document
its prompt shows first (the document of its best-ranked passage that names an option: the
prompt's documents are in the rank of their best passage), the option answered, and ``kgp``
minus DPR on choice questions and on the others, with paired 95 % intervals. Writes
``results/reader_design/position_bias.md``.
"""
from __future__ import annotations

import argparse
import copy
import logging
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from kedro.framework.startup import bootstrap_project

from kgp_kedro.corpus.sources import read_source
from kgp_kedro.evaluation.qa_metrics import normalize_answer
from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.evaluation.qa_scores import score_answers
from kgp_kedro.llm import make_llm
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.reading.answers import final_answer
from kgp_kedro.reading.demonstrations import train_demonstrations, with_demonstrations
from kgp_kedro.reading.choices import choice_options
from kgp_kedro.reading.hops import HOP_EXAMPLES, train_decompositions
from kgp_kedro.reading.reader import read_answers
from kgp_kedro.reporting.qa_tables import paired_differences

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "reader_design"
METHODS = {"golden": {"method": "golden"}, "dpr": {"method": "dpr"},
           "kgp": {"method": "entity_walk"}}
SOURCE_ORDER = ["hotpotqa", "musique", "2wikimultihopqa"]
# the reading chosen (issue 48: the highest mean of Golden and kgp F1 at 30 train questions a
# source, kgp - DPR >= 0, <= 15 s a question), each candidate's baseline: the best 4
# documents' passages, each with the passage before and after it in its document, a question
# of several hops read one sub-question at a time where its last sub-question asks for the
# question's kind of answer, a choice question decided by its facts' dates where they tell
CHOSEN = "1.5b_documents_4_typed_dates_window1"
SHORT = ("short", "steps")        # the answer forms that drop a sentence frame
# the position-bias measurement (--position-bias): its sources, its orders, the train
# questions a source the archived measurement searched
SOURCES = ("hotpotqa", "2wikimultihopqa")
ORDERS = ("rank", "reversed")
RECORDED = 500


@dataclass(frozen=True)
class ReaderConfig:
    """One reader configuration: the model, how the contexts show, how many passages, the
    system message's demonstrations and the prompt's system message."""

    model: str = "qwen2.5-coder-0.5b-instruct-q4_k_m"
    context_form: str = "passages"
    max_passages: int = 10
    demonstrations: int = 0
    system: bool = True
    max_documents: int | None = None
    choice: str = "whole"            # read.choice
    hops: str = "whole"              # read.hops (typed: hop_examples decompositions)
    max_tokens: int | None = None    # llm.sampling.max_tokens (None: the env's)
    hop_examples: int | None = None  # decompositions shown (None: reading.hops.HOP_EXAMPLES)
    passage_window: int = 0          # read.passage_window


Q05, Q15 = "qwen2.5-coder-0.5b-instruct-q4_k_m", "qwen2.5-coder-1.5b-instruct-q4_k_m"
CONFIGS = {
    "paper": ReaderConfig(system=False),                       # Listing 3 alone
    "base": ReaderConfig(),                                    # the 0.5B qa_benchmark reader
    "documents": ReaderConfig(context_form="documents"),
    "documents_demos": ReaderConfig(context_form="documents", demonstrations=3),
    "documents_demos_5": ReaderConfig(context_form="documents", demonstrations=3,
                                      max_passages=5),
    "1.5b_base": ReaderConfig(model=Q15),
    "1.5b_documents_demos": ReaderConfig(model=Q15, context_form="documents",
                                         demonstrations=3),
    "1.5b_documents_demos_5": ReaderConfig(model=Q15, context_form="documents",
                                           demonstrations=3, max_passages=5),
    # distractor control: passages of the best 4 documents only, the 10-passage budget filled
    # from their later passages (a graph neighbour's document past the fourth is not shown)
    "1.5b_documents_4": ReaderConfig(model=Q15, context_form="documents", demonstrations=3,
                                     max_documents=4),
    # more demonstrations (9: three a source) in the system turn, whose KV cache is kept
    # between calls, so nearly free at run time: more multi-hop answers shown
    "1.5b_documents_4_demos_9": ReaderConfig(model=Q15, context_form="documents",
                                             demonstrations=9, max_documents=4),
    # issue 48: a question of several hops read one sub-question at a time where its last
    # sub-question asks for the question's kind of answer (read.hops: typed; a chain that asks
    # "When did #1 come into effect?" for "... what treaty?" is read whole), and a choice
    # question's two facts asked one option at a time, their dates deciding where the question
    # asks which came earlier or later (read.choice: dates)
    "1.5b_documents_4_typed_dates": ReaderConfig(model=Q15, context_form="documents",
                                                 demonstrations=3, max_documents=4,
                                                 hops="typed", choice="dates"),
    # issue 48: the same, the decomposition call shown 8 of the MuSiQue train file's chains
    # instead of 4 (the model writes only two-hop chains from 4: MuSiQue's 3- and 4-hop
    # questions are read as two hops)
    "1.5b_documents_4_typed_dates_hops8": ReaderConfig(model=Q15, context_form="documents",
                                                       demonstrations=3, max_documents=4,
                                                       hops="typed", choice="dates",
                                                       hop_examples=8),
    # issue 48: the chosen reading, each passage shown with its neighbours in its document
    # (read.passage_window: 1; the sentence before and after: an antecedent, the next fact)
    "1.5b_documents_4_typed_dates_window1": ReaderConfig(model=Q15, context_form="documents",
                                                         demonstrations=3, max_documents=4,
                                                         hops="typed", choice="dates",
                                                         passage_window=1),
}
# the configurations recorded with options issue 65 removed (docs/changelog.md): their rows stay
# in results/reader_design/<config>.csv and tables.md; commit d66a357a runs them
ARCHIVED = {
    # the chosen reader's contexts best last, nearest the repeated question (read.context_order)
    "1.5b_reversed": "read.context_order: reversed",
    # the reader first names the contexts needed (at least 2, then 3), then answers from them
    "1.5b_select": "read.select: reader",
    "1.5b_select_3": "read.select: reader, read.select_min: 3",
    # the reply writes the hops before the answer, 128 tokens (read.answer_form: steps)
    "1.5b_documents_4_steps": "read.answer_form: steps",
    # every chain read by hops, then with its choices decided by dates (read.hops: chain)
    "1.5b_documents_4_chain": "read.hops: chain",
    "1.5b_documents_4_chain_dates": "read.hops: chain, read.choice: dates",
}
# every configuration the tables show, in the order they were studied
ORDER = [*list(CONFIGS)[:list(CONFIGS).index("1.5b_documents_demos_5") + 1],
         "1.5b_reversed", "1.5b_select", "1.5b_select_3", "1.5b_documents_4",
         "1.5b_documents_4_demos_9", "1.5b_documents_4_steps", "1.5b_documents_4_chain",
         "1.5b_documents_4_chain_dates",
         *list(CONFIGS)[list(CONFIGS).index("1.5b_documents_4_typed_dates"):]]


def retrievals(raw: dict, questions: int) -> dict:
    """The choosing set's questions, passages and each method's retrieved table (kept in
    ``data/reader_design/`` for the next configuration's run; retrieval calls no LLM)."""
    kept = ROOT / "data" / "reader_design" / f"retrievals-{questions}.pkl"
    if kept.exists():
        return pd.read_pickle(kept)
    one = copy.deepcopy(raw)
    one["ingest"]["sources"] = [{**s, "limit": questions} for s in raw["train"]["sources"]]
    one["ingest"].update(qa_questions_per_source=questions, questions_per_source=None)
    one["retrieve"]["methods"] = METHODS
    variant = raw["retrieve"]["graph"]["variant"]       # the entity walk's KG only
    one["kg"]["variants"] = {variant: raw["kg"]["variants"][variant]}
    # the env's other stages name methods this study does not run
    one["pooled"]["methods"] = ["dpr", "kgp"]
    one["retrieval_quality"]["collection_size"]["methods"] = ["dpr", "kgp"]
    out = run_chain("retrieve", one)
    data = {"questions": out["qa_questions"], "passages": out["passages"],
            **{m: out[f"retrieved_{m}"] for m in METHODS}}
    kept.parent.mkdir(parents=True, exist_ok=True)
    pd.to_pickle(data, kept)
    return data


def run_config(name: str, config: ReaderConfig, data: dict, raw: dict, store_only: bool,
               methods: list[str]) -> pd.DataFrame:
    project = validate_parameters(raw)
    llm = copy.deepcopy(raw["llm"])
    llm["local"]["model"] = config.model
    llm.update(store="results/llm", store_only=store_only)
    if config.max_tokens:
        llm["sampling"] = {**llm.get("sampling", {}), "max_tokens": config.max_tokens}
    client = make_llm(llm)
    read = project.read.model_copy(update={"answer_form": "line"})
    demos = train_demonstrations(project.train.sources, config.demonstrations)
    system = with_demonstrations(read.system_prompt if config.system else None, demos)
    decompositions = (train_decompositions(project.train.sources,
                                           config.hop_examples or HOP_EXAMPLES)
                      if config.hops != "whole" else [])
    forms = ("line", "short")
    rows = []
    for method in methods:
        answers = read_answers(data["questions"], data[method], data["passages"], client,
                               method, "numbered", read.margin_tokens, system,
                               config.max_passages, context_form=config.context_form,
                               max_documents=config.max_documents, answer_form="line",
                               choice=config.choice, hops=config.hops,
                               decompositions=decompositions,
                               passage_window=config.passage_window)
        text = dict(zip(data["questions"]["question_id"], data["questions"]["question"]))
        support = support_read(answers, data["questions"], data["passages"])
        for form in forms:
            formed = answers.assign(answer=[final_answer(r, text[q], form) for r, q in
                                            zip(answers["raw_response"],
                                                answers["question_id"])])
            scored = score_answers(data["questions"], formed, data["passages"],
                                   method).merge(support, on="question_id", how="left")
            rows.append(scored.assign(config=name, answer_form=form, model=config.model,
                                      context_form=config.context_form,
                                      max_passages=config.max_passages,
                                      demonstrations=config.demonstrations,
                                      system=config.system, context_order="rank",
                                      select="none", select_min=2,
                                      max_documents=config.max_documents,
                                      max_tokens=config.max_tokens, choice=config.choice,
                                      hops=config.hops, hop_examples=config.hop_examples,
                                      passage_window=config.passage_window))
    return pd.concat(rows, ignore_index=True)


def support_read(answers: pd.DataFrame, questions: pd.DataFrame,
                 passages: pd.DataFrame) -> pd.DataFrame:
    """Per question: the passages offered to the prompt (read or cut), those read, and how
    many of each are supporting (in the question's own collection: a negative document's
    passage is supporting only in its own): a selection's precision and recall."""
    flagged = passages[passages["is_supporting"].astype(bool)]
    supporting = {c: set(rows["passage_id"]) for c, rows in flagged.groupby("collection_id")}
    collection = dict(zip(questions["question_id"], questions["collection_id"]))
    rows = []
    for qid, read, cut in zip(answers["question_id"], answers["context_ids"],
                              answers["cut_ids"]):
        own = supporting.get(collection[qid], set())
        rows.append({"question_id": qid, "n_read": len(read),
                     "supporting_read": len(own.intersection(read)),
                     "n_offered": len(read) + len(cut),
                     "supporting_offered": len(own.intersection([*read, *cut]))})
    return pd.DataFrame(rows)


def render(answers: pd.DataFrame, questions: int) -> str:
    """The study's tables: per configuration and answer form, F1 of Golden, ``kgp`` and DPR
    per source, prompt tokens and seconds a question (the stored calls' own latency, summed
    over a question's calls); then per configuration (short answers) ``kgp`` minus DPR and the
    supporting passages' precision and recall among the passages read (of those offered)."""
    lines = [f"#### Reader design study: {questions} train questions a source",
             "",
             "Generated by `benchmarks/bench_reader_design.py` from the `<config>.csv` files "
             "beside it (replies in `results/llm`). F1 in %, HotpotQA / MuSiQue / 2Wiki train "
             f"questions (the first {questions} of each bundled train file); – where a "
             "configuration has not read that method yet. s/question: mean reader latency of "
             "the stored calls, summed over a question's calls (see docs/reader.md for the "
             "CPU, threads and load).",
             "",
             "| config | answer | model | context | order | select | passages | documents | "
             "demos | Golden F1 | kgp F1 | DPR F1 | mean (Golden, kgp) | prompt tokens | "
             "s/question |",
             "| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | ---: "
             "| ---: | ---: |"]
    extra = ["", "Per configuration (short or steps answers): `kgp` minus DPR F1 per source, over "
             "all its questions, and over the questions where both prompts hold the same share "
             "of the supporting passages; of the passages read, the share that are supporting "
             "(precision) and the share of the supporting passages offered to the prompt that "
             "were read (recall; below 100 % only where a selection or the window left some "
             "out), `kgp` / DPR.",
             "",
             "| config | kgp − DPR F1 | kgp − DPR pooled [95 %] | "
             "at equal support (questions) | passages read (kgp / DPR) | "
             "supporting precision (kgp / DPR) | supporting recall (kgp / DPR) |",
             "| --- | --- | ---: | ---: | --- | --- | --- |"]
    older = {"context_order": "rank", "select": "none", "select_min": 2}   # before issue 48
    answers = answers.assign(**{c: answers[c].fillna(v) if c in answers else v
                                for c, v in older.items()})
    for (config, form), rows in answers.groupby(["config", "answer_form"], sort=False):
        first = rows.iloc[0]
        by_method = {m: rows[rows["method"] == m] for m in METHODS}

        def f1(method: str) -> str:
            by = by_method[method].groupby("source")["f1"].mean() * 100
            return " / ".join(f"{by[s]:.1f}" if s in by else "–" for s in SOURCE_ORDER)

        both = ("–" if by_method["kgp"].empty or by_method["golden"].empty else
                f'{rows[rows["method"].isin(["golden", "kgp"])]["f1"].mean() * 100:.1f}')
        selection = (first["select"] if first["select"] == "none"
                     else f"{first['select']}, ≥ {int(first['select_min'])}")
        documents = ("all" if "max_documents" not in rows or pd.isna(first["max_documents"])
                     else int(first["max_documents"]))
        lines.append(
            f"| {config} | {form} | {first['model'].split('-instruct')[0]} | "
            f"{first['context_form']} | {first['context_order']} | {selection} | "
            f"{first['max_passages']} | {documents} | "
            f"{first['demonstrations']} | {f1('golden')} | {f1('kgp')} | {f1('dpr')} | "
            f"{both} | {rows['prompt_tokens'].mean():.0f} | "
            f"{rows['reader_latency_ms'].mean() / 1000:.2f} |")
        if form not in SHORT or by_method["dpr"].empty or by_method["kgp"].empty:
            continue
        gap = (by_method["kgp"].groupby("source")["f1"].mean()
               - by_method["dpr"].groupby("source")["f1"].mean()) * 100
        pooled = pooled_difference(rows[rows["method"].isin(["kgp", "dpr"])], "dpr")
        paired = by_method["kgp"].merge(by_method["dpr"], on="question_id",
                                        suffixes=("_kgp", "_dpr"))
        equal = paired[paired["context_sp_recall_kgp"] == paired["context_sp_recall_dpr"]]
        at_equal = (equal["f1_kgp"] - equal["f1_dpr"]).mean() * 100

        def support(column: str, total: str) -> str:
            if column not in rows or rows[column].isna().all():   # recorded before issue 48
                return "–"
            return " / ".join(f"{by_method[m][column].sum() / by_method[m][total].sum():.0%}"
                              for m in ("kgp", "dpr"))

        read = (" / ".join(f"{by_method[m]['n_read'].mean():.1f}" for m in ("kgp", "dpr"))
                if "n_read" in rows and rows["n_read"].notna().any() else "–")
        extra.append(f"| {config} | {' / '.join(f'{gap[s]:+.1f}' for s in SOURCE_ORDER)} | "
                     f"{pooled} | {at_equal:+.1f} ({len(equal)}) | {read} | "
                     f"{support('supporting_read', 'n_read')} | "
                     f"{support('supporting_read', 'supporting_offered')} |")
    return "\n".join(lines + extra + against_chosen(answers)) + "\n"


def pooled_difference(rows: pd.DataFrame, baseline: str) -> str:
    """The mean F1 difference of ``rows``' one other method (or config) to ``baseline`` over
    the questions both answered, pooled over the sources, with its paired 95 % bootstrap
    interval (:func:`~kgp_kedro.reporting.qa_tables.paired_differences`): ``+4.1 [-2.0, +10.3]``."""
    diff = paired_differences(rows.assign(source="pooled"), baseline).iloc[0]
    return f"{diff['diff'] * 100:+.1f} [{diff['low'] * 100:+.1f}, {diff['high'] * 100:+.1f}]"


def against_chosen(answers: pd.DataFrame) -> list[str]:
    """Per configuration of the chosen reader's model (short answers), its mean of Golden and
    ``kgp`` F1 minus the chosen reader's (:data:`CHOSEN`), over the (question, method) pairs
    both read, with the 95 % interval paired by question (a question's Golden and ``kgp``
    answers drawn together)."""
    short = answers[answers["answer_form"].isin(SHORT) & answers["method"].isin(["golden", "kgp"])]
    chosen = short[short["config"] == CHOSEN]
    if chosen.empty:
        return []
    lines = ["", "Per configuration of the chosen reader's model (short or steps answers): its "
             f"mean of Golden and `kgp` F1 minus `{CHOSEN}`'s over the Golden and `kgp` answers both "
             "read, with the 95 % bootstrap interval paired by question.", "",
             "| config | mean (Golden, kgp) − chosen [95 %] | answers paired |",
             "| --- | ---: | ---: |"]
    for config, rows in short.groupby("config", sort=False):
        if config == CHOSEN or rows["model"].iloc[0] != chosen["model"].iloc[0]:
            continue
        pairs = pd.concat([chosen, rows])
        both = pairs.groupby(["question_id", "method"])["config"].transform("nunique") == 2
        # a question's F1: the mean of its Golden and kgp answers, under each config's name
        lines.append(f"| {config} | "
                     f"{pooled_difference(pairs[both].assign(method=pairs['config']), CHOSEN)} | "
                     f"{int(both.sum() // 2)} |")
    return lines


def study_parameters(threads: int | None = None) -> dict:
    """The qa_benchmark env's parameters (the project bootstrapped: its config loader merges
    the env softly), run from the project's root with INFO logging, as every study here;
    ``threads``: the reader's ``llm.local.n_threads`` (None: the env's 1)."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    os.chdir(ROOT)
    os.environ.setdefault("KEDRO_ENV", "qa_benchmark")
    bootstrap_project(ROOT)
    raw = project_parameters()
    if threads:
        raw["llm"]["local"]["n_threads"] = threads
    return raw


def add_threads(parser: argparse.ArgumentParser) -> None:
    """A study's ``--threads`` option (:func:`study_parameters`' ``threads``)."""
    parser.add_argument("--threads", type=int, default=None,
                        help="llm.local.n_threads (default: the qa_benchmark env's 1)")


def named(text: str, choices: tuple[str, str]) -> int | None:
    """Which of ``choices`` (0 or 1) ``text`` names, by normalised containment either way;
    None when it names neither or both."""
    said = normalize_answer(str(text))
    hits = [i for i, option in enumerate(choices)
            if said and (normalize_answer(option) in said or said in normalize_answer(option))]
    return hits[0] if len(hits) == 1 else None


def render_position_bias(rows: pd.DataFrame, questions: int) -> str:
    """Per source and in all: questions; in each order the share answered right and the
    share whose answer names the option shown first; how often the two orders name the same
    option, and how often that option is right; F1 in each order."""
    lines = ["#### Position bias on choice questions (Golden prompts, the chosen reading)", "",
             "Generated by `benchmarks/bench_reader_design.py --position-bias` from `position_bias.csv` "
             f"(replies in `results/llm`): the choice questions among the first {questions} "
             "of the HotpotQA and 2Wiki train files, each read with its documents in Golden's "
             "order and reversed, in one call (`whole`), one option at a time "
             "(`facts`), or one option at a time with the facts' dates deciding where they "
             "tell (`dates`). Right: the answer names the gold option; first: it names "
             "the option whose document the prompt shows first (an unbiased reader: about "
             "the share of questions whose gold option is shown first, 50 % over both "
             "orders); agree: both orders name the same option. An archived record: issue 65 "
             "removed `read.context_order` and `read.choice: facts` (commit d66a357a "
             "measures them).", "",
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


def position_bias(benchmark: str) -> None:
    """``--position-bias``: ``position_bias.md`` from the archived train measurement and the
    committed dev answers of ``results/<benchmark>/``."""
    raw = study_parameters()
    rows = pd.read_csv(OUT / "position_bias.csv")
    answers = pd.read_csv(ROOT / "results" / benchmark / "answers.csv")
    (OUT / "position_bias.md").write_text(
        render_position_bias(rows, RECORDED) + "\n"
        + render_dev(dev_choices(raw, benchmark), answers, benchmark))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30,
                        help="train questions a source retrieved (the collections' pool)")
    parser.add_argument("--read", type=int, default=None,
                        help="of those, the first N a source read (default: all)")
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--retrieve-only", action="store_true",
                        help="retrieve the choosing set (kept for the next run) and stop")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS),
                        help="the retrievals read (a slow model: golden and kgp first)")
    parser.add_argument("--store-only", action="store_true",
                        help="every reply from the store (llm.store_only): no model call")
    parser.add_argument("--table-only", action="store_true",
                        help="write tables.md from the recorded <config>.csv files, run nothing")
    parser.add_argument("--position-bias", action="store_true",
                        help="write position_bias.md (the archived train measurement and the "
                        "dev answers' split), run nothing")
    parser.add_argument("--benchmark", default="qa_benchmark_dev",
                        help="--position-bias: the results/ benchmark whose dev answers are "
                        "split")
    add_threads(parser)
    args = parser.parse_args()
    if args.position_bias:
        position_bias(args.benchmark)
        return
    if args.table_only:
        write_table(args.read or args.questions)
        return
    raw = study_parameters(args.threads)
    data = retrievals(raw, args.questions)
    if args.retrieve_only:
        return
    if args.read:
        data["questions"] = data["questions"].groupby("source", sort=False).head(args.read)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.configs:   # a file a config: two configs may run side by side
        run_config(name, CONFIGS[name], data, raw, args.store_only, args.methods).to_csv(
            OUT / f"{name}.csv", index=False)
        logging.getLogger(__name__).info("config %s recorded", name)
    write_table(args.read or args.questions)


def write_table(questions: int) -> None:
    """``tables.md`` from every recorded configuration (the archived ones too), in
    :data:`ORDER`."""
    recorded = [pd.read_csv(OUT / f"{name}.csv") for name in ORDER
                if (OUT / f"{name}.csv").exists()]
    (OUT / "tables.md").write_text(render(pd.concat(recorded, ignore_index=True), questions))


if __name__ == "__main__":
    main()
