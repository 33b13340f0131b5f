"""``ask.hop_quotes``: a sub-question of a chain (``ask.hops: chain``) asked of the question's
quotes **and** of the folder's passages that BM25 ranks best for the sub-question itself, its
earlier answers put in ("Where was Perttu Leppä born?" once the first hop named the director).
The question's own retrieval rarely reaches a bridge entity's page, since the question does
not name it; the sub-question does, and a name is what a lexical match finds. New quotes are
numbered after the question's, so a citation of an earlier hop keeps its meaning."""
from __future__ import annotations

from collections.abc import Sequence

from kgp_kedro.retrievers.baselines import Bm25
from kgp_kedro.search.lexical import Bm25Index


class HopIndex:
    """BM25 (the ``bm25`` method's default ``k1`` and ``b``) over passages ``ids`` as the
    prompt quotes them (``texts``), built once and searched for each sub-question."""

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        defaults = Bm25.Params()
        self.ids = list(ids)
        self.index = Bm25Index(list(texts), defaults.k1, defaults.b)

    def best(self, question: str, k: int, exclude: set[str]) -> list[str]:
        """The ``k`` passages ranked best for ``question`` with a score above 0, less
        ``exclude`` (those quoted already)."""
        positions, scores = self.index.search(question, k + len(exclude))
        return [self.ids[i] for i, score in zip(positions, scores)
                if score > 0 and self.ids[i] not in exclude][:k]
