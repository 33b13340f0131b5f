"""Retrieval metrics over supporting passages (paper §3/§5, HippoRAG-style recall@k), at two
units.

- ``passage``: the dataset's supporting unit, the passages labelled supporting (a HotpotQA or
  2Wiki supporting-fact sentence, a MuSiQue supporting paragraph).
- ``document``: a supporting document (a paragraph of the datasets) counts as found when any
  of its supporting passages is retrieved: the unit HippoRAG 2 and GFM-RAG report recall in.
  For MuSiQue, whose passages are its paragraphs, both units agree.

A retrieved table has one row per context, in rank order; a row's passages are those of its
``path`` (``"a > b > c"``; its ``passage_id`` is the path's last passage), so the metrics at k
count the distinct passages of the paths of the top-k rows. For a method whose paths only hold
passages ranked earlier (every baseline, KGP's distinct-passage traversal) this is the top-k
``passage_id``\\ s.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from kgp_kedro.corpus.collection import supporting_passages

UNITS = ("passage", "document")
PATH_SEPARATOR = " > "


def retrieval_metrics(ranked: Sequence[str | Sequence[str]], supporting: Iterable[str],
                      ks: Sequence[int], unit_of: Mapping[str, str] | None = None,
                      ) -> list[dict[str, float]]:
    """Metrics of one ranking against the supporting passages ``supporting`` (S).

    ``ranked`` holds one entry per retrieved context in rank order: a passage id, or the
    passages of a reasoning path (a sequence of ids). ``P_k`` is the set of distinct passages
    of the top-k entries. With ``unit_of`` (passage id → its document) the unit is the
    document: the supporting units are the documents of S, and one is found when a passage of
    ``P_k ∩ S`` belongs to it; without it the unit is the passage. For each ``k``:

    - **recall** = found supporting units / supporting units;
    - **precision** = found supporting units / max(k, units in ``P_k``): k counts slots, so a
      method returning fewer contexts is not rewarded, and a path that brings more passages
      than slots counts them all;
    - **sp_em** = 1 when every supporting unit is found;
    - **n_passages** = |P_k|.
    """
    support = set(supporting)
    if not support:
        raise ValueError("no supporting passages: retrieval metrics are undefined")
    unit = (lambda p: unit_of.get(p, p)) if unit_of is not None else (lambda p: p)
    wanted = {unit(p) for p in support}
    rows, seen, at = [], set(), 0
    entries = [(e,) if isinstance(e, str) else tuple(e) for e in ranked]
    for k in sorted(set(ks)):
        for entry in entries[at:k]:
            seen.update(entry)
        at = max(at, k)
        found = {unit(p) for p in seen & support}
        retrieved = len({unit(p) for p in seen}) if unit_of is not None else len(seen)
        rows.append({"k": k, "recall": len(found) / len(wanted),
                     "precision": len(found) / max(k, retrieved),
                     "sp_em": float(found == wanted), "n_passages": len(seen)})
    by_k = {r["k"]: r for r in rows}
    return [dict(by_k[k]) for k in ks]


def recall_at_k(ranked: Sequence[str | Sequence[str]], supporting: Iterable[str],
                k: int) -> float:
    """:func:`retrieval_metrics`' passage recall at one ``k`` (EWEK-QA's quotes before and
    after the rerank, each quote given as its passage ids); NaN without supporting passages."""
    support = set(supporting)
    return retrieval_metrics(ranked, support, [k])[0]["recall"] if support else float("nan")


def ranked_contexts(table: pd.DataFrame) -> dict[str, list[tuple[str, ...]]]:
    """``question id -> the passages of each retrieved row, in rank order``: the row's path
    (``"a > b > c"``) with its ``passage_id`` (the path's last passage) ensured; rows without
    a passage (the ``none`` method's placeholder) are left out."""
    rows = table[table["passage_id"].notna()].sort_values(["question_id", "rank"],
                                                          kind="stable")
    paths = rows["path"] if "path" in rows.columns else pd.Series("", index=rows.index)
    result: dict[str, list[tuple[str, ...]]] = {}
    for qid, pid, path in zip(rows["question_id"], rows["passage_id"], paths):
        parts = [p for p in str(path).split(PATH_SEPARATOR) if p] if isinstance(path, str) else []
        if not parts or parts[-1] != pid:
            parts.append(pid)
        result.setdefault(qid, []).append(tuple(parts))
    return result


RETRIEVAL_SUMMARY_COLUMNS = ["source", "scope", "method", "unit", "k", "recall", "precision",
                             "sp_em", "latency_ms", "calls", "n_questions"]


def score_retrieval(questions: pd.DataFrame, passages: pd.DataFrame, ks: Sequence[int],
                    *retrieved: pd.DataFrame, units: Sequence[str] = UNITS,
                    ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per question, method, unit (``passage``, ``document``: see the module) and k: recall,
    precision and SP-EM of the top-k contexts (the distinct passages of their paths) against
    the supporting passages; averaged per source × scope × method × unit × k with the mean
    latency and model calls per question. A method is scored on every question it ran on (all
    of them, or the QA questions for the LLM-driven ones): one that returned nothing for a
    question scores 0 there. Skipped methods (empty tables) are left out. A passage's document
    is its ``doc_id`` in ``passages``."""
    unknown = sorted(set(units) - set(UNITS))
    if unknown:
        raise ValueError(f"unknown retrieval units {unknown}; the units are {', '.join(UNITS)}")
    support = supporting_passages(passages)
    labelled = questions[questions["collection_id"].isin(support)]
    docs = passages.drop_duplicates("passage_id")
    unit_of = {"passage": None, "document": dict(zip(docs["passage_id"], docs["doc_id"]))}
    rows = []
    for table in retrieved:
        if table.empty:
            continue
        method, scope = table["method"].iloc[0], table["scope"].iloc[0]
        ranked = ranked_contexts(table)
        timing = table.drop_duplicates("question_id").set_index("question_id")
        asked = labelled[labelled["question_id"].isin(timing.index)]
        for q in asked.itertuples(index=False):
            base = {"source": q.source, "scope": scope, "method": method,
                    "question_id": q.question_id,
                    "latency_ms": timing["latency_ms"].get(q.question_id, float("nan")),
                    "calls": timing["calls"].get(q.question_id, 0)}
            for unit in units:
                for m in retrieval_metrics(ranked.get(q.question_id, []),
                                           support[q.collection_id], ks, unit_of[unit]):
                    rows.append({**base, "unit": unit, **m})
    per_question = pd.DataFrame(rows)
    if per_question.empty:
        return per_question, pd.DataFrame(columns=RETRIEVAL_SUMMARY_COLUMNS)
    per_question = per_question[["source", "scope", "method", "unit", "question_id", "k",
                                 "recall", "precision", "sp_em", "n_passages", "latency_ms",
                                 "calls"]]
    summary = (per_question.groupby(["source", "scope", "method", "unit", "k"], sort=False)
               .agg(recall=("recall", "mean"), precision=("precision", "mean"),
                    sp_em=("sp_em", "mean"), latency_ms=("latency_ms", "mean"),
                    calls=("calls", "mean"), n_questions=("question_id", "nunique"))
               .reset_index())
    return per_question, summary[RETRIEVAL_SUMMARY_COLUMNS]
