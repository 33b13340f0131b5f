"""The retriever interface: a question and its collection in, ranked passages out, each with
the path that reached it.

A method is one module with a :class:`Retriever` subclass registered under the ``method``
name of its ``retrieve.methods`` block: its ``Params`` model holds the method's options with
the paper's defaults, and :meth:`Retriever.requirements` says what the pipeline must hand it
(a KG, passage embeddings, the LLM).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from kgp_kedro.config.base import Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.plumbing.registry import Registry


@dataclass(frozen=True)
class Visit:
    """A retrieved passage: the path that reached it (seed first), its hop and its score."""

    passage_id: str
    path: tuple[str, ...]
    hop: int
    score: float


@dataclass(frozen=True)
class Requirements:
    """What a method needs besides the questions and passages."""

    graph: bool = False        # the KG of ``retrieve.graph``
    embeddings: bool = False   # passage embeddings and their encoder (``retrieve.embeddings``)
    llm: bool = False          # the LLM of parameters_llm.yml (runs on the QA questions only)
    trained: tuple[str, ...] = ()   # train.encoders / generators named as model: trained:<name>
    # runs on the QA questions only (those the reader answers), not every ingested one, though
    # it calls no LLM: a generator agent asked to (its generations cost seconds a question)
    qa_questions_only: bool = False

    def __or__(self, other: "Requirements") -> "Requirements":
        return Requirements(self.graph or other.graph, self.embeddings or other.embeddings,
                            self.llm or other.llm,
                            tuple(dict.fromkeys(self.trained + other.trained)),
                            self.qa_questions_only or other.qa_questions_only)

    @property
    def on_qa_questions(self) -> bool:
        """Whether the method retrieves for the QA questions only: it calls the LLM, or is
        asked to."""
        return self.llm or self.qa_questions_only


TRAINED = "trained:"   # a model option naming the train stage's model: trained:<name>


def trained_name(model: str | None) -> str | None:
    """``<name>`` of a ``trained:<name>`` model option, else None."""
    return model[len(TRAINED):] if model and model.startswith(TRAINED) else None


def require_resolved(model: str | None) -> None:
    """:class:`SkippedMethod` for a ``trained:<name>`` option that reached a method unresolved
    (outside the retrieve stage, which hands it the train stage's model folder)."""
    if trained_name(model):
        raise SkippedMethod(f"model {model!r}: the trained model is handed over by the retrieve "
                            "stage (kedro run --pipelines=retrieve trains it first)")


def needs_trained(model: str | None) -> Requirements:
    """The requirement of a ``model`` option: the trained encoder it names, if any."""
    name = trained_name(model)
    return Requirements(trained=(name,)) if name else Requirements()


class ModelOption:
    """A retriever or agent whose ``Params.model`` may name a trained model
    (``trained:<name>``): it requires what its class ``needs`` and that model."""

    needs: Requirements

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        return cls.needs | needs_trained(params.model)


@dataclass(frozen=True)
class Resources:
    """What the pipeline hands a method: the context budget and the models it requires."""

    budget: int
    encoder: Any = None   # kgp_kedro.models.encoders.SentenceEncoder
    llm: Any = None       # kgp_kedro.llm.LLMClient


class SkippedMethod(RuntimeError):
    """A configured method that cannot run here (e.g. no local checkpoint configured)."""


class Retriever(ABC):
    name: ClassVar[str]
    Params: ClassVar[type[Params]]
    needs: ClassVar[Requirements] = Requirements()

    def __init__(self, params: Params, resources: Resources) -> None:
        self.params, self.resources = params, resources
        self.budget = resources.budget
        self.calls = 0  # model calls (encoder batches, LLM requests)
        # the model calls made on behalf of each question of the last retrieve_batch
        self.batch_calls: list[int] = []
        self._encoded: dict[str, np.ndarray] = {}   # passage vectors of a method's own model

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        return cls.needs

    @classmethod
    def check(cls, params: Params, key: str) -> None:
        """Validate what ``Params`` cannot alone (a nested registered block), naming ``key``."""

    def model_calls(self) -> int:
        return self.calls

    def prepare(self, collections: Sequence[Collection]) -> None:
        """Index-time work on ``collections`` before their questions are timed (a method's
        per-collection graph); none by default."""

    def retrieve(self, question: str, collection: Collection) -> list[Visit]:
        """Up to ``budget`` passages for ``question`` (none from an empty collection)."""
        if not collection.passage_ids:
            return []
        return self.search(question, collection)

    @abstractmethod
    def search(self, question: str, collection: Collection) -> list[Visit]:
        ...

    # batched retrieval: run_retriever hands batch_size questions at once ---------------------
    @property
    def batch_size(self) -> int:
        """Questions :func:`~kgp_kedro.retrievers.run.run_retriever` hands
        :meth:`retrieve_batch` at once; 1 (the default): one question at a time."""
        return 1

    def retrieve_batch(self, questions: Sequence[str],
                       collections: Sequence[Collection]) -> list[list[Visit]]:
        """:meth:`retrieve` of each question over its collection, in order. A retriever that
        computes many questions together (KGP: one scoring call per hop for all of them)
        overrides it and :attr:`batch_size`, and gives the same visits as :meth:`retrieve`.

        It also sets :attr:`batch_calls`: the model calls made on behalf of each question. A
        call that served several questions at once (one encoder call over a batch's
        questions) counts once for each of them, not as a fraction of a call; here, one
        question at a time, each question's own calls."""
        visits, self.batch_calls = [], []
        for q, c in zip(questions, collections):
            before = self.model_calls()
            visits.append(self.retrieve(q, c))
            self.batch_calls.append(self.model_calls() - before)
        return visits

    # shared by the dense methods ------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Passages' vectors (one encoder call)."""
        return self._encoder().encode(texts)

    def encode_questions(self, texts: Sequence[str]) -> np.ndarray:
        """Questions' (queries') vectors (one encoder call): E5's ``query: `` side; the
        sentence-transformers encoders encode them as passages."""
        return self._encoder().encode_queries(texts)

    def _encoder(self):
        if self.resources.encoder is None:
            raise ValueError(f"method {self.name} needs an encoder")
        self.calls += 1
        return self.resources.encoder

    def dense_search(self, collection: Collection, queries: np.ndarray,
                     top: int) -> tuple[np.ndarray, np.ndarray]:
        """Through the collection's stored vectors when this method's encoder made them; else
        (a ``model`` of the method's own, e.g. a trained one) exact search over the passages
        encoded by it, each distinct text once per retriever."""
        encoder = self.resources.encoder
        if collection.vectors is not None and collection.embedding_model == encoder.name:
            return collection.vector_search(queries, top, encoder.device)
        from kgp_kedro.search.dense import exact_search

        vectors = collection.memo(("vectors", encoder.name), lambda: self._passage_vectors(
            collection.texts))
        return exact_search(queries, vectors, top, encoder.device)

    def _passage_vectors(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._encoded]
        if missing:
            self._encoded.update(zip(missing, self.encode(missing)))
        return np.stack([self._encoded[t] for t in texts])

    def nearest(self, question: str, collection: Collection,
                top: int) -> tuple[np.ndarray, np.ndarray]:
        """DPR: positions and scores of the ``top`` passages nearest the question."""
        scores, positions = self.dense_search(collection, self.encode_questions([question]),
                                              top)
        keep = positions[0] >= 0  # faiss pads with -1 when it finds fewer
        return positions[0][keep], scores[0][keep]


def ranked_visits(collection: Collection, positions: np.ndarray,
                  scores: np.ndarray) -> list[Visit]:
    """One-hop visits of the passages at ``positions``, in order."""
    ids = collection.passage_ids
    return [Visit(ids[i], (ids[i],), 0, float(s)) for i, s in zip(positions, scores)]


RETRIEVERS: Registry[Retriever] = Registry("retrieval method", "kgp_kedro.retrievers")
