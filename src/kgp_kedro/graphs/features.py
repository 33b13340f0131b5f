"""Edges between passages that share a feature (a keyword, an entity)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.graphs.model import Edges


def shared_feature_edges(incidence, feature_names: Sequence[str], relation: str,
                         max_evidence: int) -> Edges:
    """Undirected edges between passages that share at least one feature.

    ``incidence`` is a binary passages × features matrix (keywords, entities). The weight of
    an edge is the number of shared features; its evidence lists up to ``max_evidence`` of them.
    """
    from scipy import sparse

    incidence = sparse.csr_matrix(incidence, dtype=np.int32)
    incidence.data[:] = 1
    shared = sparse.triu(incidence @ incidence.T, k=1).tocoo()
    rows = [set(incidence.indices[incidence.indptr[i]:incidence.indptr[i + 1]])
            for i in range(incidence.shape[0])]
    evidence = ["; ".join(feature_names[f] for f in sorted(rows[i] & rows[j])[:max_evidence])
                for i, j in zip(shared.row, shared.col)]
    order = np.lexsort((shared.col, shared.row))
    return Edges.uniform(shared.row[order], shared.col[order], shared.data[order],
                         [evidence[i] for i in order], relation, directed=False)
