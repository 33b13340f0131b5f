"""KGP-MDR style agent (Eq. 1 with encoders): embed question ⊕ path and the candidates, score
by inner product."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.agents.base import AGENTS, TraversalAgent
from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.models import load_encoder
from kgp_kedro.retrievers.base import Requirements, Resources
from kgp_kedro.search.dense import inner_product_scores


@AGENTS.register("encoder")
class EncoderAgent(TraversalAgent):
    """The encoder of ``retrieve.embeddings`` by default (off-the-shelf MiniLM), reusing the
    collection's passage embeddings; ``model`` names another one (a trained MDR encoder path),
    which then encodes the candidates too."""

    class Params(Params):
        model: str | None = None   # null: the encoder of retrieve.embeddings
        device: str = "auto"
        batch_size: PosInt = 64
        dtype: str = "auto"

    needs = Requirements(embeddings=True)

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        self.encoder = (resources.encoder if params.model is None else load_encoder(
            EncoderParams(model=params.model, device=params.device,
                          batch_size=params.batch_size, dtype=params.dtype)))
        self._encoded: dict[str, np.ndarray] = {}

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``, each text encoded once (one encoder call for the missing)."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._encoded]
        if missing:
            self.calls += 1
            self._encoded.update(zip(missing, self.encoder.encode(missing)))
        return np.stack([self._encoded[t] for t in texts])

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
              collection: Collection) -> np.ndarray:
        texts = collection.text_of
        query = self._embed([" ".join([question, *(texts[p] for p in path)])])
        if collection.vectors is not None and collection.embedding_model == self.encoder.name:
            vectors = collection.vectors_of(candidates)  # the same encoder: no re-encoding
        else:
            vectors = self._embed([texts[c] for c in candidates])
        return inner_product_scores(query, vectors, self.encoder.device)[0]
