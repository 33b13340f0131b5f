"""One collection's passages, in the shape the KG builders take."""
from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class CollectionView:
    """Passages of one collection: ids, texts, and each passage's document position."""

    collection_id: str
    passage_ids: list[str]
    texts: list[str]
    doc_index: np.ndarray
    doc_titles: list[str]

    @classmethod
    def from_passages(cls, collection_id: str, passages: pd.DataFrame) -> "CollectionView":
        doc_ids = list(dict.fromkeys(passages["doc_id"]))
        position = {d: i for i, d in enumerate(doc_ids)}
        titles = passages.drop_duplicates("doc_id").set_index("doc_id")["title"]
        return cls(collection_id=collection_id, passage_ids=passages["passage_id"].tolist(),
                   texts=passages["text"].tolist(),
                   doc_index=passages["doc_id"].map(position).to_numpy(),
                   doc_titles=[titles[d] for d in doc_ids])


def iter_collections(passages: pd.DataFrame) -> Iterator[CollectionView]:
    """Every collection of a passages table, in order of first appearance."""
    for cid, group in passages.groupby("collection_id", sort=False):
        yield CollectionView.from_passages(str(cid), group)


def sweep_settings(sweep: Mapping[str, Sequence[Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The density settings of a variant: the product of the swept values, each with a label
    such as ``'n_kw=10'``."""
    if not sweep:
        raise ValueError("a KG variant needs a 'sweep' of at least one hyperparameter")
    keys = list(sweep)
    values = [v if isinstance(v, (list, tuple)) else [v] for v in sweep.values()]
    return [(",".join(f"{k}={v}" for k, v in zip(keys, combo)), dict(zip(keys, combo)))
            for combo in itertools.product(*values)]
