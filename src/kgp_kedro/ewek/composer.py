"""Answer composition (EWEK-QA §3.2, A.4) and citation accuracy (§4.4.2, A.3).

One LLM call per question: the KG triples are the first numbered quote, the web quotes follow;
the model answers citing quotes as ``[n]``. A citation is accurate, by the dataset, when the
cited quote holds a supporting passage of the question (its supporting facts); by the LLM
judge (A.3), when the judge says the cited quote supports the sentence citing it.
"""
from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgp_kedro.reading.contexts import parse_answer

_CITATION = re.compile(r"\[\s*(\d+(?:\s*[,;]\s*\d+)*)\s*\]")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Reference:
    """A numbered quote of the prompt: ``kind`` ``kg`` (the triples) or ``web`` (a quote)."""

    number: int
    kind: str
    text: str
    passage_ids: tuple[str, ...]
    quote_id: str = ""


def references(triples: Sequence, quotes: Sequence) -> list[Reference]:
    """The prompt's numbered quotes: the triples joined as the first (when any), then the
    quotes in rank order (:class:`~kgp_kedro.ewek.quotes.Quote`)."""
    refs: list[Reference] = []
    if triples:
        evidence = tuple(dict.fromkeys(p for t in triples for p in t.evidence))
        refs.append(Reference(1, "kg", ", ".join(t.verbalise() for t in triples), evidence))
    for q in quotes:
        refs.append(Reference(len(refs) + 1, "web", q.text, q.passage_ids, q.quote_id))
    return refs


def parse_citations(reply: str) -> list[int]:
    """The quote numbers cited as ``[n]`` / ``[n, m]`` in the reply, distinct, in order."""
    found = [int(n) for group in _CITATION.findall(reply) for n in re.split(r"[,;]", group)]
    return list(dict.fromkeys(found))


def keep_citations(text: str, numbers: set[int]) -> str:
    """``text`` with only the cited ``numbers`` left in its citation marks (``[2, 9]`` ->
    ``[2]`` when 9 is not kept; a mark left empty is removed)."""
    def kept(match: re.Match) -> str:
        left = [n for n in re.split(r"\s*[,;]\s*", match.group(1)) if int(n) in numbers]
        return f"[{', '.join(left)}]" if left else ""

    text = re.sub(r"[ \t]{2,}", " ", _CITATION.sub(kept, text))
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", text).strip()


def strip_citations(text: str) -> str:
    return " ".join(_CITATION.sub(" ", text).split())


def parse_cited_answer(reply: str) -> str:
    """The answer without its citations: the reply's first line, ``ANSWER:`` prefix, citation
    marks and final full stop removed."""
    answer = strip_citations(parse_answer(_CITATION.sub(" ", reply)))
    return answer.rstrip(" .")


def cited_sentences(reply: str) -> list[tuple[str, list[int]]]:
    """``(sentence without citations, cited numbers)`` of each sentence of the reply that
    cites something."""
    out = []
    for sentence in _SENTENCE_END.split(reply.strip()):
        numbers = parse_citations(sentence)
        if numbers:
            out.append((strip_citations(sentence), numbers))
    return out


def citation_accuracy(cited: Sequence[int], refs: Sequence[Reference],
                      supporting: set[str]) -> float:
    """Share of the cited numbers whose quote holds a supporting passage (a number that names
    no quote is wrong); NaN when nothing is cited."""
    if not cited:
        return math.nan
    by_number = {r.number: r for r in refs}
    good = sum(1 for n in cited if n in by_number and supporting & set(by_number[n].passage_ids))
    return good / len(cited)


