"""How deep the retrieval methods go: visits per hop, read off the paths of the retrieved
tables."""
from __future__ import annotations

import pandas as pd

HOP_COUNT_COLUMNS = ["source", "scope", "method", "question_id", "hop", "visits", "new"]
HOP_HISTOGRAM_COLUMNS = ["source", "scope", "method", "hop", "visits", "questions",
                         "mean_per_question", "new_per_question", "questions_reaching"]


def path_visits(paths: list[str]) -> dict[int, tuple[int, int]]:
    """``hop -> (visits, new passages)`` of one question's rows (their ``path`` strings,
    ``a > b > c``).

    A visit is a distinct path prefix, i.e. a node of the traversal tree: ``a > b > c`` visits
    ``a`` at hop 0, ``b`` at hop 1 and ``c`` at hop 2, and the prefixes rows share count once.
    For a method whose rows each add one passage (the baselines, KGP's distinct mode) that is
    one visit per row at the row's hop; for KGP's paper mode (one row per reasoning path) the
    seeds count at hop 0 once, whatever number of paths grow from them. A new passage is one
    no visit of a lower hop reached (paper mode may revisit a seed at hop 1)."""
    prefixes = {tuple(steps[:n]) for path in paths if path
                for steps in [path.split(" > ")] for n in range(1, len(steps) + 1)}
    by_hop: dict[int, list[str]] = {}
    for prefix in prefixes:
        by_hop.setdefault(len(prefix) - 1, []).append(prefix[-1])
    counts, seen = {}, set()
    for hop in sorted(by_hop):
        reached = set(by_hop[hop])
        counts[hop] = (len(by_hop[hop]), len(reached - seen))
        seen |= reached
    return counts


def hop_counts(*retrieved: pd.DataFrame) -> pd.DataFrame:
    """Per question of every ``retrieved_<method>`` table: visits per hop (hops without a
    visit left out; a question with no passage has no row)."""
    rows = []
    for table in retrieved:
        if table.empty:
            continue
        for (source, scope, method, qid), group in table.groupby(
                ["source", "scope", "method", "question_id"], sort=False):
            for hop, (visits, new) in path_visits(group["path"].fillna("").tolist()).items():
                rows.append({"source": source, "scope": scope, "method": method,
                             "question_id": qid, "hop": hop, "visits": visits, "new": new})
    return pd.DataFrame(rows, columns=HOP_COUNT_COLUMNS)


def hop_histogram(*retrieved: pd.DataFrame) -> pd.DataFrame:
    """Per source × scope × method × hop: ``visits`` (over all questions), ``questions`` (the
    questions the method ran on), ``mean_per_question`` (visits / questions),
    ``new_per_question`` (passages first reached at that hop, per question) and
    ``questions_reaching`` (questions with at least one visit at that hop). Visits are the
    distinct path prefixes of :func:`path_visits`."""
    tables = [t for t in retrieved if not t.empty]
    counts = hop_counts(*tables)
    if counts.empty:
        return pd.DataFrame(columns=HOP_HISTOGRAM_COLUMNS)
    asked = pd.concat([t.groupby(["source", "scope", "method"], sort=False)["question_id"]
                       .nunique() for t in tables])
    summary = (counts.groupby(["source", "scope", "method", "hop"], sort=False)
               .agg(visits=("visits", "sum"), new=("new", "sum"),
                    questions_reaching=("question_id", "nunique"))
               .reset_index())
    summary["questions"] = [int(asked[key]) for key in
                            zip(summary["source"], summary["scope"], summary["method"])]
    summary["mean_per_question"] = summary["visits"] / summary["questions"]
    summary["new_per_question"] = summary["new"] / summary["questions"]
    return summary[HOP_HISTOGRAM_COLUMNS]
