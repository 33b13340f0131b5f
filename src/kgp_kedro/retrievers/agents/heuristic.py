"""LLM-free agents of Table 2: KGP-TF-IDF and KGP-Random."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from kgp_kedro.retrievers.agents.base import AGENTS, ScoreRequest, TraversalAgent
from kgp_kedro.config.base import Int, Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.search.tfidf import TextCounts, similarities


@AGENTS.register("tfidf")
class TfidfAgent(TraversalAgent):
    """KGP-TF-IDF (§8.2): candidates ranked by TF-IDF similarity to the question alone (IDF
    over the question and the step's candidates, ``text_similarity``). :meth:`score_batch`
    tokenises every distinct text of its steps once (:mod:`kgp_kedro.search.tfidf`); a
    step's scores are the same bits alone or in a batch."""

    class Params(Params):
        pass

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        return self.score_batch([ScoreRequest(question, tuple(path), tuple(candidates),
                                              collection)])[0]

    def score_batch(self, requests: Sequence[ScoreRequest]) -> list[np.ndarray]:
        texts = [[r.collection.text_of[c] for c in r.candidates] for r in requests]
        counts = TextCounts([t for r, ts in zip(requests, texts) for t in (r.question, *ts)])
        return [similarities(counts, r.question, ts) for r, ts in zip(requests, texts)]


@AGENTS.register("random")
class RandomAgent(TraversalAgent):
    """KGP-Random (Table 2): each candidate gets a uniform score in [0, 1) drawn from a hash of
    (``seed``, question, path, candidate), so a candidate's score does not depend on which
    steps were scored before or beside it: the one-question loop and the batched run visit
    the same passages, and a re-run gives the same visits."""

    class Params(Params):
        seed: Int = 0

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        prefix = "\x1f".join([str(self.params.seed), question, *path, ""]).encode()
        return np.array([int.from_bytes(hashlib.blake2b(prefix + c.encode(),
                                                        digest_size=8).digest(), "big") / 2 ** 64
                         for c in candidates], dtype=np.float64)
