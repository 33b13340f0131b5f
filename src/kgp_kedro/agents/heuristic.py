"""LLM-free agents of Table 2: KGP-TF-IDF and KGP-Random."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.agents.base import AGENTS, TraversalAgent
from kgp_kedro.config.base import Int, Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import Resources
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
    """KGP-Random (Table 2): candidates in a seeded random order (one stream per run)."""

    class Params(Params):
        seed: Int = 0

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        self._rng = np.random.default_rng(params.seed)

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        return self._rng.random(len(candidates))
