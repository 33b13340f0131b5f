"""Reasoning paths: a train question's supporting passages grouped by hop, in the order a
multi-hop reader meets them (MDR's "sequential order that progressively approaches the
answer", KGP paper §A: Sequential Data Collection).

Hop order per dataset, from the native supervision the readers keep in ``meta``:

- MuSiQue: ``question_decomposition`` in order, each step's ``paragraph_support_idx`` naming
  its paragraph (document id ``<collection_id>/<idx>``, as the reader names it);
- 2WikiMultihopQA: the supporting titles ordered by the ``evidences`` chain: a title comes at
  the first evidence triple whose subject names it (one never a subject: just after the first
  triple naming it as the object) (titles and entities compared
  without a trailing parenthetical, case-insensitive); titles no triple names keep their
  supporting-fact order, last;
- HotpotQA: bridge questions put first the paragraph that mentions the other's title (the
  bridge entity); when both or neither do, the one whose title the question mentions; else
  the supporting-fact order. Comparison questions give both orders (two paths).

A hop holds the supporting passages of its document (HotpotQA/2Wiki: the supporting-fact
sentences; MuSiQue: the paragraph's passages). A question whose hops cannot all be found
gives no path (counted in the log line)."""
from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pandas as pd

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ReasoningPath:
    """One question's supporting passages, hop by hop (passage ids, passage order within a
    hop)."""

    question_id: str
    collection_id: str
    question: str
    hops: tuple[tuple[str, ...], ...]


def entity_key(name: str) -> str:
    """A title or evidence entity as compared: lower case, a trailing ``(...)`` dropped."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", name).strip().casefold()


def _mentions(text: str, title: str) -> bool:
    key = entity_key(title)
    return bool(key) and key in text.casefold()


def _fact_titles(meta: dict) -> list[str]:
    """Supporting-fact titles, first appearance order."""
    return list(dict.fromkeys(fact[0] for fact in meta.get("supporting_facts", [])))


def musique_order(meta: dict, collection_id: str) -> list[list[str]]:
    """Document ids of each hop: the decomposition's ``paragraph_support_idx`` in order."""
    steps = meta.get("question_decomposition") or []
    return [[f"{collection_id}/{step['paragraph_support_idx']}"] for step in steps
            if step.get("paragraph_support_idx") is not None]


def twowiki_order(meta: dict) -> list[str]:
    """Supporting titles ordered by the evidence chain (see the module docstring)."""
    titles = _fact_titles(meta)
    triples = [[entity_key(str(part)) for part in t] for t in meta.get("evidences") or []
               if len(t) == 3]
    first: dict[str, float] = {}
    for title in titles:
        key = entity_key(title)
        as_subject = [i for i, (subject, _, _) in enumerate(triples) if subject == key]
        as_object = [i + 0.5 for i, (_, _, obj) in enumerate(triples) if obj == key]
        if as_subject or as_object:   # after the triple naming it as an object
            first[title] = (as_subject or as_object)[0]
    at = {title: position for position, title in enumerate(titles)}
    return sorted(titles, key=lambda t: (t not in first, first.get(t, 0), at[t]))


def hotpotqa_orders(meta: dict, qtype: str | None, question: str,
                    texts: dict[str, str]) -> list[list[str]]:
    """Title orders of a HotpotQA question: both for a comparison, the bridge order else.
    ``texts`` maps each supporting title to its document's text."""
    titles = _fact_titles(meta)
    if len(titles) != 2:
        return [titles] if titles else []
    a, b = titles
    if qtype == "comparison":
        return [[a, b], [b, a]]
    a_then_b = _mentions(texts.get(a, ""), b)   # a mentions b's title: a is the first hop
    b_then_a = _mentions(texts.get(b, ""), a)
    if a_then_b != b_then_a:
        return [[a, b] if a_then_b else [b, a]]
    in_question = [_mentions(question, a), _mentions(question, b)]
    if in_question[0] != in_question[1]:
        return [[a, b] if in_question[0] else [b, a]]
    return [[a, b]]


def _hops_by(passages: pd.DataFrame, column: str, order: Sequence[str]
             ) -> tuple[tuple[str, ...], ...] | None:
    """Supporting passage ids of each document named in ``order`` (by ``column``: ``doc_id``
    or ``title``); None when one has no supporting passage here."""
    supporting = passages[passages["is_supporting"].astype(bool)]
    hops = []
    for name in order:
        ids = tuple(supporting.loc[supporting[column] == name, "passage_id"])
        if not ids:
            return None
        hops.append(ids)
    return tuple(hops)


def question_paths(question, passages: pd.DataFrame) -> list[ReasoningPath]:
    """The reasoning paths of one question row (``questions`` table) over its collection's
    passages; empty when its supervision does not give every hop."""
    meta = json.loads(question.meta or "{}")
    if question.dataset == "musique":
        orders = [("doc_id", [d[0] for d in musique_order(meta, question.collection_id)])]
    elif question.dataset == "2wikimultihopqa":
        orders = [("title", twowiki_order(meta))]
    elif question.dataset == "hotpotqa":
        first = passages.drop_duplicates("doc_id")
        docs = passages.groupby("doc_id", sort=False)["text"].agg(" ".join)
        texts = {t: docs[d] for t, d in zip(first["title"], first["doc_id"])}
        orders = [("title", o) for o in hotpotqa_orders(meta, question.qtype, question.question,
                                                         texts)]
    else:
        return []
    paths = []
    for column, order in orders:
        hops = _hops_by(passages, column, order) if len(order) >= 2 else None
        if hops:
            paths.append(ReasoningPath(question.question_id, question.collection_id,
                                       question.question, hops))
    return paths


def reasoning_paths(questions: pd.DataFrame, passages: pd.DataFrame
                    ) -> Iterator[tuple[ReasoningPath, pd.DataFrame]]:
    """Each path of ``questions`` with its collection's passages, question by question (memory
    bounded by one collection beyond the tables themselves)."""
    groups = passages.groupby("collection_id", sort=False)
    ids = set(groups.groups)
    made = skipped = 0
    for q in questions.itertuples(index=False):
        if q.collection_id not in ids:
            skipped += 1
            continue
        own = groups.get_group(q.collection_id)
        paths = question_paths(q, own)
        skipped += not paths
        for path in paths:
            made += 1
            yield path, own
    logger.info("reasoning paths: %d from %d questions (%d without every hop supervised)",
                made, len(questions) - skipped, skipped)
