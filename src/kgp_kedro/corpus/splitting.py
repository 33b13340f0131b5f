"""Splitting documents into passages (the KG's nodes, paper §3 and §8.1)."""
from __future__ import annotations

import inspect
import json
import logging
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import pandas as pd

from kgp_kedro.corpus.schema import PASSAGE_COLUMNS
from kgp_kedro.plumbing.progress import track

logger = logging.getLogger(__name__)

_BLANK_LINE = re.compile(r"\n\s*\n")


@lru_cache(maxsize=1)
def _sentencizer():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def split_sentences(texts: Iterable[str], cache_dir: str | None = None) -> list[list[str]]:
    """Rule-based sentence split (spaCy's sentencizer) of each text, blank lines included.
    With ``cache_dir`` each text's split is kept on disk by the sha256 of the text (and spaCy's
    version and this splitter's code, :func:`sentence_cache`): an unchanged text is never split
    again, and spaCy is not even imported when every text is cached."""
    from kgp_kedro.models.cache import cached_map

    texts = list(texts)
    cache = sentence_cache(cache_dir)
    try:
        found, stats = cached_map(texts, _split_sentences, cache)
    finally:
        if cache is not None:
            cache.close()
    if cache is not None:
        logger.info("Sentence splits: %s; cache %s", stats.describe("texts"), cache_dir)
    return found


def _split_sentences(texts: list[str]) -> list[list[str]]:
    paragraphs: list[tuple[int, str]] = []
    for index, text in enumerate(texts):
        paragraphs.extend((index, p.strip()) for p in _BLANK_LINE.split(text) if p.strip())
    result: list[list[str]] = [[] for _ in texts]
    docs = _sentencizer().pipe(p for _, p in paragraphs)
    for (index, _), doc in zip(paragraphs, docs):
        result[index].extend(s.text.strip() for s in doc.sents if s.text.strip())
    return result


# what a split depends on besides spaCy: the splitter's source (read once, at import)
_SPLITTER_CODE = "\n".join([inspect.getsource(_split_sentences),
                            inspect.getsource(inspect.unwrap(_sentencizer)), _BLANK_LINE.pattern])


def _decode_sentences(raw: str) -> list[str]:
    value = json.loads(raw)
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise ValueError("not a list of sentences")
    return value


def sentence_cache(cache_dir: str | None):
    """The on-disk cache of sentence splits in ``cache_dir`` (``None``: off), keyed by spaCy's
    version and the source of the splitter (:func:`_split_sentences`, :func:`_sentencizer`,
    the blank-line pattern)."""
    from kgp_kedro.models.cache import open_cache, package_version

    identity = {"kind": "sentence_splits", "spacy": package_version("spacy"),
                "code": _SPLITTER_CODE}
    return open_cache(cache_dir, lambda memo: identity, encode=json.dumps,
                      decode=_decode_sentences)


def pack_sentences(sentences: list[str], max_chars: int) -> list[list[int]]:
    """Group consecutive sentences into passages of at most ``max_chars`` characters.

    A sentence never gets cut: one longer than the budget becomes a passage of its own.
    Returns the sentence indices of each passage.
    """
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, got {max_chars}")
    groups: list[list[int]] = []
    length = 0
    for i, sentence in enumerate(sentences):
        extra = len(sentence) + (1 if groups and groups[-1] else 0)
        if groups and groups[-1] and length + extra <= max_chars:
            groups[-1].append(i)
            length += extra
        else:
            groups.append([i])
            length = len(sentence)
    return groups


def _dataset_of(documents: pd.DataFrame) -> pd.Series:
    """Each document's dataset: the ``dataset`` column that ingest adds, else its source name
    (the dataset's name unless the source was renamed)."""
    if "dataset" in documents.columns:
        return documents["dataset"].fillna(documents["source"])
    return documents["source"]


def split_passages(documents: pd.DataFrame, sentence_level: bool | None = None,
                   max_chars: int | None = None,
                   paragraph_datasets: Iterable[str] | None = None,
                   cache_dir: str | None = None) -> pd.DataFrame:
    """Split every document of every collection into passages (the KG nodes, the retrieval
    unit). A document's passage unit, in this order:

    - its dataset is in ``paragraph_datasets`` (default: MuSiQue, whose supervision is the
      paragraph): one passage per paragraph, i.e. the whole document for a dataset's paragraph,
      a blank-line block for a user document, the text never re-split; supporting when the
      document is (for HotpotQA / 2Wiki: when one of its sentences is a supporting fact);
    - it comes with the dataset's sentence split (HotpotQA, 2Wiki) and ``sentence_level``:
      one passage per sentence (the granularity of their supporting facts), supporting when its
      sentence is a supporting fact;
    - else (user documents; MuSiQue when not in ``paragraph_datasets``): sentences packed into
      passages of at most ``max_chars`` characters (paper §8.1: passage length 250), never
      across a blank line; the passages inherit the document's label.

    ``passage_id`` is ``<doc_id>#<n>`` with ``n`` the sentence index (sentence level) or the
    passage's rank in the document (``#0`` for a one-paragraph document), so a document shared
    by several collections has the same passage ids in each. Arguments left ``None`` take the
    defaults of :class:`~kgp_kedro.config.sections.PassagesParams`. A document's dataset is
    its ``dataset`` column (added by ingest), else its ``source``. ``cache_dir``: the sentence
    splits' cache (:func:`split_sentences`; ``None``: none).
    """
    from kgp_kedro.config.sections import PassagesParams

    defaults = PassagesParams()
    sentence_level = defaults.sentence_level if sentence_level is None else sentence_level
    max_chars = defaults.max_chars if max_chars is None else max_chars
    paragraphs = set(defaults.paragraph_datasets if paragraph_datasets is None
                     else paragraph_datasets)
    if documents.empty:
        return _passage_table([])
    if "layout" in documents.columns and documents["layout"].notna().any():
        laid = documents["layout"].notna().to_numpy()
        parts = [split_passages(documents[~laid], sentence_level, max_chars, paragraphs,
                                cache_dir),
                 layout_passages(documents[laid], max_chars, cache_dir)]
        rank = {key: i for i, key in enumerate(zip(documents["collection_id"],
                                                   documents["doc_id"]))}
        joined = pd.concat([p for p in parts if len(p)], ignore_index=True)
        key = pd.Series([rank[k] for k in zip(joined["collection_id"], joined["doc_id"])])
        return _passage_table(joined.iloc[key.argsort(kind="stable").to_numpy()])
    whole = _dataset_of(documents).isin(paragraphs).to_numpy()
    has_sentences = documents["sentences"].map(lambda s: s is not None and len(s) > 0).to_numpy()
    # a document shared by several collections is split once: its passages, by doc_id
    first = ~documents["doc_id"].duplicated().to_numpy()
    unique = documents[first]
    packed = ~whole[first] & ~(has_sentences[first] & sentence_level)
    needs_split = unique[packed & ~has_sentences[first]]
    split = (dict(zip(needs_split["doc_id"], split_sentences(needs_split["text"], cache_dir)))
             if len(needs_split) else {})
    template: list[tuple[str, str, str, int, tuple[int, ...] | None]] = []
    for doc, is_whole, given in track(zip(unique.itertuples(index=False), whole[first],
                                          has_sentences[first]),
                                      "split passages", len(unique), log=logger):
        if is_whole:
            texts = [p.strip() for p in _BLANK_LINE.split(doc.text) if p.strip()] or [doc.text]
            template.extend((doc.doc_id, f"{doc.doc_id}#{n}", text, n, None)
                            for n, text in enumerate(texts))
            continue
        sentences = [str(s).strip() for s in doc.sentences] if given else split[doc.doc_id]
        if given and sentence_level:
            groups = [[i] for i, s in enumerate(sentences) if s]
            ids = [g[0] for g in groups]
        else:
            kept = [i for i, s in enumerate(sentences) if s]
            groups = [[kept[i] for i in g]
                      for g in pack_sentences([sentences[i] for i in kept], max_chars)]
            ids = list(range(len(groups)))
        # the sentence indices of a passage, where the dataset labels sentences
        template.extend((doc.doc_id, f"{doc.doc_id}#{pid}", " ".join(sentences[i] for i in g),
                         order, tuple(g) if given else None)
                        for order, (g, pid) in enumerate(zip(groups, ids)))
    shapes = pd.DataFrame(template, columns=["doc_id", "passage_id", "text", "order", "group"])
    rows = (documents[["source", "collection_id", "doc_id", "title", "is_supporting",
                       "sentence_support"]]
            .assign(row=range(len(documents)), whole=whole)
            .merge(shapes, on="doc_id", how="left", sort=False)
            .dropna(subset=["passage_id"])   # a document without text has no passage
            .sort_values(["row", "order"], kind="stable").reset_index(drop=True))
    rows["is_supporting"] = rows["is_supporting"].astype(bool)
    # sentence labels: a passage is supporting when one of its sentences is a supporting fact;
    # a whole paragraph when the document is (or one of its sentences is)
    labelled = rows["sentence_support"].map(lambda f: f is not None and len(f) > 0).to_numpy()
    for i in labelled.nonzero()[0]:
        flags, group = rows.at[i, "sentence_support"], rows.at[i, "group"]
        if rows.at[i, "whole"]:
            rows.at[i, "is_supporting"] = bool(rows.at[i, "is_supporting"]) or any(map(bool, flags))
        elif group is not None:
            rows.at[i, "is_supporting"] = any(bool(flags[j]) for j in group if j < len(flags))
    passages = _passage_table(rows.assign(page=None, kind="passage"))
    logger.info("Split %d documents into %d passages (%d collections)", len(documents),
                len(passages), passages["collection_id"].nunique())
    return passages


def layout_passages(documents: pd.DataFrame, max_chars: int,
                    cache_dir: str | None = None) -> pd.DataFrame:
    """Passages of documents read from files with a layout (``layout`` column: blocks in
    reading order, :mod:`kgp_kedro.corpus.sources.formats`): a paragraph's sentences packed up
    to ``max_chars`` (never across paragraphs, so never across pages), a heading one passage
    (kind ``heading``), a table one passage (kind ``table``, its markdown). Every passage keeps
    its page (null for an unpaged format) and inherits the document's label; ``passage_id`` is
    ``<doc_id>#<n>``, ``n`` its rank in the document."""
    from kgp_kedro.corpus.sources.formats.base import blocks_from_json

    shapes: dict[str, list[tuple[str, int | None, str]]] = {}
    first = documents.drop_duplicates("doc_id")
    blocks_of = {d: blocks_from_json(layout) for d, layout in zip(first["doc_id"], first["layout"])}
    texts = [b.text for blocks in blocks_of.values() for b in blocks if b.kind == "text"]
    sentences = iter(split_sentences(texts, cache_dir))
    for doc_id, blocks in blocks_of.items():
        units = shapes.setdefault(doc_id, [])
        for block in blocks:
            if block.kind != "text":
                units.append((block.text, block.page, "table" if block.kind == "table"
                              else "heading"))
                continue
            said = [x for x in next(sentences) if x]
            units.extend((" ".join(said[i] for i in group), block.page, "passage")
                         for group in pack_sentences(said, max_chars) if said)
    rows = [{"source": d.source, "collection_id": d.collection_id,
             "passage_id": f"{d.doc_id}#{n}", "doc_id": d.doc_id, "title": d.title,
             "text": text, "order": n, "page": page, "kind": kind,
             "is_supporting": bool(d.is_supporting)}
            for d in documents.itertuples(index=False)
            for n, (text, page, kind) in enumerate(shapes[d.doc_id])]
    return _passage_table(rows)


def _passage_table(rows: Any) -> pd.DataFrame:
    frame = (rows[PASSAGE_COLUMNS].reset_index(drop=True) if isinstance(rows, pd.DataFrame)
             else pd.DataFrame(rows, columns=PASSAGE_COLUMNS))
    frame["page"] = frame["page"].astype("Int64")
    frame["order"] = frame["order"].astype("int64")
    return frame
