"""The paper's simple baselines (§8.2): None, Golden, TF-IDF, BM25, KNN and DPR."""
from __future__ import annotations

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import (RETRIEVERS, ModelOption, Requirements, Resources, Retriever,
                                       Visit, ranked_visits, require_resolved)
from kgp_kedro.search.lexical import fuzzy_search


class NoOptions(Params):
    pass


def with_model(resources: Resources, model: str | None) -> Resources:
    """``resources`` with the encoder of a method's own ``model`` option (a local path; a
    ``trained:<name>`` is resolved to its path before), unchanged when null. It runs in the
    dtype of the ``retrieve.embeddings`` encoder (``embed.encoders.<name>.dtype``), so a run
    forced to fp32 is fp32 in every encoder."""
    if model is None:
        return resources
    require_resolved(model)
    from dataclasses import replace

    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.models import load_encoder
    from kgp_kedro.models.encoders import encoder_dtype

    return replace(resources, encoder=load_encoder(EncoderParams(model=model, dtype=encoder_dtype(
        resources.encoder))))


@RETRIEVERS.register("none")
class NoContext(Retriever):
    """None: the reader answers from the question alone (Listing 2)."""

    Params = NoOptions

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return []


@RETRIEVERS.register("golden")
class Golden(Retriever):
    """Golden: the supporting passages (the reader's upper bound)."""

    Params = NoOptions

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return [Visit(p, (p,), 0, 1.0) for p in collection.supporting[:self.budget]]


@RETRIEVERS.register("tfidf")
class Tfidf(Retriever):
    """TF-IDF: the passages most similar to the question (IDF over the collection)."""

    Params = NoOptions

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return ranked_visits(collection, *collection.tfidf().search(question, self.budget))


@RETRIEVERS.register("bm25")
class Bm25(Retriever):
    """BM25 (bm25s, Lucene variant)."""

    class Params(Params):
        k1: float = 1.5
        b: float = 0.75

    def search(self, question: str, collection: Collection) -> list[Visit]:
        index = collection.bm25(self.params.k1, self.params.b)
        return ranked_visits(collection, *index.search(question, self.budget))


@RETRIEVERS.register("dpr")
class Dpr(ModelOption, Retriever):
    """DPR: a bi-encoder's nearest passages (off-the-shelf MiniLM unless configured)."""

    class Params(Params):
        model: str | None = None   # null: retrieve.embeddings; trained:<name>; or a path

    needs = Requirements(embeddings=True)

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, with_model(resources, params.model))

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return ranked_visits(collection, *self.nearest(question, collection, self.budget))


@RETRIEVERS.register("knn")
class Knn(Retriever):
    """KNN: the sentence transformer's top ``dense_k`` plus the top ``fuzzy_k`` by Levenshtein
    similarity (rapidfuzz) not already taken."""

    class Params(Params):
        dense_k: PosInt = 15
        fuzzy_k: PosInt = 15

    needs = Requirements(embeddings=True)

    def search(self, question: str, collection: Collection) -> list[Visit]:
        p = self.params
        dense = ranked_visits(collection, *self.nearest(question, collection, p.dense_k))
        fuzzy = ranked_visits(collection, *fuzzy_search(question, collection.texts, self.budget))
        seen = {v.passage_id for v in dense}
        extra = [v for v in fuzzy if v.passage_id not in seen]
        return (dense + extra)[:p.dense_k + p.fuzzy_k][:self.budget]
