"""The traversal agent interface: score the candidate nodes that could extend a reasoning path.

An agent is one module with a :class:`TraversalAgent` subclass registered under its
``agent.kind`` name; its ``Params`` model holds its options with the paper's defaults.
"""
from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.plumbing.registry import Registry
from kgp_kedro.retrievers.base import Requirements, Resources
from kgp_kedro.search.tfidf import text_similarity

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScoreRequest:
    """One traversal step to score: the candidates that could extend ``path`` (node ids, seed
    first) towards answering ``question`` over ``collection``."""

    question: str
    path: tuple[str, ...]
    candidates: tuple[str, ...]
    collection: Collection


class TraversalAgent(ABC):
    """Scores candidate nodes (Eq. 1). :meth:`score` scores one step; :meth:`score_batch`
    scores the steps of many questions at once (a batched traversal hands it every question's
    frontier of a hop) and loops :meth:`score` unless the agent has a batched computation. A
    candidate's score must not depend on the other requests of a batch, so a batched run
    gives the visits of the one-question loop."""

    name: ClassVar[str]
    Params: ClassVar[type[Params]]
    needs: ClassVar[Requirements] = Requirements()

    def __init__(self, params: Params, resources: Resources) -> None:
        self.params, self.resources = params, resources
        self.calls = 0  # model calls (encoder batches, generations)

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        return cls.needs

    def prepare(self, collections: Sequence[Collection]) -> None:
        """Index-time work on ``collections`` before their questions are timed; none by
        default."""

    @abstractmethod
    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        """A score per candidate node id (higher is better) for extending ``path`` (node ids,
        seed first) towards answering ``question``."""

    def score_batch(self, requests: Sequence[ScoreRequest]) -> list[np.ndarray]:
        """One score array per request, in order (default: :meth:`score` on each)."""
        return [np.asarray(self.score(r.question, r.path, r.candidates, r.collection),
                           dtype=np.float64) for r in requests]


class GenerativeAgent(TraversalAgent):
    """Generates the next evidence from question ⊕ path and ranks the candidates by their
    TF-IDF similarity to it (Eq. 1 with g = identity, φ = TF-IDF cosine).

    A generation that failed (``generate`` gives None: the LLM call failed after its retries)
    or has no word ranks the candidates by their TF-IDF similarity to the question alone, the
    KGP-TF-IDF rule, so the traversal and the run go on; ``failures`` counts such steps and
    the first one is logged as a warning."""

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        self.failures = 0

    @abstractmethod
    def generate(self, question: str, path_texts: Sequence[str]) -> str | None:
        ...

    def generate_many(self, inputs: Sequence[tuple[str, Sequence[str]]]) -> list[str | None]:
        """:meth:`generate` of each ``(question, path texts)`` (an agent may batch them)."""
        return [self.generate(question, texts) for question, texts in inputs]

    def _rank(self, question: str, evidence: str | None, candidates: Sequence[str]) -> np.ndarray:
        if evidence is None or not evidence.strip():
            if not self.failures:
                logger.warning("%s agent: %s; candidates are ranked by TF-IDF similarity to the "
                               "question for this step and every later one like it",
                               self.name, "the generation failed" if evidence is None
                               else "the generation is empty")
            self.failures += 1
            return text_similarity(question, candidates)
        return text_similarity(evidence, candidates)

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        return self.score_batch([ScoreRequest(question, tuple(path), tuple(candidates),
                                              collection)])[0]

    def score_batch(self, requests: Sequence[ScoreRequest]) -> list[np.ndarray]:
        generated = self.generate_many([(r.question, [r.collection.text_of[p] for p in r.path])
                                        for r in requests])
        return [self._rank(r.question, evidence, [r.collection.text_of[c] for c in r.candidates])
                for r, evidence in zip(requests, generated)]


AGENTS: Registry[TraversalAgent] = Registry("traversal agent", "kgp_kedro.retrievers.agents")
