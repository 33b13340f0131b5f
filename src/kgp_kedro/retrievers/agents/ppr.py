"""The PPR agent (beyond the KGP paper): a candidate's score is its personalized PageRank mass
from the question over the collection's entity–passage graph, the entity walk's
(:mod:`kgp_kedro.retrievers.entity_walk`, same options and defaults). It ignores the path: the
walk from the question already weighs every passage by how it connects to the question's
entities and seed passages, so KGP's traversal keeps, among a path's neighbours, the ones the
walk ranks highest."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import numpy as np

from kgp_kedro.retrievers.agents.base import AGENTS, ScoreRequest, TraversalAgent
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import Requirements, Resources
from kgp_kedro.retrievers.entity_walk import EntityWalkOptions, PprScorer

HELD_QUESTIONS = 256  # the last questions' masses kept (a batched hop asks each many times)


@AGENTS.register("ppr")
class PprAgent(TraversalAgent):
    Params = EntityWalkOptions

    @classmethod
    def requirements(cls, params: EntityWalkOptions) -> Requirements:
        return params.requirements()

    def __init__(self, params: EntityWalkOptions, resources: Resources) -> None:
        super().__init__(params, resources)
        self.scorer = PprScorer(params, self._encode, resources)
        self._held: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if self.resources.encoder is None:
            raise ValueError("the ppr agent with dense seeds needs an encoder")
        self.calls += 1
        return self.resources.encoder.encode_queries(texts)   # the questions

    def prepare(self, collections: Sequence[Collection]) -> None:
        self.scorer.prepare(collections)

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        return self.score_batch([ScoreRequest(question, tuple(path), tuple(candidates),
                                              collection)])[0]

    def score_batch(self, requests: Sequence[ScoreRequest]) -> list[np.ndarray]:
        """The masses of the requests' questions not held yet are computed together."""
        missing = list({(r.collection.collection_id, r.question): r for r in requests
                        if (r.collection.collection_id, r.question) not in self._held}.values())
        if missing:
            masses = self.scorer.masses([r.question for r in missing],
                                        [r.collection for r in missing])
            for r, mass in zip(missing, masses):
                self._held[(r.collection.collection_id, r.question)] = mass
        out = []
        for r in requests:
            key = (r.collection.collection_id, r.question)
            self._held.move_to_end(key)
            position = r.collection.position_of
            out.append(np.asarray([self._held[key][position[c]] for c in r.candidates],
                                  dtype=np.float64))
        while len(self._held) > max(HELD_QUESTIONS, len(requests)):
            self._held.popitem(last=False)
        return out
