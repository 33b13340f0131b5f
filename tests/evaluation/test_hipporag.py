"""HippoRAG 2's setting: the corpus (every context paragraph, ``title\\ntext`` deduplicated on
both) and passage recall@k, worked by hand on tiny inputs, then on the bundled dev files."""
from __future__ import annotations

import pandas as pd
import pytest

from kgp_kedro.evaluation.hipporag import (content_id, distinct_passages, paragraph_corpus,
                                           passage_recall, passage_recall_table,
                                           score_passage_recall)


def _doc(collection, doc_id, title, text, supporting, negative=False):
    return {"source": "toy", "collection_id": collection, "doc_id": doc_id, "title": title,
            "text": text, "is_supporting": supporting, "is_negative": negative}


# q1's context: Paris (gold), Lyon, and Paris again as another copy; q2's: Paris (same title and
# text as q1's, not gold for q2), Paris with another text (gold for q2), a sampled negative
DOCUMENTS = pd.DataFrame([
    _doc("toy/q1", "toy/q1/0", "Paris", "Paris is the capital of France.", True),
    _doc("toy/q1", "toy/q1/1", "Lyon", "Lyon is a city in France.", False),
    _doc("toy/q1", "toy/q1/2", "Paris", "Paris is the capital of France.", False),
    _doc("toy/q2", "toy/q2/0", "Paris", "Paris is the capital of France.", False),
    _doc("toy/q2", "toy/q2/1", "Paris", "Paris, Texas is a city in Lamar County.", True),
    _doc("toy/q2", "toy/q1/1", "Lyon", "Lyon is a city in France.", False, negative=True),
])
QUESTIONS = pd.DataFrame({"source": "toy", "question_id": ["q1", "q2"],
                          "collection_id": ["toy/q1", "toy/q2"]})


def test_recall_at_k_by_hand():
    # 2 gold passages, one of them in the top 2: 0.5; both in the top 5: 1.0
    assert passage_recall(["g1", "x", "y", "g2", "z"], ["g1", "g2"], [2, 5]) == {2: 0.5, 5: 1.0}
    # none in the top 2, one of two in the top 5
    assert passage_recall(["x", "y", "g2", "z", "w", "g1"], ["g1", "g2"], [2, 5]) == \
        {2: 0.0, 5: 0.5}
    # a gold paragraph listed twice counts once
    assert passage_recall(["g1"], ["g1", "g1"], [2]) == {2: 1.0}
    with pytest.raises(ValueError, match="no gold"):
        passage_recall(["g1"], [], [2])


def test_k_counts_distinct_passages_of_paths():
    # a path brings its passages in order; a passage seen before takes no second slot
    ranked = [("a", "b"), ("a", "g"), ("c",)]
    assert distinct_passages(ranked) == ["a", "b", "g", "c"]
    assert passage_recall(ranked, ["g"], [2, 3]) == {2: 0.0, 3: 1.0}


def test_corpus_deduplicates_on_title_and_text():
    questions, corpus, gold = paragraph_corpus(QUESTIONS, DOCUMENTS)
    # Paris/capital (3 copies) is one passage; Paris/Texas, same title, is another; Lyon one
    assert corpus["text"].tolist() == ["Paris\nParis is the capital of France.",
                                       "Lyon\nLyon is a city in France.",
                                       "Paris\nParis, Texas is a city in Lamar County."]
    assert corpus["passage_id"].is_unique and (corpus["collection_id"] == "toy/pooled").all()
    assert not corpus["is_supporting"].any()
    paris = content_id("toy", "Paris", "Paris is the capital of France.")
    texas = content_id("toy", "Paris", "Paris, Texas is a city in Lamar County.")
    assert paris != texas and paris == content_id("toy", " Paris", "Paris is the capital of "
                                                  "France. ")
    # each question's gold: its own supporting paragraphs, by content id; q1's duplicate copy
    # (not supporting) does not unset its gold flag
    labelled = gold[gold["is_supporting"]]
    assert dict(zip(labelled["collection_id"], labelled["passage_id"])) == \
        {"toy/q1": paris, "toy/q2": texas}
    assert len(gold[gold["collection_id"] == "toy/q1"]) == 2   # Paris once, Lyon
    assert len(gold[gold["collection_id"] == "toy/q2"]) == 2   # the negative left out
    assert (questions["collection_id"] == "toy/pooled").all()
    assert questions["own_collection_id"].tolist() == ["toy/q1", "toy/q2"]


def test_gold_found_in_another_questions_copy():
    # q2 ranks the capital paragraph (q1's gold, held by q2's context too) and then its own
    # gold: content ids make either copy the same passage
    questions, corpus, gold = paragraph_corpus(QUESTIONS, DOCUMENTS)
    paris, texas = (content_id("toy", "Paris", t) for t in
                    ("Paris is the capital of France.", "Paris, Texas is a city in Lamar County."))
    lyon = content_id("toy", "Lyon", "Lyon is a city in France.")
    table = pd.DataFrame({"question_id": ["q1", "q1", "q2", "q2", "q2"],
                          "rank": [1, 2, 1, 2, 3],
                          "passage_id": [lyon, paris, paris, lyon, texas],
                          "path": [lyon, paris, paris, lyon, texas]})
    scores = score_passage_recall(questions, gold, table, (1, 2, 5))
    assert scores.set_index("question_id")[["recall_at_1", "recall_at_2", "recall_at_5"]] \
        .to_dict("index") == {"q1": {"recall_at_1": 0.0, "recall_at_2": 1.0, "recall_at_5": 1.0},
                              "q2": {"recall_at_1": 0.0, "recall_at_2": 0.0, "recall_at_5": 1.0}}


def test_question_without_ranking_scores_zero():
    scores = passage_recall_table(QUESTIONS, {"toy/q1": ["g"], "toy/q2": ["h"]}, {"q1": [("g",)]})
    assert scores["recall_at_2"].tolist() == [1.0, 0.0]


@pytest.mark.parametrize("dataset, path", [
    ("hotpotqa", "data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json"),
    ("musique", "data/01_raw/musique/musique_ans_v1.0_dev_sample181.jsonl"),
    ("2wikimultihopqa", "data/01_raw/2wikimultihopqa/dev_sample103.json")])
def test_bundled_corpus(dataset, path):
    """On 20 bundled dev questions: one passage per distinct title+text, every question has
    gold paragraphs (HotpotQA and 2Wiki: 2 to 4; MuSiQue: its supporting paragraphs), each
    gold passage is in the corpus."""
    from pathlib import Path

    from kgp_kedro.corpus.sources import read_source

    root = Path(__file__).resolve().parents[2]
    questions, documents = (pd.DataFrame(rows)
                            for rows in read_source(dataset, root / path, dataset, 20))
    _, corpus, gold = paragraph_corpus(questions, documents)
    distinct = documents.assign(t=documents["title"].str.strip(),
                                x=documents["text"].str.strip())[["t", "x"]].drop_duplicates()
    assert len(corpus) == len(distinct)
    per_question = gold[gold["is_supporting"]].groupby("collection_id").size()
    assert len(per_question) == len(questions) and per_question.min() >= 1
    assert set(gold["passage_id"]) <= set(corpus["passage_id"])


def test_committed_rows_replay_from_recorded_retrievals():
    """``bench_recall.py --check NAME`` for every committed HippoRAG 2 measurement: its
    recall@2 / @5 and SP-EM@30 scored again from the recorded rankings and gold paragraphs
    alone (no corpus, encoder or model) equal the committed rows."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    names = sorted(p.name.removesuffix(".retrieved.csv.gz")
                   for p in (root / "results" / "retrieval").glob("*.retrieved.csv.gz"))
    if not names:
        pytest.skip("no recorded HippoRAG 2 retrievals committed")
    for name in names:
        done = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_recall.py"),
                               "--check", name], capture_output=True, text=True, cwd=root,
                              check=False)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "rows as recorded" in done.stdout
