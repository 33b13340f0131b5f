"""The reranker trained here (EWEK-QA §3.1.1 retrieve and rerank): pairs labelled by the bundled
supporting facts, never from questions that are read; a seeded short training; the model saved
as a versioned Kedro dataset and loaded back for reranking."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.ewek.params import SplitterParams, TrainingParams
from kgp_kedro.ewek.rerank import cross_scores, load_cross_encoder
from kgp_kedro.ewek.training import train_cross_encoder, training_pairs

TINY = TrainingParams(max_pairs=8, negatives_per_positive=1, batch_size=8, max_length=64,
                      device="cpu")


@pytest.fixture(scope="module")
def pairs(hotpot_passages, hotpot):
    questions, passages = hotpot_passages
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    read = questions["question_id"].tolist()[:1]
    return questions, passages, training_pairs(questions, documents, passages, read,
                                               SplitterParams(), TINY)


def test_pairs_come_from_questions_not_read_labelled_by_supporting_facts(pairs):
    questions, passages, made = pairs
    assert len(made) == 8 and 0 < sum(made.labels) < 8
    assert questions["question"].iloc[0] not in made.questions   # the read question is left out
    support = passages.loc[passages["is_supporting"], "text"].tolist()
    for quote, label in zip(made.quotes, made.labels):
        assert any(s in quote for s in support) == bool(label)


@pytest.fixture(scope="module")
def trained(pairs):
    return train_cross_encoder(pairs[2], TINY)


def test_a_seeded_short_training_is_reproducible_and_survives_a_save(pairs, trained, tmp_path):
    from kedro.io.core import Version

    from kgp_kedro.pipelines.ewek.datasets import CrossEncoderDataset

    made = pairs[2]
    first, seconds = trained
    second, _ = train_cross_encoder(made, TINY)
    texts = made.quotes[:4]
    a = cross_scores(first, made.questions[0], texts)
    assert seconds > 0 and np.allclose(a, cross_scores(second, made.questions[0], texts))
    dataset = CrossEncoderDataset(str(tmp_path / "ce"), version=Version(None, None))
    dataset.save(first)
    path = dataset.load()
    assert path.startswith(str(tmp_path / "ce")) and path.endswith("ce")
    loaded = load_cross_encoder(path, "cpu", 64)
    assert np.allclose(a, cross_scores(loaded, made.questions[0], texts), atol=1e-5)


def test_ewek_answers_one_llm_call_a_question_with_checked_citations(hotpot_passages, hotpot,
                                                                     trained, encoder):
    """The whole question loop against a local OpenAI-compatible server that cites quote 2."""
    from kgp_kedro.ewek.params import EwekParams
    from kgp_kedro.ewek.run import ANSWER_COLUMNS, run_ewek
    from kgp_kedro.ewek.facts_graph import make_extractor
    from kgp_kedro.llm import make_llm
    from tests.llm.fake_openai_server import FakeOpenAIServer

    questions, passages = hotpot_passages
    questions = questions.head(2).assign(source="hotpotqa")
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    params = EwekParams(facts={"cache_dir": None})
    with FakeOpenAIServer(reply=lambda prompt: "Yes [2]") as server:
        client = make_llm({"backend": "openai", "cache": None,
                           "openai": {"model": "fake", "base_url": server.base_url,
                                      "api_key_env": "PATH", "max_retries": 0}})
        quotes, triples, answers = run_ewek(questions, documents, passages, encoder,
                                            trained[0], client, params, None,
                                            make_extractor("dependency"))
    assert len(server.requests) == 2 * 3   # one composer call per question and method
    assert set(answers) == {"ewek", "ewek_web", "ewek_kg"}
    supporting = set(passages.loc[passages["is_supporting"], "passage_id"])
    for name, table in answers.items():
        assert list(table.columns) == ANSWER_COLUMNS and len(table) == 2
        assert (table["llm_calls"] == 1).all() and (table["answer"] == "Yes").all()
        assert table["citations"].map(list).tolist() == [[2], [2]]
    for q, row in zip(questions.itertuples(), answers["ewek_web"].itertuples()):
        mine = quotes[quotes["question_id"] == q.question_id]
        # at most 70 quotes pass the filter; the composer gets the 5 best kept ones
        assert len(mine) <= 70 and sorted(mine.loc[mine["top_rank"] >= 0, "top_rank"]) == \
            list(range(min(5, int(mine["kept"].sum()))))
        second = mine[mine["top_rank"] == 1].iloc[0]   # web-only: [2] is the 2nd quote
        assert row.citation_accuracy == float(bool(supporting & set(second["passage_ids"])))
    # ToG-E: at most N triples per depth, D depths, no LLM call
    per_depth = triples.groupby(["question_id", "depth"]).size()
    assert (per_depth <= 3).all() and triples["depth"].max() <= 3
