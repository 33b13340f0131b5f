"""The committed results of a benchmark (``results/<benchmark>/``), and the tables generated
from them.

``answers.csv`` holds one row per question and method: the per-question scores of the score
stage (:func:`kgp_kedro.evaluation.qa_scores.score_columns`: the prediction, gold answers,
tokens, latency, and every registered metric's columns: EM, F1, Hits@1, the judge's Acc,
...). A run adds its rows and replaces the rows of the questions and methods it scored again
(the replies behind them come from the reply store, so they are the same unless the setting
changed, and ``run.json`` says when it did).
``run.json`` lists every run that wrote the file: its date, git commit, reader model, and
the sha256 of the parameters that shape answers (with those parameters, once per sha256).

``tables.md`` is generated from ``answers.csv`` alone (:func:`render_tables`), never edited by
hand: ``python -m kgp_kedro.reporting.results`` regenerates it for every benchmark under
``results/``, and the committed measurements' ``results/<kind>/tables.md``
(:data:`MEASUREMENTS`: retrieval, KG quality, the peers' own code), and the results blocks of
README.md and docs/**/*.md (:mod:`kgp_kedro.reporting.snippets`: results prose quoted only
through generated blocks); ``--check`` fails when a committed one differs.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import logging
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from kgp_kedro.plumbing.atomic import write_atomic, write_atomic_together
from kgp_kedro.plumbing.locks import benchmark_locked
from kgp_kedro.evaluation.metrics import Column
from kgp_kedro.evaluation.qa_scores import (RECORD_FIELDS, metric_columns, score_columns,
                                             summarise_scores)
from kgp_kedro.reporting.qa_tables import comparison_table, paired_differences, score_intervals
from kgp_kedro.reporting.kg_quality_results import KG_QUALITY_COLUMNS, render_kg_quality_tables
from kgp_kedro.reporting.measurements import read_measurement
from kgp_kedro.reporting.retrieval_results import (RETRIEVAL_COLUMNS, RETRIEVAL_OPTIONAL,
                                                   render_peer_tables, render_retrieval_tables)
from kgp_kedro.reporting.snippets import ResultsData, render_page
from kgp_kedro.reporting.support_split import support_split
from kgp_kedro.reporting.snippets import pages as results_pages
from kgp_kedro.runs.integrity import parameters_digest

logger = logging.getLogger(__name__)

KEY = ["source", "question_id", "method"]
# the parameter blocks that shape an answer (what is read, how it is retrieved and read)
ANSWER_BLOCKS = ("ingest", "passages", "embed", "kg", "retrieve", "read", "llm", "holmes",
                 "ewek", "score")
BASELINES = ("dpr", "golden")   # paired F1 differences against these rows
# results/<kind>/*.csv: the committed measurements and the renderer of their tables.md
# (its columns, those of them an older file may lack, the renderer); peers: the peers' own
# code in HippoRAG 2's setting (benchmarks/peers/), rows in the retrieval measurements' form
MEASUREMENTS = {"retrieval": (RETRIEVAL_COLUMNS, RETRIEVAL_OPTIONAL, render_retrieval_tables),
                "kg_quality": (KG_QUALITY_COLUMNS, (), render_kg_quality_tables),
                "peers": (RETRIEVAL_COLUMNS, RETRIEVAL_OPTIONAL, render_peer_tables)}


def measurement_files(directory: Path) -> list[Path]:
    """A measurement kind's files: ``directory/NAME.csv`` whose NAME holds no dot. A dot
    marks a side file of measurement NAME (``NAME.timings.csv``: a peer driver's raw costs,
    read by ``benchmarks/peers/score_peers.py`` into ``NAME.csv``), not a measurement."""
    return sorted(p for p in Path(directory).glob("*.csv") if "." not in p.stem)


def read_answers(directory: Path) -> pd.DataFrame:
    """A benchmark's committed answers in the score table's columns (empty when none). A
    metric's column that the file lacks (it was written before the metric was registered) is
    empty (NaN): the tables leave it out."""
    path = Path(directory) / "answers.csv"
    columns = score_columns()
    if not path.exists():
        return pd.DataFrame(columns=columns)
    answers = pd.read_csv(path, keep_default_na=False, na_values=[""])
    missing = [c for c in RECORD_FIELDS if c not in answers.columns]
    if missing:
        raise ValueError(f"{path}: not a results table, columns missing: {', '.join(missing)}")
    answers["failed"] = answers["failed"].astype(bool)
    return answers.reindex(columns=columns)


def parameters_sha256(parameters: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The answer-shaping blocks of ``parameters`` and the sha256 of their canonical JSON."""
    shaping = {k: parameters[k] for k in ANSWER_BLOCKS if k in parameters}
    return parameters_digest(shaping), shaping


def record_answers(scores: pd.DataFrame, directory: Path, parameters: Mapping[str, Any],
                   reader: str, commit: str | None) -> pd.DataFrame:
    """Add ``scores`` (the score stage's per-question rows) to ``directory/answers.csv``,
    replacing rows with the same source, question and method, and this run to ``run.json``.
    Both are read and written under the benchmark's one lock (the recordings' too:
    :func:`~kgp_kedro.plumbing.locks.benchmark_locked`), so a run writing the same benchmark
    at once loses none of its rows or runs, and written as one unit: both whole to temporary
    files, then renamed (an interrupted write leaves the previous pair). Returns the whole
    table."""
    directory = Path(directory)
    new = scores[score_columns()].astype({"question_id": str})
    sha, shaping = parameters_sha256(parameters)
    with benchmark_locked(directory):
        old = read_answers(directory).astype({"question_id": str})
        kept = old[~old.set_index(KEY).index.isin(new.set_index(KEY).index)]
        table = (pd.concat([kept, new], ignore_index=True) if len(kept) else new.copy())
        table = table.sort_values(KEY, kind="stable").reset_index(drop=True)
        run_path = directory / "run.json"
        runs = (json.loads(run_path.read_text()) if run_path.exists()
                else {"runs": [], "parameters": {}})
        runs["parameters"].setdefault(sha, shaping)
        runs["runs"].append({
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "git_commit": commit, "reader": reader, "parameters_sha256": sha,
            "rows": len(new), "methods": sorted(set(new["method"]))})
        write_atomic_together({
            directory / "answers.csv": table.to_csv(index=False,
                                                    lineterminator="\n").encode("utf-8"),
            run_path: (json.dumps(runs, indent=1, sort_keys=True, ensure_ascii=False,
                                  default=str) + "\n").encode("utf-8")})
    return table


def _on_shared_questions(answers: pd.DataFrame) -> pd.DataFrame:
    """The rows of the sources whose methods were not all read on the same questions,
    restricted to the questions every method of that source answered (empty when every
    source's methods share their questions)."""
    parts = []
    for _, part in answers.groupby("source", sort=False):
        per_method = part.groupby("method", sort=False)["question_id"].agg(frozenset)
        if len(set(per_method)) > 1:
            shared = frozenset.intersection(*per_method)
            parts.append(part[part["question_id"].isin(shared)])
    return pd.concat(parts, ignore_index=True) if parts else answers.iloc[0:0]


def _pct(value: float) -> str:
    return "–" if pd.isna(value) else f"{100 * value:.1f}"


def _mean(column: Column, value: float) -> str:
    """A metric's mean as the tables write it: a percent with one decimal, or a fraction."""
    return _pct(value) if column.percent or pd.isna(value) else f"{value:.3f}"


def _measured(columns: list[Column], rows: pd.DataFrame) -> list[Column]:
    """The ``columns`` that have a value in ``rows`` (the judge's Acc where it ran, the
    structural metrics on a documents folder, ...)."""
    return [c for c in columns if c.name in rows.columns and rows[c.name].notna().any()]


def _ran_as(answers: pd.DataFrame) -> dict[tuple[str, str], str]:
    """``(source, method) -> what ran`` (distinct descriptions joined by `` / ``: a method
    whose rows came from different settings shows each)."""
    return {key: " / ".join(dict.fromkeys(v for v in part["ran_as"] if isinstance(v, str) and v))
            for key, part in answers.groupby(["source", "method"], sort=False)}


def _diff_cell(diffs: pd.DataFrame, source: str, method: str) -> str:
    if (source, method) not in diffs.index:
        return "–"
    x = diffs.loc[(source, method)]
    return f"{100 * x['diff']:+.1f} [{100 * x['low']:+.1f}, {100 * x['high']:+.1f}]"


def _markdown(head: list[str], rows: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(r) + " |" for r in rows), ""]


def render_tables(answers: pd.DataFrame, title: str) -> str:
    """Markdown from a benchmark's answers: per source, Table 1's rows (what ran under each
    name, questions, each Table 1 metric of the registry measured there: EM, F1 with its 95 %
    interval, the judge's Acc where it ran, Hits@1, ...; F1 as a share of Golden's with its
    interval, and the paired F1 difference to DPR and to Golden with its interval); Table 2,
    KGP's traversal agents (the rows run by the ``kgp`` retriever); ``kgp`` against DPR by the
    supporting passages their prompts hold (:mod:`~kgp_kedro.reporting.support_split`); F1
    against the reader's
    input tokens and the LLM calls per question (HOLMES' token saving, EWEK-QA's calls); and
    the citation metrics of the methods whose answers cite (EWEK-QA). Where a source's
    methods were read on different questions (pieces of different sizes), its methods again
    on the questions all of them answered, so every row of that table answers the same
    questions."""
    lines = [f"### {title}", "",
             "Generated by `python -m kgp_kedro.reporting.results` from `answers.csv`; do not "
             "edit. Percent; [low, high]: 95 % percentile bootstrap over the source's questions "
             "(1,000 resamples, seed 0); Δ: paired difference in F1 points; ran as: the method "
             "and options that produced the row.", ""]
    if answers.empty:
        return "\n".join([*lines, "No answers recorded yet.", ""])
    summary = summarise_scores(answers)
    table = comparison_table(summary, intervals=score_intervals(answers)).set_index("method")
    diffs = {b: paired_differences(answers, b).set_index(["source", "method"])
             for b in BASELINES}
    ran_as = _ran_as(answers)
    methods = {source: list(dict.fromkeys(answers[answers["source"] == source]["method"]))
               for source in dict.fromkeys(answers["source"])}

    table1 = metric_columns("table1")

    def interval(column: Column) -> bool:
        """Whether Table 1 has the bootstrap interval of ``column`` (F1's)."""
        return any(c.endswith(f"/{column.name}_low") for c in table.columns)

    def labels(columns: list[Column]) -> list[str]:
        return [c.label + (" [95 % interval]" if interval(c) else "") for c in columns]

    def scores(source: str, method: str, columns: list[Column],
               table: pd.DataFrame = table) -> list[str]:
        """The questions and each of ``columns``' means (with its interval where Table 1 has
        one) of ``method`` on ``source``."""
        row = table.loc[method]
        cells = [f"{int(row[f'{source}/questions'])}"]
        for column in columns:
            # Table 1 holds a percent metric's mean in percent
            value, low, high = (row.get(f"{source}/{column.name}{end}", float("nan"))
                                / (100 if column.percent else 1)
                                for end in ("", "_low", "_high"))
            cells.append(_mean(column, value) + (f" [{_mean(column, low)}, {_mean(column, high)}]"
                                                 if interval(column) else ""))
        return cells

    def of_golden(source: str, method: str) -> str:
        """F1 / Golden F1 with its interval (the paper's measure of how close a method
        comes to the supporting facts), "–" without a Golden row."""
        row = table.loc[method]
        if pd.isna(row.get(f"{source}/f1_vs_golden", float("nan"))):
            return "–"
        return (f"{row[f'{source}/f1_vs_golden']:.2f} [{row[f'{source}/f1_vs_golden_low']:.2f}, "
                f"{row[f'{source}/f1_vs_golden_high']:.2f}]")

    for source, names in methods.items():
        # the Table 1 metrics measured on the source (Acc only where the judge ran)
        columns = _measured(table1, summary[summary["source"] == source])
        head = ["method", "ran as", "questions", *labels(columns), "F1 / Golden F1",
                *(f"Δ F1 vs {b}" for b in BASELINES)]
        lines += [f"#### {source}", "", *_markdown(head, [
            [m, ran_as[(source, m)], *scores(source, m, columns), of_golden(source, m),
             *(_diff_cell(diffs[b], source, m) for b in BASELINES)] for m in names])]
    common = _on_shared_questions(answers)
    if len(common):
        shared = comparison_table(summarise_scores(common),
                                  intervals=score_intervals(common)).set_index("method")
        shared_diffs = {b: paired_differences(common, b).set_index(["source", "method"])
                        for b in BASELINES}
        lines += ["#### On the questions every method of the source answered", "",
                  "Where some methods were read on fewer questions than others (a later piece "
                  "adds the rest), every method of the source on the questions all of them "
                  "answered.", "", *_markdown(
                      ["source", "method", "questions", *labels(columns := _measured(
                          table1, common)), *(f"Δ F1 vs {b}" for b in BASELINES)],
                      [[source, m, *scores(source, m, columns, shared),
                        *(_diff_cell(shared_diffs[b], source, m) for b in BASELINES)]
                       for source in dict.fromkeys(common["source"])
                       for m in methods[source]])]
    agents = [(source, m) for source, names in methods.items() for m in names
              if ran_as[(source, m)].split(" ", 1)[0] == "kgp"]
    if agents:
        columns = _measured(table1, answers[pd.MultiIndex.from_frame(
            answers[["source", "method"]]).isin(agents)])
        lines += ["#### Table 2: KGP's traversal agents", "", *_markdown(
            ["source", "method", "ran as", "questions", *labels(columns), "Δ F1 vs dpr"],
            [[source, m, ran_as[(source, m)], *scores(source, m, columns),
              _diff_cell(diffs["dpr"], source, m)] for source, m in agents])]
    split = support_split(answers)
    if split["questions"].sum():
        lines += ["#### `kgp` against DPR by the supporting passages their prompts hold", "",
                  "Pooled over the sources, on the questions both answered: which prompt holds "
                  "every supporting passage (the first four rows), and which holds the larger "
                  "share of them (the last three); F1 in percent, Golden's over the same "
                  "questions; `kgp` − DPR the paired difference with its 95 % interval over the "
                  "group's questions; the last column on how many of them each one's F1 is "
                  "the higher (the rest are read alike).", "", *_markdown(
                      ["questions where", "n", "Golden F1", "`kgp` F1", "DPR F1", "`kgp` − DPR",
                       "`kgp` / DPR better"],
                      [[g.group, f"{g.questions}", _pct(g.golden_f1), _pct(g.kgp_f1),
                        _pct(g.dpr_f1), "–" if pd.isna(g.kgp_minus_dpr)
                        else f"{100 * g.kgp_minus_dpr:+.1f} [{100 * g.kgp_minus_dpr_low:+.1f}, "
                             f"{100 * g.kgp_minus_dpr_high:+.1f}]",
                        f"{g.kgp_better} / {g.dpr_better}"]
                       for g in split.itertuples()])]
    costs = answers.groupby(["source", "method"], sort=False).agg(
        f1=("f1", "mean"), prompt_tokens=("prompt_tokens", "mean"),
        completion_tokens=("completion_tokens", "mean"), llm_calls=("llm_calls", "mean"),
        latency_s=("reader_latency_ms", lambda s: s.mean() / 1000), failed=("failed", "sum"))
    lines += ["#### F1 against the reader's input tokens and LLM calls, per question", "",
              *_markdown(["source", "method", "F1", "prompt tokens", "completion tokens",
                          "LLM calls", "reader latency s", "failed"],
                         [[source, method, _pct(c.f1), f"{c.prompt_tokens:.0f}",
                           f"{c.completion_tokens:.1f}", f"{c.llm_calls:.1f}",
                           f"{c.latency_s:.2f}", f"{int(c.failed)}"]
                          for (source, method), c in costs.iterrows()])]
    # the citation metrics, over the answers of the methods that cite
    columns = metric_columns("citations")
    citing = answers[answers[[c.name for c in columns]].notna().any(axis=1)]
    if len(citing):
        grouped = citing.groupby(["source", "method"], sort=False)
        cites = grouped[[c.name for c in columns]].mean()
        cites.insert(0, "questions", grouped.size())
        cites["llm_calls"] = grouped["llm_calls"].mean()
        lines += ["#### Citations (answers that cite a reference, and the share of their "
                  "citations that point at a supporting passage)", "",
                  *_markdown(["source", "method", "questions", *labels(columns), "LLM calls"],
                             [[source, method, f"{int(c['questions'])}",
                               *(_mean(m, c[m.name]) for m in columns),
                               f"{c['llm_calls']:.1f}"]
                              for (source, method), c in cites.iterrows()])]
    return "\n".join(lines)


def regenerate(root: Path, check: bool = False, pages: Sequence[Path] = ()) -> list[Path]:
    """Write (or with ``check``, compare) ``tables.md`` of every benchmark under ``root``, of
    each committed measurement kind, and the results blocks of ``pages``
    (:mod:`kgp_kedro.reporting.snippets`); returns the files that differ from what is on disk
    (written unless ``check``)."""
    answers = {path.parent.name: read_answers(path.parent)
               for path in sorted(Path(root).glob("*/answers.csv"))}
    generated = {Path(root) / name / "tables.md": render_tables(table, f"Answers: {name}")
                 for name, table in answers.items()}
    measurements = {}
    for kind, (columns, optional, render) in MEASUREMENTS.items():
        found = measurement_files(Path(root) / kind)
        if found:
            measurements[kind] = [(path.stem, read_measurement(path, columns, optional))
                                  for path in found]
            generated[Path(root) / kind / "tables.md"] = render(measurements[kind])
    data = ResultsData(answers, measurements)
    for page in pages:
        generated[Path(page)] = render_page(Path(page).read_text(encoding="utf-8"), data, page)
    changed = []
    for target, text in generated.items():
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            changed.append(target)
            if not check:
                write_atomic(target, text.encode("utf-8"))
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default="results", help="the results store (default: results)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a committed table or results block is "
                             "out of date")
    parser.add_argument("--pages", nargs="*", type=Path, default=None,
                        help="the pages whose results blocks to write (default: README.md and "
                             "docs/**/*.md beside the results store)")
    args = parser.parse_args(argv)
    pages = (results_pages(Path(args.root).resolve().parent) if args.pages is None
             else args.pages)
    changed = regenerate(Path(args.root), args.check, pages)
    for path in changed:
        sys.stderr.write(f"{'out of date' if args.check else 'written'}: {path}\n")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
