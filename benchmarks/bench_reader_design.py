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
demonstrations) is shown: the contexts best last (``read.context_order``), only those the
reader itself names in a first short call (``read.select``), or the passages of the best
few documents only (``read.max_documents``, distractor control); each row records the
passages read and offered and how many are supporting, so a selection's precision and recall
show. The tables give ``kgp`` minus DPR and each configuration minus the chosen reader
(:data:`CHOSEN`) with their paired 95 % bootstrap intervals.

Writes ``results/reader_design/<config>.csv`` (one row an answer form, method and question)
and ``results/reader_design/tables.md`` (every recorded config).
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

from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.evaluation.qa_scores import score_answers
from kgp_kedro.llm import make_llm
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.reading.answers import final_answer
from kgp_kedro.reading.demonstrations import train_demonstrations, with_demonstrations
from kgp_kedro.reading.hops import train_decompositions
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


@dataclass(frozen=True)
class ReaderConfig:
    """One reader configuration: the model, how the contexts show, how many passages, the
    system message's demonstrations and the prompt's system message."""

    model: str = "qwen2.5-coder-0.5b-instruct-q4_k_m"
    context_form: str = "passages"
    max_passages: int = 10
    demonstrations: int = 0
    system: bool = True
    context_order: str = "rank"
    select: str = "none"
    select_min: int = 2
    max_documents: int | None = None
    steps: bool = False              # read.answer_form steps (its system message, demonstrations)
    choice: str = "whole"            # read.choice
    hops: str = "whole"              # read.hops (chain, typed: read.hop_examples' decompositions)
    max_tokens: int | None = None    # llm.sampling.max_tokens (None: the env's)
    hop_examples: int | None = None  # read.hop_examples (None: the env's)
    passage_window: int = 0          # read.passage_window


Q05, Q15 = "qwen2.5-coder-0.5b-instruct-q4_k_m", "qwen2.5-coder-1.5b-instruct-q4_k_m"
CONFIGS = {
    "paper": ReaderConfig(system=False),                       # Listing 3 alone
    "base": ReaderConfig(),                                    # the 0.5B qa_benchmark reader
    "titled": ReaderConfig(context_form="titled"),
    "documents": ReaderConfig(context_form="documents"),
    "documents_demos": ReaderConfig(context_form="documents", demonstrations=3),
    "documents_demos_5": ReaderConfig(context_form="documents", demonstrations=3,
                                      max_passages=5),
    "titled_demos": ReaderConfig(context_form="titled", demonstrations=3),
    "1.5b_base": ReaderConfig(model=Q15),
    "1.5b_documents_demos": ReaderConfig(model=Q15, context_form="documents",
                                         demonstrations=3),
    "1.5b_titled_demos": ReaderConfig(model=Q15, context_form="titled", demonstrations=3),
    "1.5b_documents_demos_5": ReaderConfig(model=Q15, context_form="documents",
                                           demonstrations=3, max_passages=5),
    # issue 48: the chosen reader's contexts best last, nearest the repeated question
    "1.5b_reversed": ReaderConfig(model=Q15, context_form="documents", demonstrations=3,
                                  context_order="reversed"),
    # issue 48: the reader first names the contexts needed (at least 2), then answers from them
    "1.5b_select": ReaderConfig(model=Q15, context_form="documents", demonstrations=3,
                                select="reader"),
    # the same, at least 3 contexts read (a 3- or 4-hop question's documents kept more often)
    "1.5b_select_3": ReaderConfig(model=Q15, context_form="documents", demonstrations=3,
                                  select="reader", select_min=3),
    # distractor control: passages of the best 4 documents only, the 10-passage budget filled
    # from their later passages (a graph neighbour's document past the fourth is not shown)
    "1.5b_documents_4": ReaderConfig(model=Q15, context_form="documents", demonstrations=3,
                                     max_documents=4),
    # more demonstrations (9: three a source) in the system turn, whose KV cache is kept
    # between calls, so nearly free at run time: more multi-hop answers shown
    "1.5b_documents_4_demos_9": ReaderConfig(model=Q15, context_form="documents",
                                             demonstrations=9, max_documents=4),
    # decomposition in one call: the reply writes the hops (sub-question -> answer, or
    # subject - relation - object) before the answer, its demonstrations the train files' own
    # decompositions (MuSiQue, 2Wiki); room for the steps in 128 tokens
    "1.5b_documents_4_steps": ReaderConfig(model=Q15, context_form="documents",
                                           demonstrations=3, max_documents=4, steps=True,
                                           max_tokens=128),
    # issue 48: a question of several hops read one sub-question at a time (read.hops: chain;
    # a short call breaks it up, shown the MuSiQue train file's own decompositions), the
    # chosen reading otherwise
    "1.5b_documents_4_chain": ReaderConfig(model=Q15, context_form="documents",
                                           demonstrations=3, max_documents=4, hops="chain"),
    # issue 48: the same, and a choice question's two facts asked one option at a time, their
    # dates deciding where the question asks which came earlier or later (read.choice: dates)
    "1.5b_documents_4_chain_dates": ReaderConfig(model=Q15, context_form="documents",
                                                 demonstrations=3, max_documents=4,
                                                 hops="chain", choice="dates"),
    # issue 48: the same, a chain read by hops only where its last sub-question asks for the
    # question's kind of answer (read.hops: typed; a chain that asks "When did #1 come into
    # effect?" for "... what treaty?" is read whole)
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
    read = project.read.model_copy(update={"answer_form": "steps" if config.steps else "line"})
    demos = train_demonstrations(project.train.sources, config.demonstrations,
                                 steps=config.steps)
    system = with_demonstrations(read.system_message() if config.system else None, demos)
    decompositions = (train_decompositions(project.train.sources,
                                           config.hop_examples or read.hop_examples)
                      if config.hops != "whole" else [])
    forms = ("steps",) if config.steps else ("line", "short")
    rows = []
    for method in methods:
        answers = read_answers(data["questions"], data[method], data["passages"], client,
                               method, "numbered", read.margin_tokens, system,
                               config.max_passages, context_form=config.context_form,
                               context_order=config.context_order, select=config.select,
                               select_min=config.select_min,
                               max_documents=config.max_documents,
                               answer_form="steps" if config.steps else "line",
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
                                      system=config.system,
                                      context_order=config.context_order, select=config.select,
                                      select_min=config.select_min,
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
    add_threads(parser)
    args = parser.parse_args()
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
    """``tables.md`` from every recorded configuration, in :data:`CONFIGS` order."""
    recorded = [pd.read_csv(OUT / f"{name}.csv") for name in CONFIGS
                if (OUT / f"{name}.csv").exists()]
    (OUT / "tables.md").write_text(render(pd.concat(recorded, ignore_index=True), questions))


if __name__ == "__main__":
    main()
