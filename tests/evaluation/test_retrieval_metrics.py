"""Retrieval metrics at the passage and the document unit, with reasoning paths, worked by
hand on tiny inputs, then checked on real bundled collections."""
from __future__ import annotations

import pandas as pd
import pytest

from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.evaluation import retrieval_metrics, score_retrieval
from kgp_kedro.evaluation.retrieval import RETRIEVAL_SUMMARY_COLUMNS, ranked_contexts, recall_at_k
from kgp_kedro.search import tfidf_search

# one collection "c": document A (sentences a0, a1 supporting; a2 not), B (b0 supporting; b1
# not), C (c0, a negative)
PASSAGES = pd.DataFrame({
    "source": "toy", "collection_id": "c",
    "passage_id": ["a0", "a1", "a2", "b0", "b1", "c0"],
    "doc_id": ["A", "A", "A", "B", "B", "C"],
    "text": "", "is_supporting": [True, True, False, True, False, False]})
SUPPORT = ["a0", "a1", "b0"]
DOC_OF = dict(zip(PASSAGES["passage_id"], PASSAGES["doc_id"]))
QUESTIONS = pd.DataFrame({"source": ["toy"], "question_id": ["q"], "collection_id": ["c"]})


def _by_k(rows):
    return {r["k"]: r for r in rows}


def test_passage_unit_by_hand():
    rows = _by_k(retrieval_metrics(["a2", "a0", "c0", "b1", "a1", "b0"], SUPPORT, [1, 2, 4, 5, 6]))
    assert [rows[k]["recall"] for k in (1, 2, 4, 5, 6)] == \
        [0.0, pytest.approx(1 / 3), pytest.approx(1 / 3), pytest.approx(2 / 3), 1.0]
    assert rows[2]["precision"] == 0.5 and rows[5]["precision"] == pytest.approx(2 / 5)
    assert rows[6]["precision"] == pytest.approx(3 / 6)
    assert [rows[k]["sp_em"] for k in (1, 2, 4, 5, 6)] == [0, 0, 0, 0, 1]
    assert rows[4]["n_passages"] == 4


def test_document_unit_by_hand():
    """A supporting document is found when one of ITS SUPPORTING passages is retrieved: a2 (a
    non-supporting sentence of A) finds nothing."""
    rows = _by_k(retrieval_metrics(["a2", "a0", "c0", "b1", "a1", "b0"], SUPPORT, [1, 2, 4, 5, 6],
                                   unit_of=DOC_OF))
    assert rows[1]["recall"] == 0.0                              # a2 only
    assert rows[2]["recall"] == 0.5 and rows[2]["precision"] == 0.5   # A via a0
    assert rows[4]["recall"] == 0.5 and rows[4]["precision"] == 0.25  # b1 does not find B
    assert rows[5]["recall"] == 0.5 and rows[5]["sp_em"] == 0.0      # a1: A again
    assert rows[6]["recall"] == 1.0 and rows[6]["sp_em"] == 1.0      # b0 finds B
    assert rows[6]["precision"] == pytest.approx(2 / 6)
    # the document unit finds every gold paragraph before the passage unit has every fact
    passage = _by_k(retrieval_metrics(["a0", "b0", "a1"], SUPPORT, [2, 3]))
    document = _by_k(retrieval_metrics(["a0", "b0", "a1"], SUPPORT, [2, 3], unit_of=DOC_OF))
    assert (passage[2]["sp_em"], document[2]["sp_em"]) == (0.0, 1.0)
    assert passage[3]["sp_em"] == 1.0


def test_paths_count_every_passage_of_the_top_k_rows():
    """A row is a reasoning path: the metrics at k count the distinct passages of the top-k
    rows' paths, so a path can bring passages that were never ranked on their own."""
    ranked = [("c0",), ("c0", "a0", "b0"), ("a1",)]
    rows = _by_k(retrieval_metrics(ranked, SUPPORT, [1, 2, 3]))
    assert rows[1]["recall"] == 0.0
    assert rows[2]["recall"] == pytest.approx(2 / 3) and rows[2]["n_passages"] == 3
    assert rows[2]["precision"] == pytest.approx(2 / 3)    # 3 passages in 2 slots: / 3
    assert rows[3]["sp_em"] == 1.0
    assert _by_k(retrieval_metrics(ranked, SUPPORT, [2], unit_of=DOC_OF))[2]["sp_em"] == 1.0


def _table(ids, paths=None, method="m", scope="per_question"):
    return pd.DataFrame({"source": "toy", "scope": scope, "question_id": "q", "collection_id": "c",
                         "method": method, "rank": range(len(ids)), "passage_id": ids,
                         "score": 1.0, "hop": 0, "path": paths if paths is not None else ids,
                         "latency_ms": 2.0, "calls": 1})


def test_score_retrieval_reports_both_units_and_reads_paths():
    # a baseline: each path is its passage alone
    baseline = _table(["a2", "a0", "c0", "b1", "a1", "b0"])
    # a traversal whose rows are paths ending at their passage_id, in rank order (shuffled
    # rows: rank decides)
    traversal = _table(["c0", "b0", "a1"], ["c0", "c0 > a0 > b0", "a1"], method="kgp").iloc[::-1]
    none = pd.DataFrame({**_table(["x"], method="none").iloc[0].to_dict(),
                         "rank": -1, "passage_id": None, "path": ""}, index=[0])
    per_question, summary = score_retrieval(QUESTIONS, PASSAGES, [2, 6], baseline, traversal,
                                            none)
    assert list(summary.columns) == RETRIEVAL_SUMMARY_COLUMNS
    assert set(summary["unit"]) == {"passage", "document"}
    assert len(per_question) == 3 * 2 * 2   # methods x units x ks
    cell = summary.set_index(["method", "unit", "k"])
    assert cell.loc[("m", "passage", 2), "recall"] == pytest.approx(1 / 3)
    assert cell.loc[("m", "document", 2), "recall"] == 0.5
    assert cell.loc[("kgp", "passage", 2), "recall"] == pytest.approx(2 / 3)
    assert cell.loc[("kgp", "document", 2), "sp_em"] == 1.0
    assert cell.loc[("kgp", "passage", 6), "sp_em"] == 1.0
    assert (cell.xs("none", level="method")["recall"] == 0.0).all()
    assert (summary["latency_ms"] == 2.0).all() and (summary["n_questions"] == 1).all()
    # one unit only, on request; the per-question rows say how many passages were counted
    one, _ = score_retrieval(QUESTIONS, PASSAGES, [2], traversal, units=["document"])
    assert set(one["unit"]) == {"document"} and one["n_passages"].tolist() == [3]
    with pytest.raises(ValueError, match="unknown retrieval units"):
        score_retrieval(QUESTIONS, PASSAGES, [2], traversal, units=["sentence"])


def test_ranked_contexts_follow_rank_and_end_at_the_passage():
    table = _table(["b0", "a0"], ["a2 > b0", ""]).iloc[::-1]
    assert ranked_contexts(table) == {"q": [("a2", "b0"), ("a0",)]}


def test_units_on_real_collections(hotpot, musique):
    """TF-IDF top-k on real collections: on MuSiQue (paragraph passages) both units agree; on
    HotpotQA (sentence passages) all gold paragraphs are found whenever all facts are."""
    rows = []
    for questions, documents in (hotpot, musique):
        questions = questions.head(15)
        documents = documents[documents["collection_id"].isin(questions["collection_id"])]
        passages = split_passages(build_collections(questions, documents, 5, seed=1))
        for q in questions.itertuples():
            ps = passages[passages["collection_id"] == q.collection_id]
            order, _ = tfidf_search(q.question, ps["text"].tolist(), 30)
            ids = ps["passage_id"].to_numpy()[order].tolist()
            rows.append(_table(ids).assign(source=q.source, question_id=q.question_id,
                                           collection_id=q.collection_id))
        per_q, _ = score_retrieval(questions, passages, [2, 5, 30], pd.concat(rows[-15:]))
        wide = per_q.pivot_table(index=["question_id", "k"], columns="unit",
                                 values=["recall", "sp_em"])
        if q.source == "musique":
            assert (wide["recall"]["passage"] == wide["recall"]["document"]).all()
        else:
            assert (wide["sp_em"]["document"] >= wide["sp_em"]["passage"]).all()
            assert (wide["sp_em"]["document"] > wide["sp_em"]["passage"]).any()


def test_recall_at_one_k_by_hand():
    # quotes as their passage ids: the first holds a and b, the second c; gold a, c, d
    quotes = [("a", "b"), ("c",), ("d",)]
    assert recall_at_k(quotes, {"a", "c", "d"}, 1) == pytest.approx(1 / 3)
    assert recall_at_k(quotes, {"a", "c", "d"}, 2) == pytest.approx(2 / 3)
    assert recall_at_k(quotes, {"a", "c", "d"}, 5) == 1.0
    assert recall_at_k(quotes, set(), 2) != recall_at_k(quotes, set(), 2)   # NaN
