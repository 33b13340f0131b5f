"""The hop histogram: visits per hop read off the retrieved tables' paths, worked by hand."""
from __future__ import annotations

import pandas as pd
import pytest

from kgp_kedro.evaluation.hops import HOP_HISTOGRAM_COLUMNS, hop_histogram, path_visits
from kgp_kedro.retrievers.run import RETRIEVED_COLUMNS


def _table(method, paths_by_question, source="hotpotqa", scope="per_question"):
    rows = []
    for qid, paths in paths_by_question.items():
        if not paths:  # the `none` method's null row
            rows.append({"source": source, "scope": scope, "question_id": qid,
                         "collection_id": qid, "method": method, "rank": -1,
                         "passage_id": None, "score": float("nan"), "hop": -1, "path": "",
                         "latency_ms": 1.0, "calls": 0})
        for rank, path in enumerate(paths):
            steps = path.split(" > ")
            rows.append({"source": source, "scope": scope, "question_id": qid,
                         "collection_id": qid, "method": method, "rank": rank,
                         "passage_id": steps[-1], "score": 1.0, "hop": len(steps) - 1,
                         "path": path, "latency_ms": 1.0, "calls": 0})
    return pd.DataFrame(rows, columns=RETRIEVED_COLUMNS)


def test_a_visit_is_a_distinct_path_prefix():
    # paper mode: s1's two paths share the seed; s2 > s1 visits s1 again, at hop 1 (not new)
    assert path_visits(["s1 > a", "s1 > b", "s2 > s1", "s3"]) == {0: (3, 3), 1: (3, 2)}
    # distinct mode: each row adds one passage
    assert path_visits(["s1", "s2", "s1 > a", "s1 > a > b"]) == {0: (2, 2), 1: (1, 1),
                                                                  2: (1, 1)}
    assert path_visits([""]) == {}


def test_histogram_per_source_method_and_hop():
    paper = _table("kgp_paper", {"q1": ["s1 > a", "s1 > b", "s2 > c > d"],
                                 "q2": ["s1 > a", "s3"]})
    distinct = _table("kgp_distinct", {"q1": ["s1", "s2", "s1 > a", "s1 > a > b"],
                                       "q2": ["s1"], "q3": []})
    hist = hop_histogram(paper, distinct, _table("empty", {}))
    assert list(hist.columns) == HOP_HISTOGRAM_COLUMNS
    got = {(r.method, r.hop): (r.visits, r.questions, r.mean_per_question, r.new_per_question,
                               r.questions_reaching) for r in hist.itertuples()}
    third = pytest.approx(1 / 3)
    assert got == {
        # q1: seeds s1, s2 | a, b, c | d;  q2: seeds s1, s3 | a
        ("kgp_paper", 0): (4, 2, 2.0, 2.0, 2), ("kgp_paper", 1): (4, 2, 2.0, 2.0, 2),
        ("kgp_paper", 2): (1, 2, 0.5, 0.5, 1),
        # q3 returned nothing: it counts as a question with no visit
        ("kgp_distinct", 0): (3, 3, 1.0, 1.0, 2), ("kgp_distinct", 1): (1, 3, third, third, 1),
        ("kgp_distinct", 2): (1, 3, third, third, 1)}
    # a seed revisited at hop 1 is a visit, not a new passage
    hist = hop_histogram(_table("kgp_paper", {"q1": ["s1 > s2", "s1 > a", "s2 > s1"]}))
    assert hist[["hop", "visits", "new_per_question"]].values.tolist() == [[0, 2, 2.0],
                                                                          [1, 3, 1.0]]
    assert hop_histogram(_table("empty", {})).empty
