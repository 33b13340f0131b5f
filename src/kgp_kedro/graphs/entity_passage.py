"""The entity–passage graph of one collection (HippoRAG 2 / LinearRAG style, no LLM to index):
passage nodes and the entity nodes the offline linker finds in them, plus semantic links
between passages, walked by personalized PageRank (:mod:`kgp_kedro.search.ppr`).

- **Entities of a passage**: those the TAGME KG keeps for it
  (:func:`~kgp_kedro.graphs.builders.entity.collection_entities`: the linker's mentions plus
  the collection's document titles as a gazetteer, kept above the link-probability
  ``prior_threshold``), and, with ``same_document``, its own document's title, so that a
  document's passages and the passages that mention the document meet at one node; with
  ``table_subjects``, a table passage's row subjects (the first cell of each row of a markdown
  table of 3+ columns, the PDF, DOCX and HTML readers' form), kept whatever their link
  probability: a table names what its rows are about, though a linker may not know a film
  called "On Top of the World".
- **Edges**: passage–entity, weight 1 (HippoRAG 2's context edges); passage–passage, each
  passage to its ``links`` nearest passages by cosine of the stored embeddings, kept when the
  cosine is at least ``link_min_similarity``, weighted by the cosine, made symmetric (the
  larger weight of the two directions).
- **A question's entities**: the graph's entities that occur in the question as a token
  sequence (the gazetteer the builder applies to document titles, over every kept entity).
- **Reset vector** (HippoRAG 2, with no facts: a matched entity's weight is 1): a question
  entity gets ``1 / |passages it is in|`` (HippoRAG's node specificity); every passage gets
  ``passage_weight ×`` its seed score min-max normalised over the collection (uniform when all
  seed scores are equal).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from kgp_kedro.corpus.collection import Collection
from kgp_kedro.corpus.sources.formats.base import table_rows
from kgp_kedro.graphs.builders.entity import _ngrams, collection_entities
from kgp_kedro.graphs.linking import (Mention, entity_tokens, normalise_entity,
                                      strip_disambiguation)
from kgp_kedro.search.ppr import transition_matrix


@dataclass(frozen=True)
class EntityPassageGraph:
    """Nodes 0..n-1 are the collection's passages (table order), n..n+m-1 its entities."""

    entities: list[str]
    entity_index: dict[str, int]
    passages_per_entity: np.ndarray     # |P_e| of each entity
    transition: sparse.csr_matrix       # Wᵀ over the n + m nodes
    dangling: np.ndarray
    n_passages: int
    n_links: int                        # passage–passage edges kept (undirected)
    max_entity_tokens: int

    def question_entities(self, question: str) -> list[int]:
        """Entity positions (0..m-1) of the graph's entities found in ``question``."""
        grams = _ngrams(entity_tokens(question), self.max_entity_tokens)
        return sorted(self.entity_index[g] for g in grams if g in self.entity_index)

    def reset(self, question: str, seed_scores: np.ndarray, passage_weight: float) -> np.ndarray:
        """The question's reset vector over the graph's nodes (see the module)."""
        r = np.zeros(self.n_passages + len(self.entities))
        found = self.question_entities(question)
        r[[self.n_passages + e for e in found]] = 1.0 / self.passages_per_entity[found]
        s = np.asarray(seed_scores, dtype=np.float64)
        if len(s):
            span = s.max() - s.min()
            r[:self.n_passages] = passage_weight * ((s - s.min()) / span if span > 0
                                                    else np.ones_like(s))
        return r


def row_subjects(text: str) -> set[str]:
    """The entity keys of a markdown table's row subjects (the first cell of each row below
    the header, a table of 3+ columns); empty for any other text."""
    rows = table_rows(text)
    if rows is None or len(rows[0]) < 3:
        return set()
    return {key for row in rows[1:] if (key := normalise_entity(row[0]))}


def passage_entities(collection: Collection, mentions: Sequence[Sequence[Mention]],
                     prior_threshold: float, max_entity_tokens: int,
                     same_document: bool, table_subjects: bool = False) -> list[set[str]]:
    """The entity keys of each passage (see the module)."""
    kept = collection_entities(collection.texts, collection.doc_titles, mentions,
                               prior_threshold, max_entity_tokens)
    found = [set(k) for k in kept]
    if table_subjects:
        for keys, text in zip(found, collection.texts):
            keys |= {k for k in row_subjects(text) if len(k.split()) <= max_entity_tokens}
    if same_document:
        titles = [normalise_entity(strip_disambiguation(t or "")) for t in collection.doc_titles]
        for keys, doc in zip(found, collection.doc_index):
            if titles[doc]:
                keys.add(titles[doc])
    return found


def passage_links(collection: Collection, k: int, min_similarity: float) -> sparse.csr_matrix:
    """Symmetric passage–passage cosine links (n × n) of the stored embeddings: each passage's
    ``k`` nearest other passages with cosine >= ``min_similarity`` (none without embeddings
    or with ``k`` 0). Through the collection's faiss index when it has one (pooled)."""
    n = len(collection)
    if not k or collection.vectors is None or n < 2:
        return sparse.csr_matrix((n, n))
    scores, positions = collection.vector_search(collection.vectors, min(k, n - 1) + 1, "cpu")
    rows, cols, weights = [], [], []
    for i, (row, row_scores) in enumerate(zip(positions, scores)):
        kept = [(j, s) for j, s in zip(row, row_scores) if j != i and j >= 0][:k]
        for j, s in kept:
            if s >= min_similarity:
                rows.append(i)
                cols.append(j)
                weights.append(float(s))
    links = sparse.csr_matrix((weights, (rows, cols)), shape=(n, n))
    return links.maximum(links.T).tocsr()


def build_entity_passage_graph(collection: Collection, mentions: Sequence[Sequence[Mention]],
                               prior_threshold: float, max_entity_tokens: int,
                               same_document: bool, links: int,
                               link_min_similarity: float,
                               table_subjects: bool = False) -> EntityPassageGraph:
    """The entity–passage graph of ``collection`` from its passages' linker ``mentions``."""
    keys = passage_entities(collection, mentions, prior_threshold, max_entity_tokens,
                            same_document, table_subjects)
    index: dict[str, int] = {}
    rows, cols = [], []
    for i, found in enumerate(keys):
        for key in sorted(found):
            rows.append(i)
            cols.append(index.setdefault(key, len(index)))
    n, m = len(collection), len(index)
    incidence = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, m))
    semantic = passage_links(collection, links, link_min_similarity)
    adjacency = sparse.bmat([[semantic, incidence], [incidence.T, sparse.csr_matrix((m, m))]],
                            format="csr") if m else semantic
    transition, dangling = transition_matrix(adjacency)
    return EntityPassageGraph(list(index), index,
                              np.asarray(incidence.sum(axis=0)).ravel(), transition, dangling,
                              n, semantic.nnz // 2, max_entity_tokens)


def mentions_of(collection: Collection, found: Mapping[str, Sequence[Mention]]
                ) -> list[Sequence[Mention]]:
    """Each passage's mentions from a ``text -> mentions`` lookup."""
    return [found[t] for t in collection.texts]
