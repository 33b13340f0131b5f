"""``retrieve.replay`` with ``llm.store_only``: a fresh copy of the project, its local call
cache empty, reads the session run's recorded retrievals instead of retrieving, so its reader
builds the session run's prompts, every one answered by a reply store made of the session's
replies (none sent, none read from a cache), with no KG, embedding or training run; with a
store that lacks the replies the run stops with ``MissingReplyError``."""
from __future__ import annotations

import json
import sqlite3

import pytest

from kgp_kedro.llm import MissingReplyError
from kgp_kedro.llm.cache import CallCache
from kgp_kedro.llm.store import ReplyStore
from kgp_kedro.retrievers.recorded import record, recorded_rows
from tests.pipelines.test_qa_pipeline import _latest
from tests.projects import LOCAL_PARAMETERS, make_project, run_pipeline

pytestmark = pytest.mark.slow

CACHE = "data/07_model_output/llm_calls.sqlite"
METHODS = ["none", "golden", "bm25", "dpr", "mdr_trained", "kgp_tfidf", "kgp_mdr", "kgp",
           "kgp_chat", "ircot"]


def test_a_replay_rebuilds_the_recorded_prompts_without_retrieving(project_run, tmp_path):
    questions = _latest(project_run, "data/02_intermediate/qa_questions.parquet")
    recording = tmp_path / "retrieved.csv.gz"
    record(recording, [recorded_rows(_latest(project_run,
                                             f"data/07_model_output/retrieved_{m}.parquet"),
                                     questions["question_id"]) for m in METHODS])
    parameters = {**LOCAL_PARAMETERS, "retrieve": {"methods": {
        m: LOCAL_PARAMETERS["retrieve"]["methods"][m] for m in METHODS}},
        # the stages a read run does not run name only methods the copy configures
        "pooled": {"methods": ["bm25", "dpr"]},
        "retrieval_quality": {"collection_size": {"methods": ["bm25", "dpr"]}}}
    (tmp_path / "copy").mkdir()
    copy = make_project(tmp_path / "copy", parameters)
    store = ReplyStore(copy / "results" / "llm")      # the session's replies, committed
    with sqlite3.connect(project_run / CACHE) as calls:
        for key, reply in calls.execute("SELECT key, record FROM calls"):
            store.put(key, json.loads(reply))
    stored = len(store)
    replay = {"retrieve": {"replay": str(recording)},
              "llm": {"store": "results/llm", "store_only": True}}
    run_pipeline(copy, "read", runtime_params=replay)
    assert len(CallCache(copy / CACHE)) == 0                    # no cache was read or filled
    assert len(ReplyStore(copy / "results" / "llm")) == stored  # nor the store written
    for m in METHODS:
        ours = _latest(project_run, f"data/07_model_output/answers_{m}.parquet")
        theirs = _latest(copy, f"data/07_model_output/answers_{m}.parquet")
        assert theirs["cached"].all(), m                       # no call reached the model
        for column in ("question_id", "answer", "n_contexts", "n_cut", "prompt_tokens",
                       "llm_calls"):
            assert theirs[column].tolist() == ours[column].tolist(), (m, column)
        assert theirs["context_ids"].map(list).tolist() == ours["context_ids"].map(list).tolist()
    data = copy / "data"
    assert (data / "02_intermediate").exists()                   # the run wrote its data here
    assert not list(data.glob("06_models/trained_*"))            # nothing was trained,
    assert not list(data.glob("05_model_input/kg_*"))            # no KG built,
    assert not list(data.glob("04_feature/passage_embeddings_*"))   # nothing embedded
    (copy / "results" / "empty").mkdir()
    with pytest.raises(MissingReplyError, match="results/empty has no reply to call"):
        run_pipeline(copy, "read", runtime_params={
            **replay, "llm": {"store": "results/empty", "store_only": True}})
