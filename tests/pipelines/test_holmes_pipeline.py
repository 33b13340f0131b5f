"""The holmes chain (ingest -> passages -> holmes) on an in-memory catalog, its reader an
OpenAI-compatible server on 127.0.0.1: every intermediate table, and answers the score stage
scores beside the other methods."""
from __future__ import annotations

import os

import pytest

from kgp_kedro.evaluation.qa_scores import score_answers
from kgp_kedro.pipelines.in_memory import run_chain
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.pipelines.test_wiring import base_parameters, small_sources


@pytest.fixture(scope="module")
def holmes_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("holmes")
    raw = base_parameters()
    raw["ingest"] = {"sources": small_sources(3), "negatives_per_question": 2, "seed": 42,
                     "qa_questions_per_source": 1, "collection_size": None}
    raw["holmes"]["cache_dir"] = str(tmp / "facts")
    raw["holmes"]["linker"] = {"cache_dir": str(tmp / "entities")}
    with FakeOpenAIServer(reply=lambda prompt: "Relevant facts: -\nReasoning: -\n"
                          "Final Response: Guitarists\nFurther query: none"
                          if prompt.startswith("Question:") else "guitarists") as server:
        raw["llm"] = {"backend": "openai", "cache": None,
                      "openai": {"model": "m", "base_url": server.base_url, "timeout": 5}}
        os.environ.setdefault("OPENAI_API_KEY", "k")
        out = run_chain("holmes", raw)
        requests = list(server.requests)
    return out, requests


def test_holmes_chain_writes_every_table(holmes_run):
    out, requests = holmes_run
    qa = out["qa_questions"]
    assert len(qa) == 1
    qid = qa["question_id"].iloc[0]
    assert set(out["holmes_entity_documents"]["question_id"]) == {qid}
    assert len(out["holmes_auxiliary_schema"]) > 0   # mined from the 2 questions not read
    triples, pruned = out["holmes_hyper_triples"], out["holmes_pruned_facts"]
    assert len(triples) and set(pruned["question_id"]) <= {qid}
    assert len(pruned) <= 50 and pruned["score"].is_monotonic_decreasing
    # four methods, one reader call each (no complementary retrieval: the reply answers)
    assert len(requests) == 4
    for method in ("holmes", "holmes_no_qualifiers", "holmes_base", "holmes_base_docs"):
        answers = out[f"answers_{method}"]
        assert answers["question_id"].tolist() == [qid]
        assert answers["answer"].str.lower().tolist() == ["guitarists"]
    assert "context: '" not in next(r["messages"][-1]["content"] for r in requests
                                    if "subject: '" in r["messages"][-1]["content"]
                                    and "context: '" not in r["messages"][-1]["content"])


def test_score_stage_scores_holmes(holmes_run):
    out, _ = holmes_run
    scores = score_answers(out["qa_questions"], out["answers_holmes"], out["passages"],
                           "holmes")
    assert scores[["em", "f1"]].iloc[0].tolist() == [1.0, 1.0]   # gold: 'Guitarists'
    assert 0 <= scores["context_sp_recall"].iloc[0] <= 1
