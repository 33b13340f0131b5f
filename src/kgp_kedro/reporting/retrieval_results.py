"""The committed retrieval measurements (``results/retrieval/<name>.csv``) and the tables
generated from them (``results/retrieval/tables.md``).

A measurement is one row per source and method written by ``benchmarks/bench_recall.py
--record <name>``: document recall@2 / @5, passage SP-EM@30, ms and model calls per question,
the method's wall time, the passages it indexed and the seconds its index-time work took
(encoding the passages, building a graph, linking entities: ``index_s``; files recorded before
it have these two empty), and where it was measured (:mod:`kgp_kedro.reporting.measurements`).
A later run replaces the rows of the sources and methods it measured again and keeps the
others, so one file grows source by source. ``tables.md`` is generated from the files alone
(:func:`render_retrieval_tables`), never edited by hand.
"""
from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kgp_kedro.reporting.measurements import PROVENANCE_COLUMNS, measured_where

RETRIEVAL_COLUMNS = ["source", "method", "questions", "recall_at_2", "recall_at_5",
                     "sp_em_at_30", "ms_per_question", "calls_per_question", "wall_s",
                     "passages", "index_s", "unit", "encoder", "peak_rss_mb",
                     "index_llm_tokens", *PROVENANCE_COLUMNS]
# passages, index_s: recorded from the run after issue 36 on; unit (document | passage: the
# unit of recall@k), encoder, peak_rss_mb, index_llm_tokens: from issue 66 on (HippoRAG 2's
# setting, --env hipporag). Empty in the files measured before (their unit: document)
RETRIEVAL_OPTIONAL = ("passages", "index_s", "unit", "encoder", "peak_rss_mb",
                      "index_llm_tokens")
RETRIEVAL_KEY = ["source", "method"]


def recall_unit(table: pd.DataFrame) -> str:
    """A measurement's unit of recall@k: ``passage`` (HippoRAG 2's setting) or ``document``
    (every file recorded before the unit was)."""
    units = set(table["unit"].dropna()) if "unit" in table.columns else set()
    if len(units) > 1:
        raise ValueError(f"a measurement mixes recall units {sorted(units)}")
    return units.pop() if units else "document"


def _passage_table(name: str, table: pd.DataFrame) -> list[str]:
    """HippoRAG 2's setting: passage R@2 / R@5 per source, then the costs per source
    (index s / 1,000 passages, LLM tokens at index time, ms / question, peak MB)."""
    sources = list(dict.fromkeys(table["source"]))
    encoders = ", ".join(dict.fromkeys(table["encoder"].dropna().astype(str)))
    lines = [f"#### {name}", "", f"Run: {'; '.join(dict.fromkeys(table['run']))}.", "",
             f"Passage recall@2 / @5 (HippoRAG 2's definition; encoder {encoders}), and per "
             "source the cost: index seconds per 1,000 passages, LLM tokens at index time, ms "
             "per question, the process's peak resident memory (MB) during the method's index "
             "work and questions.", "",
             "| method | " + " | ".join(f"{s}: R@2 / R@5 ({int(table[table['source'] == s]['questions'].iloc[0])} q, "
                                       f"{int(table[table['source'] == s]['passages'].iloc[0]):,} passages)"
                                       for s in sources)
             + " | " + " | ".join(f"{s}: index s per 1,000 passages · LLM tokens at index "
                                  "time · ms per question · peak MB" for s in sources) + " |",
             "| --- |" + " --- |" * len(sources) + " ---: |" * len(sources)]
    for method, group in table.groupby("method", sort=False):
        by = group.set_index("source")
        cells = [f"{by.loc[s, 'recall_at_2']:.3f} / {by.loc[s, 'recall_at_5']:.3f}"
                 if s in by.index else "–" for s in sources]
        costs = [f"{1000 * by.loc[s, 'index_s'] / by.loc[s, 'passages']:,.1f} · "
                 f"{int(by.loc[s, 'index_llm_tokens']):,} · {by.loc[s, 'ms_per_question']:,.1f} · "
                 f"{by.loc[s, 'peak_rss_mb']:,.0f}" if s in by.index else "–" for s in sources]
        lines.append(f"| {method} | " + " | ".join(cells + costs) + " |")
    return [*lines, "", measured_where(table), ""]


def _measurement_table(name: str, table: pd.DataFrame) -> list[str]:
    if recall_unit(table) == "passage":
        return _passage_table(name, table)
    sources = list(dict.fromkeys(table["source"]))
    lines = [f"#### {name}", "", f"Run: {'; '.join(dict.fromkeys(table['run']))}.", "",
             "| method | " + " | ".join(f"{s}: doc R@2 / R@5 / SP-EM@30 (questions)"
                                       for s in sources)
             + " | index s / 1,000 passages | ms / question | model calls / question |",
             "| --- |" + " --- |" * len(sources) + " ---: | ---: | ---: |"]
    for method, group in table.groupby("method", sort=False):
        by = group.set_index("source")
        cells = [f"{by.loc[s, 'recall_at_2']:.3f} / {by.loc[s, 'recall_at_5']:.3f} / "
                 f"{by.loc[s, 'sp_em_at_30']:.3f} ({int(by.loc[s, 'questions'])})"
                 if s in by.index else "–" for s in sources]
        index = 1000 * group["index_s"].sum(min_count=len(group)) / group["passages"].sum()
        lines.append(f"| {method} | " + " | ".join(cells)
                     + f" | {'–' if pd.isna(index) else f'{index:,.1f}'} | "
                       f"{group['ms_per_question'].mean():.1f} | "
                       f"{group['calls_per_question'].mean():.2f} |")
    if table["index_s"].isna().any():
        lines += ["", "Index s / 1,000 passages: – where the run predates its recording "
                  "(filled when the measurement is run again)."]
    return [*lines, "", measured_where(table), ""]


def render_retrieval_tables(measurements: Sequence[tuple[str, pd.DataFrame]],
                            title: str = "Retrieval",
                            written_by: str = "`benchmarks/bench_recall.py --record <name>`"
                            ) -> str:
    """Markdown: per measurement, a row per method with each source's document recall@2 /
    @5 and SP-EM@30, its index-time seconds per 1,000 passages (all sources' index time over
    all their passages) beside its ms per question, then where each source was measured; a
    measurement in passages (HippoRAG 2's setting) with its passage recall@2 / @5 and its
    costs per source (:func:`_passage_table`)."""
    lines = [f"### {title}", "",
             "Generated by `python -m kgp_kedro.reporting.results` from the CSV files beside "
             f"it (written by {written_by}); do not edit.", ""]
    for name, table in measurements:
        lines += _measurement_table(name, table)
    return "\n".join(lines)


def render_peer_tables(measurements: Sequence[tuple[str, pd.DataFrame]]) -> str:
    """``results/peers/tables.md``: the peers' own code run in HippoRAG 2's setting
    (``benchmarks/peers/``), each measurement in the retrieval tables' form."""
    return render_retrieval_tables(
        measurements, "Peers: their own code, in HippoRAG 2's setting",
        "`benchmarks/peers/score_peers.py --record <name>` from a peer's recorded rankings, "
        "`benchmarks/peers/README.md`")
