"""KGP-MDR style agent (Eq. 1 with encoders): embed question ⊕ path and the candidates, score
by inner product."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.retrievers.agents.base import AGENTS, ScoreRequest, TraversalAgent
from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.models import load_encoder
from kgp_kedro.models.devices import resolve_device
from kgp_kedro.models.encoders import encoder_dtype
from kgp_kedro.retrievers.base import ModelOption, Requirements, Resources, require_resolved


def segmented_inner_products(queries: np.ndarray, vectors: np.ndarray, segment: np.ndarray,
                             device: str = "auto") -> np.ndarray:
    """``queries[segment[i]] · vectors[i]`` for every row ``i`` of ``vectors``: the scores of
    many requests' candidates against each request's own query, as one gathered product on
    ``device`` (CUDA when present; the same float32 results on CPU, up to rounding)."""
    import torch

    if len(vectors) == 0:
        return np.zeros(0)
    target = resolve_device(device)
    q = torch.as_tensor(np.asarray(queries, dtype=np.float32), device=target)
    v = torch.as_tensor(np.asarray(vectors, dtype=np.float32), device=target)
    index = torch.as_tensor(np.asarray(segment, dtype=np.int64), device=target)
    return (q.index_select(0, index) * v).sum(dim=1).cpu().numpy().astype(np.float64)


@AGENTS.register("encoder")
class EncoderAgent(ModelOption, TraversalAgent):
    """The encoder of ``retrieve.embeddings`` by default (off-the-shelf MiniLM), reusing the
    collection's passage embeddings; ``model`` names another one (a trained MDR encoder path),
    which then encodes the candidates too.

    :meth:`score_batch` encodes every request's query (question ⊕ path texts), plus any
    candidate text without a stored vector, in one encoder call, and scores all candidates in
    one gathered product on the encoder's device; :meth:`score` is the batch of one. Each text
    is encoded once per agent (the vectors are kept)."""

    class Params(Params):
        model: str | None = None   # null: the encoder of retrieve.embeddings; trained:<name>
        device: str = "auto"
        batch_size: PosInt = 64
        dtype: str = "auto"   # auto: the retrieve.embeddings encoder's (its own where none)

    needs = Requirements(embeddings=True)

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        require_resolved(params.model)
        self.encoder = (resources.encoder if params.model is None else load_encoder(
            EncoderParams(model=params.model, device=params.device,
                          batch_size=params.batch_size,
                          dtype=encoder_dtype(resources.encoder, params.dtype))))
        self._encoded: dict[str, np.ndarray] = {}   # passages
        self._queries: dict[str, np.ndarray] = {}

    def _encode_missing(self, queries: Sequence[str] = (), passages: Sequence[str] = ()) -> None:
        """Encode the ``queries`` (as questions) and ``passages`` not encoded yet: one encoder
        call in the count (two engine calls when both have missing texts; the
        sentence-transformers encoders give a text the same vector either way)."""
        new_queries = [t for t in dict.fromkeys(queries) if t not in self._queries]
        new_passages = [t for t in dict.fromkeys(passages) if t not in self._encoded]
        if new_queries or new_passages:
            self.calls += 1
        if new_queries:
            self._queries.update(zip(new_queries, self.encoder.encode_queries(new_queries)))
        if new_passages:
            self._encoded.update(zip(new_passages, self.encoder.encode(new_passages)))

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Passage vectors of ``texts``, each text encoded once."""
        self._encode_missing(passages=texts)
        return np.stack([self._encoded[t] for t in texts])

    def _stored(self, collection: Collection) -> bool:
        """Whether the collection's passage embeddings come from this agent's encoder."""
        return collection.vectors is not None and collection.embedding_model == self.encoder.name

    @staticmethod
    def query_text(question: str, path: Sequence[str], collection: Collection) -> str:
        texts = collection.text_of
        return " ".join([question, *(texts[p] for p in path)])

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        return self.score_batch([ScoreRequest(question, tuple(path), tuple(candidates),
                                              collection)])[0]

    def score_batch(self, requests: Sequence[ScoreRequest]) -> list[np.ndarray]:
        if not requests:
            return []
        queries = [self.query_text(r.question, r.path, r.collection) for r in requests]
        unstored = [r.collection.text_of[c] for r in requests if not self._stored(r.collection)
                    for c in r.candidates]
        self._encode_missing(queries, unstored)
        vectors = [r.collection.vectors_of(r.candidates) if self._stored(r.collection)
                   else self._embed([r.collection.text_of[c] for c in r.candidates])
                   for r in requests if r.candidates]
        sizes = np.array([len(r.candidates) for r in requests])
        if not sizes.sum():
            return [np.zeros(0) for _ in requests]
        scores = segmented_inner_products(
            np.stack([self._queries[q] for q in queries]), np.concatenate(vectors),
            np.repeat(np.arange(len(requests)), sizes), self.encoder.device)
        return np.split(scores, np.cumsum(sizes)[:-1])
