"""The builder interface: ``build(collection, setting) -> Graph``.

A builder module defines a :class:`GraphBuilder` subclass registered with
``@BUILDERS.register("<name>")``: its ``Params`` model holds every hyperparameter with the
paper's default (the density ones can be swept: ``kg.variants.<v>.sweep``), ``features``
names the per-passage features it computes once per source (``featurize``, e.g. entity
mentions; saved as ``passage_<features>_<variant>``), and a ``Params.embeddings`` field names
the encoder whose passage embeddings it reads.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import pandas as pd

from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs.model import Graph
from kgp_kedro.plumbing.registry import Registry


class GraphBuilder(ABC):
    name: ClassVar[str]
    Params: ClassVar[type[Params]]
    features: ClassVar[str | None] = None
    # bump when the builder's graphs change for the same inputs: retires its cached graphs
    # (:mod:`kgp_kedro.graphs.cache`; an edit of the builder's module does so as well)
    version: ClassVar[int] = 1

    def __init__(self, params: Params, features: pd.DataFrame | None = None) -> None:
        self.params = params
        self.feature_table = features

    @classmethod
    def embeddings_of(cls, params: Params) -> str | None:
        """The encoder (``embed.encoders`` key) whose passage embeddings this builder reads."""
        return getattr(params, "embeddings", None)

    def featurize(self, passages: pd.DataFrame) -> pd.DataFrame:
        """Per distinct passage features (only for builders with ``features``)."""
        raise NotImplementedError(f"builder {self.name} computes no features")

    def features_of(self, collection: Collection) -> str | None:
        """The features of ``collection``'s passages (their rows of the feature table, in the
        collection's order, as JSON): part of the key of its cached graphs
        (:mod:`kgp_kedro.graphs.cache`); ``None`` for a builder without features."""
        if self.feature_table is None:
            return None
        if not hasattr(self, "_feature_rows"):
            self._feature_rows = self.feature_table.set_index("passage_id")
        return self._feature_rows.reindex(collection.passage_ids).to_json(orient="split")

    @abstractmethod
    def build(self, collection: Collection, setting: Params) -> Graph:
        """The graph of one collection under one density setting (``setting`` is the
        builder's ``Params`` with the swept values filled in)."""


BUILDERS: Registry[GraphBuilder] = Registry("KG builder", "kgp_kedro.graphs.builders")
