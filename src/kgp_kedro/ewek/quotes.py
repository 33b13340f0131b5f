"""Adaptive quotes (EWEK-QA §3.1.1, A.7): the Paragraph Splitter and the Evidence Extractor turn
each document of a question's collection (its offline "web page") into candidate quotes.

A document is read as paragraphs (line breaks) of sentences, each sentence mapped to the
passage of the ``passages`` table that holds it, so every quote names the passages it covers
(its citation target and what the supporting-fact checks use). Tokens are whitespace tokens.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kgp_kedro.corpus.splitting import split_sentences
from kgp_kedro.search.ranking import rank_key


@dataclass(frozen=True)
class Sentence:
    text: str
    passage_id: str | None


@dataclass(frozen=True)
class Page:
    """One document as paragraphs of sentences."""

    doc_id: str
    title: str
    paragraphs: tuple[tuple[Sentence, ...], ...]

    def sentences(self) -> list[tuple[int, Sentence]]:
        """``(paragraph index, sentence)`` in reading order."""
        return [(p, s) for p, para in enumerate(self.paragraphs) for s in para]


@dataclass(frozen=True)
class Quote:
    """A candidate quote: ``origin`` ``ps`` (Paragraph Splitter) or ``ee`` (Evidence
    Extractor); ``passage_ids`` the passages its sentences come from, in order."""

    quote_id: str
    doc_id: str
    title: str
    text: str
    origin: str
    passage_ids: tuple[str, ...]


def n_tokens(text: str) -> int:
    return len(text.split())


def _squash(text: str) -> str:
    return " ".join(text.split())


def _passage_of(sentence: str, passages: Sequence[tuple[str, str]], start: int) -> int | None:
    """Index of the passage holding ``sentence`` (searched from ``start`` on, then from the
    beginning), else the one sharing most of its words; None for a document without passages."""
    if not passages:
        return None
    wanted = _squash(sentence)
    order = list(range(start, len(passages))) + list(range(start))
    for i in order:
        if wanted in _squash(passages[i][1]):
            return i
    words = set(wanted.lower().split())
    overlap = [len(words & set(text.lower().split())) for _, text in passages]
    return int(np.argmax(overlap))


def make_page(doc_id: str, title: str, text: str, sentences: Sequence[str] | None,
              passages: Sequence[tuple[str, str]]) -> Page:
    """A document as paragraphs of sentences. A dataset paragraph with its own sentence split
    (HotpotQA, 2Wiki) is one paragraph of those sentences; other text is split at line breaks
    into paragraphs and each into sentences (spaCy's sentencizer). ``passages``:
    ``(passage_id, text)`` of the document's passages in order."""
    if sentences is not None and len(sentences):
        lines = [[str(s).strip() for s in sentences if str(s).strip()]]
    else:
        blocks = [line.strip() for line in re.split(r"\n+", text) if line.strip()]
        lines = split_sentences(blocks) if blocks else []
    paragraphs, cursor = [], 0
    for line in lines:
        para = []
        for sentence in line:
            found = _passage_of(sentence, passages, cursor)
            if found is not None:
                cursor = found
            para.append(Sentence(sentence, None if found is None else passages[found][0]))
        if para:
            paragraphs.append(tuple(para))
    return Page(doc_id, title, tuple(paragraphs))


def _quote(page: Page, sentences: Sequence[Sentence], origin: str, n: int) -> Quote:
    ids = tuple(dict.fromkeys(s.passage_id for s in sentences if s.passage_id is not None))
    return Quote(f"{page.doc_id}:{origin}{n}", page.doc_id, page.title,
                 " ".join(s.text for s in sentences), origin, ids)


def split_paragraph(token_counts: Sequence[int], min_tokens: int,
                    max_tokens: int) -> list[list[int]]:
    """The Paragraph Splitter's rule on one paragraph, given its sentences' token counts: a
    paragraph under ``min_tokens`` tokens is dropped; one over ``max_tokens`` is broken into
    runs of consecutive sentences of at most ``max_tokens`` tokens each (a sentence longer
    than that alone stays whole: sentence boundaries are kept); otherwise it is one quote.
    Returns the sentence indices of each quote."""
    total = sum(token_counts)
    if total < min_tokens:
        return []
    if total <= max_tokens:
        return [list(range(len(token_counts)))]
    groups: list[list[int]] = []
    length = 0
    for i, count in enumerate(token_counts):
        if groups and length + count <= max_tokens:
            groups[-1].append(i)
            length += count
        else:
            groups.append([i])
            length = count
    return groups


def paragraph_splitter(page: Page, min_tokens: int, max_tokens: int) -> list[Quote]:
    """Quotes of one page by the Paragraph Splitter (§3.1.1, A.7.1)."""
    quotes: list[Quote] = []
    for para in page.paragraphs:
        for group in split_paragraph([n_tokens(s.text) for s in para], min_tokens, max_tokens):
            quotes.append(_quote(page, [para[i] for i in group], "ps", len(quotes)))
    return quotes


def evidence_span(scores: Sequence[float], token_counts: Sequence[int], max_tokens: int,
                  margin: float) -> tuple[int, int]:
    """``[start, end)`` of the evidence span in one paragraph: its best-scoring sentence, grown
    one neighbour at a time (the better-scoring side first) while the neighbour scores at
    least ``best - margin`` and the span stays within ``max_tokens`` tokens. Scores compare at
    :data:`~kgp_kedro.search.ranking.RANK_DIGITS` digits (ties to the earlier sentence)."""
    scores = rank_key(scores).tolist()
    best = int(np.argmax(scores))
    start, end, length = best, best + 1, token_counts[best]
    floor = scores[best] - margin
    while True:
        sides = [(scores[i], i) for i in (start - 1, end) if 0 <= i < len(scores)
                 and scores[i] >= floor and length + token_counts[i] <= max_tokens]
        if not sides:
            return start, end
        _, i = max(sides, key=lambda side: (side[0], -side[1]))
        length += token_counts[i]
        start, end = min(start, i), max(end, i + 1)


def evidence_extractor(page: Page, sentence_scores: Sequence[float], max_tokens: int,
                       margin: float) -> Quote | None:
    """The page's evidence span for the question (§3.1.1 EE): in the paragraph of the
    sentence most similar to the question, :func:`evidence_span`. ``sentence_scores`` follow
    :meth:`Page.sentences`, compared at :data:`~kgp_kedro.search.ranking.RANK_DIGITS` digits.
    None for a page without sentences."""
    located = page.sentences()
    if not located:
        return None
    best = int(np.argmax(rank_key(sentence_scores)))
    paragraph = located[best][0]
    positions = [i for i, (p, _) in enumerate(located) if p == paragraph]
    para = page.paragraphs[paragraph]
    start, end = evidence_span([float(sentence_scores[i]) for i in positions],
                               [n_tokens(s.text) for s in para], max_tokens, margin)
    return _quote(page, para[start:end], "ee", 0)


def collection_pages(documents: pd.DataFrame, passages: pd.DataFrame) -> list[Page]:
    """The pages of one collection: its rows of ``documents`` with the passages of
    ``passages`` (one collection's rows) that split them."""
    by_doc: dict[str, list[tuple[str, str]]] = {}
    for row in passages.sort_values("order", kind="stable").itertuples(index=False):
        by_doc.setdefault(row.doc_id, []).append((row.passage_id, row.text))
    return [make_page(d.doc_id, d.title, d.text, d.sentences, by_doc.get(d.doc_id, []))
            for d in documents.itertuples(index=False)]
