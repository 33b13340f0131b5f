"""Retrieval methods of the paper's comparison (§8.2), behind one call: question in, ranked
passages (with the path that reached each) out."""
from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kgp_kedro.models import SentenceEncoder
from kgp_kedro.retrieval.agents import (ChatAgent, EncoderAgent, RandomAgent, Seq2SeqAgent,
                                        TfidfAgent)
from kgp_kedro.retrieval.ann import VectorIndex
from kgp_kedro.retrieval.dense import exact_search, mdr_search
from kgp_kedro.retrieval.ircot import ircot_search
from kgp_kedro.retrieval.lexical import Bm25Index, fuzzy_search
from kgp_kedro.retrieval.tfidf import TfidfIndex
from kgp_kedro.retrieval.traversal import Visit, traverse

logger = logging.getLogger(__name__)

METHODS = ("none", "golden", "tfidf", "bm25", "knn", "dpr", "mdr", "ircot", "kgp")


def needs_llm(spec: Mapping[str, Any]) -> bool:
    """Whether the method of ``spec`` calls the LLM (IRCoT, the ``chat`` agent)."""
    return (spec.get("method") == "ircot"
            or (spec.get("agent") or {}).get("kind") == "chat")


@dataclass
class Collection:
    """What a method may use about one question's collection."""

    passage_ids: list[str]
    texts: list[str]
    supporting: list[str] = field(default_factory=list)
    vectors: np.ndarray | None = None                      # passage embeddings, row-aligned
    neighbors: Callable[[str], Sequence[str]] | None = None  # the KG, for KGP
    ann: Mapping[str, Any] | None = None  # VectorIndex options: search vectors with faiss
    _indexes: dict = field(default_factory=dict, repr=False)

    def tfidf(self) -> TfidfIndex:
        """The collection's TF-IDF index, built on first use."""
        if "tfidf" not in self._indexes:
            self._indexes["tfidf"] = TfidfIndex(self.texts)
        return self._indexes["tfidf"]

    def text_of(self) -> dict[str, str]:
        """``passage id -> text``, built on first use."""
        if "text_of" not in self._indexes:
            self._indexes["text_of"] = dict(zip(self.passage_ids, self.texts))
        return self._indexes["text_of"]

    def bm25(self, k1: float = 1.5, b: float = 0.75) -> Bm25Index:
        """The collection's BM25 index, built on first use."""
        if ("bm25", k1, b) not in self._indexes:
            self._indexes[("bm25", k1, b)] = Bm25Index(self.texts, k1, b)
        return self._indexes[("bm25", k1, b)]

    def vector_search(self, queries: np.ndarray, top_k: int,
                      device: str = "auto") -> tuple[np.ndarray, np.ndarray]:
        """``(scores, positions)`` per query: through a faiss index when ``ann`` is set (built
        on first use), else exact."""
        index = self.vector_index()
        if index is None:
            return exact_search(queries, self.vectors, top_k, device)
        return index.search(queries, top_k)

    def vector_index(self) -> VectorIndex | None:
        """The faiss index of the passage vectors when ``ann`` is set (built on first use)."""
        if self.ann is None or self.vectors is None:
            return None
        if "ann" not in self._indexes:
            self._indexes["ann"] = VectorIndex(self.vectors, **self.ann)
        return self._indexes["ann"]


class SkippedMethod(RuntimeError):
    """A configured method that cannot run here (e.g. no local model configured)."""


def _visits(c: Collection, order: np.ndarray, scores: np.ndarray) -> list[Visit]:
    return [Visit(c.passage_ids[i], (c.passage_ids[i],), 0, float(s))
            for i, s in zip(order, scores)]


class MethodRunner:
    """Runs one configured method. ``spec`` is its YAML block (``method`` and options);
    ``budget`` is the context size (paper: 30 passages for every method); ``llm`` is the LLM
    client of IRCoT and the ``chat`` agent."""

    def __init__(self, spec: Mapping[str, Any], budget: int = 30,
                 encoder: SentenceEncoder | None = None, llm=None) -> None:
        self.method = spec.get("method")
        if self.method not in METHODS:
            raise ValueError(f"unknown retrieval method {self.method!r}; expected one of {METHODS}")
        if needs_llm(spec) and llm is None:
            raise SkippedMethod("it needs an LLM client (llm in parameters_llm.yml)")
        self.spec, self.budget, self.encoder, self.llm = dict(spec), budget, encoder, llm
        self.agent = self._make_agent() if self.method == "kgp" else None
        self.calls = 0

    def _make_agent(self):
        agent = dict(self.spec.get("agent", {"kind": "tfidf"}))
        kind = agent.pop("kind", "tfidf")
        if kind == "tfidf":
            return TfidfAgent()
        if kind == "random":
            return RandomAgent(**agent)
        if kind == "encoder":
            return EncoderAgent(self.encoder) if not agent else EncoderAgent(**agent)
        if kind == "seq2seq":
            if not agent.get("model_path"):
                raise SkippedMethod("the seq2seq agent needs agent.model_path: a local "
                                    "Hugging Face seq2seq checkpoint (e.g. a fine-tuned T5)")
            return Seq2SeqAgent(**agent)
        if kind == "chat":
            return ChatAgent(self.llm, **agent)
        raise ValueError(f"unknown traversal agent {kind!r}")

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if self.encoder is None:
            raise ValueError(f"method {self.method} needs an encoder")
        self.calls += 1
        return self.encoder.encode(texts)

    def _dense(self, c: Collection, question: str, top_k: int) -> tuple[np.ndarray, np.ndarray]:
        """DPR: positions and scores of the ``top_k`` passages nearest the question."""
        if self.encoder is None or c.vectors is None:
            raise ValueError(f"method {self.method} needs an encoder and passage embeddings")
        scores, positions = c.vector_search(self._encode([question]), top_k, self.encoder.device)
        keep = positions[0] >= 0  # faiss pads with -1 when it finds fewer
        return positions[0][keep], scores[0][keep]

    def model_calls(self) -> int:
        """Encoder batches and generations so far (LLM calls count even when cached)."""
        return self.calls + (self.agent.calls if self.agent is not None else 0)

    def retrieve(self, question: str, c: Collection) -> list[Visit]:
        k, spec = self.budget, self.spec
        if self.method == "none" or not c.passage_ids:
            return []
        if self.method == "golden":
            return [Visit(p, (p,), 0, 1.0) for p in c.supporting[:k]]
        if self.method == "tfidf":
            return _visits(c, *c.tfidf().search(question, k))
        if self.method == "bm25":
            return _visits(c, *c.bm25(spec.get("k1", 1.5), spec.get("b", 0.75)).search(question, k))
        if self.method == "dpr":
            return _visits(c, *self._dense(c, question, k))
        if self.method == "knn":
            dense = _visits(c, *self._dense(c, question, spec.get("dense_k", 15)))
            fuzzy = _visits(c, *fuzzy_search(question, c.texts, k))
            seen = {v.passage_id for v in dense}
            extra = [v for v in fuzzy if v.passage_id not in seen]
            return (dense + extra)[:spec.get("dense_k", 15) + spec.get("fuzzy_k", 15)][:k]
        if self.method == "ircot":
            requests = self.llm.requests
            positions, scores, steps = ircot_search(question, c.texts, self.llm, k,
                                                    spec.get("step_k", 5), spec.get("max_steps"),
                                                    index=c.bm25())
            self.calls += self.llm.requests - requests
            step_of = {p: s for s, step in enumerate(steps) for p in step.retrieved}
            return [Visit(c.passage_ids[p], (c.passage_ids[p],), step_of[p], float(s))
                    for p, s in zip(positions, scores)]
        if self.method == "mdr":
            positions, scores, pairs = mdr_search(
                question, c.texts, self._encode,
                lambda queries, top: c.vector_search(queries, top, self.encoder.device),
                spec.get("first_hop", 15), spec.get("second_hop", 3), k)
            via = {}
            for pair in pairs:
                via.setdefault(pair.first, (pair.first,))
                via.setdefault(pair.second, (pair.first, pair.second))
            return [Visit(c.passage_ids[p], tuple(c.passage_ids[i] for i in via[p]),
                          len(via[p]) - 1, float(s)) for p, s in zip(positions, scores)]
        # kgp: TF-IDF seeds, then Algorithm 1 over the KG
        if c.neighbors is None:
            raise ValueError("KGP needs the collection's KG")
        remembered = ("remembered by", id(self.agent))
        if (c.vectors is not None and self.encoder is not None and remembered not in c._indexes
                and getattr(self.agent, "encoder", None) is self.encoder):
            self.agent.remember(c.texts, c.vectors)  # same encoder: reuse passage embeddings
            c._indexes[remembered] = True            # once per collection, not per question
        order, scores = c.tfidf().search(question, spec.get("seeds", 10))
        return traverse(question, [c.passage_ids[i] for i in order], scores, c.neighbors,
                        c.text_of(), self.agent, spec.get("branching_factor", 3), k,
                        spec.get("max_hops", 2))
