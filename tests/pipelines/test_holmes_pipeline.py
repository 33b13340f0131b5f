"""The holmes chain (ingest -> passages -> holmes) on an in-memory catalog, its reader an
OpenAI-compatible server on 127.0.0.1: every intermediate table, and answers the score stage
scores beside the other methods."""
from __future__ import annotations

import os

import pytest

from kgp_kedro.evaluation.qa_scores import score_answers
from kgp_kedro.holmes.recorded import record_read_facts
from kgp_kedro.pipelines.in_memory import run_chain
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.pipelines.test_wiring import base_parameters, small_sources


def _run_holmes(tmp, replay: str | None = None):
    """The holmes chain on 3 questions a source (1 read), its reader a fake server that
    answers; with ``replay``, ``holmes.replay`` set to that recording."""
    raw = base_parameters()
    raw["ingest"] = {"sources": small_sources(3), "negatives_per_question": 2, "seed": 42,
                     "qa_questions_per_source": 1, "collection_size": None}
    raw["holmes"]["cache_dir"] = str(tmp / "facts")
    raw["holmes"]["linker"] = {"cache_dir": str(tmp / "entities")}
    raw["holmes"]["replay"] = replay
    with FakeOpenAIServer(reply=lambda prompt: "Relevant facts: -\nReasoning: -\n"
                          "Final Response: Guitarists\nFurther query: none"
                          if prompt.startswith("Question:") else "guitarists") as server:
        raw["llm"] = {"backend": "openai", "cache": None,
                      "openai": {"model": "m", "base_url": server.base_url, "timeout": 5}}
        os.environ.setdefault("OPENAI_API_KEY", "k")
        out = run_chain("holmes", raw)
        requests = list(server.requests)
    return out, requests


@pytest.fixture(scope="module")
def holmes_run(tmp_path_factory):
    return _run_holmes(tmp_path_factory.mktemp("holmes"))


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


def test_a_replay_reads_what_the_reader_read_and_builds_no_kg(holmes_run, tmp_path):
    """``holmes.replay``: the chain again over the first run's recording builds no entity
    graph, hyper triple, schema or pruned fact, and sends the same reader prompts for the
    same answers."""
    out, requests = holmes_run
    readers = ("holmes", "holmes_no_qualifiers")
    recording = tmp_path / "read_facts.csv.gz"
    record_read_facts(recording, [r for m in readers
                                  for r in out[f"holmes_read_{m}"].to_dict("records")])
    again, sent = _run_holmes(tmp_path, str(recording))
    assert not {"holmes_entity_documents", "holmes_hyper_triples", "holmes_schema",
                "holmes_pruned_facts"} & set(again)
    prompts = lambda reqs: sorted(r["messages"][-1]["content"] for r in reqs)   # noqa: E731
    assert prompts(sent) == prompts(requests)
    for method in (*readers, "holmes_base", "holmes_base_docs"):
        columns = ["question_id", "answer", "context_ids", "n_contexts", "llm_calls"]
        assert again[f"answers_{method}"][columns].astype(str).equals(
            out[f"answers_{method}"][columns].astype(str)), method
