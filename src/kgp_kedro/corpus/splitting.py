"""Splitting documents into passages (the KG's nodes, paper §3 and §8.1)."""
from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import pandas as pd
from tqdm.auto import tqdm

from kgp_kedro.corpus.schema import PASSAGE_COLUMNS

logger = logging.getLogger(__name__)

_BLANK_LINE = re.compile(r"\n\s*\n")


@lru_cache(maxsize=1)
def _sentencizer():
    import spacy

    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def split_sentences(texts: Iterable[str]) -> list[list[str]]:
    """Rule-based sentence split (spaCy's sentencizer) of each text, blank lines included."""
    paragraphs: list[tuple[int, str]] = []
    texts = list(texts)
    for index, text in enumerate(texts):
        paragraphs.extend((index, p.strip()) for p in _BLANK_LINE.split(text) if p.strip())
    result: list[list[str]] = [[] for _ in texts]
    docs = _sentencizer().pipe(p for _, p in paragraphs)
    for (index, _), doc in zip(paragraphs, docs):
        result[index].extend(s.text.strip() for s in doc.sents if s.text.strip())
    return result


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


def split_passages(documents: pd.DataFrame, sentence_level: bool = True,
                   max_chars: int = 250) -> pd.DataFrame:
    """Split every document of every collection into passages.

    - Documents that come with the dataset's sentence split (HotpotQA, 2Wiki) give one
      passage per sentence when ``sentence_level`` (the granularity of their supporting facts);
      a passage is supporting when its sentence is a supporting fact.
    - Other documents (MuSiQue paragraphs, user documents) are sentence-split and packed into
      passages of at most ``max_chars`` characters (paper §8.1: passage length 250), never
      across a blank line; their passages inherit the document's (paragraph-level) label.

    ``passage_id`` is ``<doc_id>#<n>`` with ``n`` the sentence index (sentence level) or the
    passage's rank in the document, so a document shared by several collections has the same
    passage ids in each.
    """
    unique = documents.drop_duplicates("doc_id")
    needs_split = unique[unique["sentences"].isna()]
    split = dict(zip(needs_split["doc_id"], split_sentences(needs_split["text"])))

    rows: list[dict[str, Any]] = []
    for doc in tqdm(documents.itertuples(index=False), total=len(documents),
                    desc="split passages", leave=False, disable=None):
        given = doc.sentences is not None and len(doc.sentences) > 0
        if given and sentence_level:
            sentences = [s.strip() for s in doc.sentences]
            groups = [[i] for i, s in enumerate(sentences) if s]
            ids = [g[0] for g in groups]
        else:
            sentences = [s.strip() for s in doc.sentences] if given else split[doc.doc_id]
            kept = [i for i, s in enumerate(sentences) if s]
            groups = [[kept[i] for i in g] for g in pack_sentences([sentences[i] for i in kept],
                                                                   max_chars)]
            ids = list(range(len(groups)))
        support = doc.sentence_support
        for order, (group, pid) in enumerate(zip(groups, ids)):
            if support is not None and len(support):
                supporting = any(bool(support[i]) for i in group)
            else:
                supporting = bool(doc.is_supporting)
            rows.append({
                "source": doc.source,
                "collection_id": doc.collection_id,
                "passage_id": f"{doc.doc_id}#{pid}",
                "doc_id": doc.doc_id,
                "title": doc.title,
                "text": " ".join(sentences[i] for i in group),
                "order": order,
                "page": None,
                "kind": "passage",
                "is_supporting": supporting,
            })
    passages = pd.DataFrame(rows, columns=PASSAGE_COLUMNS)
    passages["page"] = passages["page"].astype("Int64")
    logger.info("Split %d documents into %d passages (%d collections)", len(documents),
                len(passages), passages["collection_id"].nunique())
    return passages
