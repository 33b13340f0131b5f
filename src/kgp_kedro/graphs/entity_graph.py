"""TAGME KG (paper §3): passages are joined when they share a linked entity."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from scipy import sparse

from kgp_kedro.graphs.edges import Edges, shared_feature_edges
from kgp_kedro.graphs.linking import (Mention, entity_tokens, normalise_entity,
                                      strip_disambiguation)

MAX_ENTITY_TOKENS = 8


def _ngrams(tokens: list[str], longest: int) -> set[str]:
    return {" ".join(tokens[i:i + n]) for n in range(1, longest + 1)
            for i in range(len(tokens) - n + 1)}


def collection_entities(passages: Sequence[str], doc_titles: Sequence[str], mentions: Sequence[Sequence[Mention]],
                        prior_threshold: float) -> list[dict[str, float]]:
    """The entities kept for each passage of one collection, with their scores.

    - Linker mentions (``mentions[i]`` for passage ``i``) plus a gazetteer of the collection's
      document titles (disambiguation suffix dropped) matched as token sequences.
    - A mention with a linker score (TagMe's rho) keeps it. A mention without one (offline
      linker) is scored by its link probability in the collection: the share of passages that
      contain its words in which it was recognised as an entity (TagMe's "link probability",
      estimated on the collection instead of Wikipedia anchors). Gazetteer matches count as
      recognised.
    - Entities scoring above ``prior_threshold`` are kept (the reference code keeps WAT
      annotations whose prior is above 0.8).
    """
    titles = [normalise_entity(strip_disambiguation(t)) for t in doc_titles]
    tokens = [entity_tokens(p) for p in passages]
    grams = [_ngrams(t, MAX_ENTITY_TOKENS) for t in tokens]
    gazetteer = {t for t in titles if t and len(t.split()) <= MAX_ENTITY_TOKENS}

    found: list[dict[str, float | None]] = []
    for i, passage_mentions in enumerate(mentions):
        scores: dict[str, float | None] = {t: None for t in gazetteer & grams[i]}
        for m in passage_mentions:
            if m.score is None:
                scores.setdefault(m.entity, None)
            else:
                scores[m.entity] = max(m.score, scores.get(m.entity) or 0.0)
        found.append(scores)

    recognised = Counter(e for f in found for e, s in f.items() if s is None)
    containing = Counter(e for g in grams for e in recognised if e in g)
    link_probability = {e: n / max(n, containing[e]) for e, n in recognised.items()}
    kept = []
    for f in found:
        scored = {e: (link_probability[e] if s is None else s) for e, s in f.items()}
        kept.append({e: s for e, s in scored.items() if s > prior_threshold})
    return kept


def build_entity_graph(passages: Sequence[str], doc_index: Sequence[int],
                       doc_titles: Sequence[str], mentions: Sequence[Sequence[Mention]],
                       prior_threshold: float = 0.8, same_document: bool = True) -> Edges:
    """TAGME KG construction (paper §3 "TAGME"; reference ``tagme_extract``).

    Two passages are joined when they share an entity kept by :func:`collection_entities`.
    With ``same_document`` every passage also carries its document's title as an entity, as
    the reference code does, so the passages of one document are all joined.
    """
    entities = collection_entities(passages, doc_titles, mentions, prior_threshold)
    names: dict[str, int] = {}
    rows, cols = [], []
    for i, ents in enumerate(entities):
        keys = set(ents)
        if same_document:
            keys.add(f"doc: {doc_titles[doc_index[i]]}")
        for key in sorted(keys):
            rows.append(i)
            cols.append(names.setdefault(key, len(names)))
    incidence = sparse.csr_matrix(([1] * len(rows), (rows, cols)),
                                  shape=(len(passages), len(names)))
    return shared_feature_edges(incidence, list(names), kind="entity")
