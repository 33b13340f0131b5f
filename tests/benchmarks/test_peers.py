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
