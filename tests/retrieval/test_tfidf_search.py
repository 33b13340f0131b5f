"""TF-IDF seeding on a real question."""
from __future__ import annotations

import json

import numpy as np

from kgp_kedro.retrieval import tfidf_search
from tests.conftest import HOTPOT


def test_tfidf_search_ranks_the_matching_passage_first():
    passages = ["The cat sat on the mat.", "Dogs chase cats.", "Basalt is a volcanic rock."]
    order, scores = tfidf_search("which rock is volcanic", passages, top_k=2)
    assert order[0] == 2 and scores[0] > scores[1] >= 0
    assert len(order) == 2


def test_seeds_of_real_questions_mostly_hit_a_supporting_sentence():
    hits = []
    for record in json.loads(HOTPOT.read_text())[:40]:
        passages, labels = [], []
        facts = {(t, i) for t, i in record["supporting_facts"]}
        for title, sentences in record["context"]:
            for i, s in enumerate(sentences):
                passages.append(s.strip())
                labels.append((title, i) in facts)
        order, _ = tfidf_search(record["question"], passages, top_k=5)
        hits.append(bool(np.asarray(labels)[order].any()))
    # a random choice of 5 of ~40 sentences with ~2.4 supporting would hit about 27% of the time
    assert np.mean(hits) > 0.6
