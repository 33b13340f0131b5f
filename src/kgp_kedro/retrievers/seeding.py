"""Seed scores of every passage of a question's collection, from TF-IDF (the KGP paper's seeding
function, §4) or from the dense encoder (HippoRAG 2's passage scores), for many questions at
once."""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from kgp_kedro.corpus.collection import Collection
from kgp_kedro.search.dense import inner_product_scores

SeedSource = Literal["tfidf", "dense"]


def dense_scores(questions: Sequence[str], collections: Sequence[Collection],
                 encode: Callable[[Sequence[str]], np.ndarray],
                 device: str = "cpu") -> list[np.ndarray]:
    """The inner product of each question's embedding with every stored passage embedding of
    its collection; ``encode`` is called once, on all the questions."""
    if not questions:
        return []
    vectors = encode(list(questions))
    groups: dict[int, list[int]] = defaultdict(list)
    for i, collection in enumerate(collections):
        if collection.vectors is None:
            raise ValueError(f"collection {collection.collection_id} has no passage embeddings")
        groups[id(collection)].append(i)
    out: list[np.ndarray] = [np.zeros(0)] * len(questions)
    for members in groups.values():
        scores = inner_product_scores(vectors[members], collections[members[0]].vectors, device)
        for i, row in zip(members, scores):
            out[i] = row
    return out


def seed_scores(questions: Sequence[str], collections: Sequence[Collection],
                seeds_from: SeedSource, encode: Callable[[Sequence[str]], np.ndarray],
                device: str = "cpu") -> list[np.ndarray]:
    """Every passage's seed score for each question over its collection: ``tfidf`` (cosine,
    IDF over the collection: ``collection.tfidf()``) or ``dense`` (:func:`dense_scores`)."""
    if seeds_from == "dense":
        return dense_scores(questions, collections, encode, device)
    if seeds_from == "tfidf":
        return [c.tfidf().scores(q) for q, c in zip(questions, collections)]
    raise ValueError(f"seeds_from {seeds_from!r}: expected tfidf or dense")
