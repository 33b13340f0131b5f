"""LLM-free agents of Table 2: KGP-TF-IDF and KGP-Random."""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from kgp_kedro.agents.base import AGENTS, TraversalAgent
from kgp_kedro.config.base import Int, Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.search.tfidf import text_similarity


@AGENTS.register("tfidf")
class TfidfAgent(TraversalAgent):
    """KGP-TF-IDF (§8.2): candidates ranked by TF-IDF similarity to the question alone."""

    class Params(Params):
        pass

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        texts = collection.text_of
        return text_similarity(question, [texts[c] for c in candidates])


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
