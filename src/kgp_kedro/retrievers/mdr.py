"""MDR (Xiong et al. 2020) as the KGP paper runs it (§8.2): a two-hop beam search over dense
passage vectors."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import (RETRIEVERS, ModelOption, Requirements, Resources, Retriever,
                                       Visit)
from kgp_kedro.retrievers.baselines import with_model
from kgp_kedro.search.ranking import ranked as rank_order

@dataclass(frozen=True)
class HopPair:
    first: int
    second: int
    score: float   # product of the two hops' scores


Search = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]


def mdr_search(question: str, passages: Sequence[str],
               encode_queries: Callable[[Sequence[str]], np.ndarray],
               search: Search, first_hop: int, second_hop: int,
               top_k: int) -> tuple[np.ndarray, np.ndarray, list[HopPair]]:
    """MDR two-hop beam search (paper §8.2; Xiong et al. 2020).

    Hop 1: the ``first_hop`` passages nearest the question. Hop 2: for each, the question
    concatenated with that passage is encoded and its ``second_hop`` nearest *other* passages
    taken (both hops' queries encoded by ``encode_queries``). The ``first_hop × second_hop`` pairs are ranked by the product of their two scores
    (:func:`~kgp_kedro.search.ranking.ranked`: ties, at its digits, to the earlier pair);
    the passages of the best pairs, first hop before second, make the ``top_k`` context.
    ``search(queries, k)`` gives ``(scores, positions)`` per query: exact
    (:func:`exact_search`) or a faiss index. Returns positions, the score of the pair that
    brought each passage, and the ranked pairs.
    """
    if len(passages) == 0:
        return np.array([], dtype=np.int64), np.array([]), []
    first_scores, first = (a[0] for a in search(encode_queries([question]), first_hop))
    expanded = encode_queries([f"{question} {passages[i]}" for i in first])
    second_scores, second = search(expanded, second_hop + 1)
    pairs = []
    for row, (p1, s1) in enumerate(zip(first, first_scores)):
        hops = [(p2, s2) for p2, s2 in zip(second[row], second_scores[row])
                if p2 != p1 and p2 >= 0][:second_hop]
        pairs.extend(HopPair(int(p1), int(p2), float(s1 * s2)) for p2, s2 in hops)
    pairs = [pairs[i] for i in rank_order(np.array([p.score for p in pairs]))]
    ranked: dict[int, float] = {}
    for pair in pairs:
        for p in (pair.first, pair.second):
            ranked.setdefault(p, pair.score)
    positions = np.array(list(ranked)[:top_k], dtype=np.int64)
    return positions, np.array([ranked[p] for p in positions]), pairs


@RETRIEVERS.register("mdr")
class Mdr(ModelOption, Retriever):
    """MDR: ``first_hop × second_hop`` passage pairs ranked by the product of their scores."""

    class Params(Params):
        first_hop: PosInt = 15
        second_hop: PosInt = 3
        model: str | None = None   # null: retrieve.embeddings; trained:<name>; or a path

    needs = Requirements(embeddings=True)

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, with_model(resources, params.model))

    def search(self, question: str, collection: Collection) -> list[Visit]:
        positions, scores, pairs = mdr_search(
            question, collection.texts, self.encode_questions,
            lambda queries, top: self.dense_search(collection, queries, top),
            self.params.first_hop, self.params.second_hop, self.budget)
        via: dict[int, tuple[int, ...]] = {}
        for pair in pairs:
            via.setdefault(pair.first, (pair.first,))
            via.setdefault(pair.second, (pair.first, pair.second))
        ids = collection.passage_ids
        return [Visit(ids[p], tuple(ids[i] for i in via[p]), len(via[p]) - 1, float(s))
                for p, s in zip(positions, scores)]
