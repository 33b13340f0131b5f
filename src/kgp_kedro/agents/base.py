"""The traversal agent interface: score the candidate nodes that could extend a reasoning path.

An agent is one module with a :class:`TraversalAgent` subclass registered under its
``agent.kind`` name; its ``Params`` model holds its options with the paper's defaults.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.registry import Registry
from kgp_kedro.retrievers.base import Requirements, Resources
from kgp_kedro.search.tfidf import text_similarity

NEXT_EVIDENCE_INSTRUCTION = ("What evidence do we need to answer the question given the current "
                             "evidence?")


class TraversalAgent(ABC):
    name: ClassVar[str]
    Params: ClassVar[type[Params]]
    needs: ClassVar[Requirements] = Requirements()

    def __init__(self, params: Params, resources: Resources) -> None:
        self.params, self.resources = params, resources
        self.calls = 0  # model calls (encoder batches, generations)

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        return cls.needs

    @abstractmethod
    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        """A score per candidate node id (higher is better) for extending ``path`` (node ids,
        seed first) towards answering ``question``."""


class GenerativeAgent(TraversalAgent):
    """Generates the next evidence from question ⊕ path and ranks the candidates by their
    TF-IDF similarity to it (Eq. 1 with g = identity, φ = TF-IDF cosine)."""

    @abstractmethod
    def generate(self, question: str, path_texts: Sequence[str]) -> str:
        ...

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        texts = collection.text_of
        return text_similarity(self.generate(question, [texts[p] for p in path]),
                               [texts[c] for c in candidates])


AGENTS: Registry[TraversalAgent] = Registry("traversal agent", "kgp_kedro.agents")
