"""Training examples from reasoning paths (:mod:`kgp_kedro.training.paths`).

- ``mdr`` (MDR, Xiong et al. 2020; KGP paper §A "Training DPR and MDR"): at hop ``i`` the query
  is the question ⊕ the texts of one passage of each earlier hop (as the encoder agent builds
  its query from the path it walked), the positive a passage of hop ``i``;
- ``dpr``: the query is the question alone, every supporting passage a positive.

Negatives come from the question's own collection and are never supporting: first the
positive's graph neighbours in the passage graph's structural edges (the other passages of its
document, which a traversal agent must tell apart), then the passages TF-IDF scores highest for
the query (the lexical look-alikes), alternating; the paper samples negatives at random, hard
ones teach more per example (MDR and DPR both add them). In-batch negatives come on top
(:mod:`kgp_kedro.training.encoder`).

Held-out questions (``heldout_share`` of the paths' questions, evenly spread) give ranking cases
instead: the next hop's passages among every other passage of the collection not on the path
before it."""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pandas as pd

from kgp_kedro.search.tfidf import TfidfIndex
from kgp_kedro.training.paths import ReasoningPath

KINDS = ("dpr", "mdr")


@dataclass(frozen=True)
class Example:
    """One training example: a query, its positive and its hard negatives (texts)."""

    question_id: str
    hop: int
    query: str
    positive: str
    negatives: tuple[str, ...]


@dataclass(frozen=True)
class RankingCase:
    """A held-out hop: the query, the candidate texts, and which candidates are the hop's."""

    question_id: str
    hop: int
    query: str
    candidates: tuple[str, ...]
    relevant: tuple[bool, ...]


@dataclass
class TrainingSet:
    """Examples to train on and held-out ranking cases (no question in both)."""

    examples: list = field(default_factory=list)    # Example, GenerationExample
    heldout: list = field(default_factory=list)     # RankingCase, GenerationCase

    @property
    def n_questions(self) -> int:
        return len({e.question_id for e in self.examples})


def is_heldout(position: int, share: float) -> bool:
    """Whether the ``position``-th eligible question is held out: every question where the
    running count ``floor(position * share)`` steps up, i.e. ``share`` of them, evenly spread
    (the MDR/DPR paths here, EWEK-QA's cross-encoder pairs in :mod:`kgp_kedro.ewek.training`)."""
    return math.floor((position + 1) * share) > math.floor(position * share)


def query_text(question: str, previous: Iterable[str]) -> str:
    """The question ⊕ earlier passages, joined as the encoder agent joins its path."""
    return " ".join([question, *previous])


def _hard_negatives(positive: str, query: str, collection: pd.DataFrame, index: TfidfIndex,
                    excluded: set[str], count: int) -> tuple[str, ...]:
    """``count`` non-supporting passages: the positive's same-document neighbours and the
    TF-IDF-hardest for the query, alternating (each once)."""
    ids = collection["passage_id"].tolist()
    texts = collection["text"].tolist()
    docs = collection["doc_id"].tolist()
    home = docs[ids.index(positive)]
    neighbours = [i for i, d in enumerate(docs) if d == home and ids[i] not in excluded]
    order, _ = index.search(query, len(ids))
    lexical = [int(i) for i in order if ids[int(i)] not in excluded]
    chosen: list[int] = []
    for pair in zip(neighbours + [None] * len(lexical), lexical + [None] * len(neighbours)):
        for i in pair:
            if i is not None and i not in chosen and len(chosen) < count:
                chosen.append(i)
    return tuple(texts[i] for i in chosen)


def path_examples(path: ReasoningPath, collection: pd.DataFrame, kind: str, negatives: int,
                  positives_per_hop: int) -> list[Example]:
    """The examples of one reasoning path (``kind`` ``mdr`` or ``dpr``); at most
    ``positives_per_hop`` positives a hop (its first passages)."""
    text = dict(zip(collection["passage_id"], collection["text"]))
    supporting = set(collection.loc[collection["is_supporting"].astype(bool), "passage_id"])
    index = TfidfIndex(collection["text"].tolist())
    examples = []
    for hop, passages in enumerate(path.hops):
        previous = [text[h[0]] for h in path.hops[:hop]] if kind == "mdr" else []
        query = query_text(path.question, previous)
        for positive in passages[:positives_per_hop]:
            examples.append(Example(path.question_id, hop, query, text[positive],
                                    _hard_negatives(positive, query, collection, index,
                                                    supporting, negatives)))
    return examples


def path_cases(path: ReasoningPath, collection: pd.DataFrame, kind: str) -> list[RankingCase]:
    """Ranking cases of a held-out path: each hop (after the first for ``mdr``, whose first
    hop is the question alone as for ``dpr``) among the passages not on the path before it."""
    text = dict(zip(collection["passage_id"], collection["text"]))
    cases = []
    for hop, passages in enumerate(path.hops):
        before = {p for h in path.hops[:hop] for p in h} if kind == "mdr" else set()
        previous = [text[h[0]] for h in path.hops[:hop]] if kind == "mdr" else []
        candidates = [p for p in collection["passage_id"] if p not in before]
        cases.append(RankingCase(path.question_id, hop, query_text(path.question, previous),
                                 tuple(text[p] for p in candidates),
                                 tuple(p in passages for p in candidates)))
    return cases


def split_paths(paths: Iterable[tuple[ReasoningPath, pd.DataFrame]],
                examples_of: Callable[[ReasoningPath, pd.DataFrame], list],
                cases_of: Callable[[ReasoningPath, pd.DataFrame], list], max_examples: int,
                heldout_share: float, max_heldout: int, one_order: bool = False) -> TrainingSet:
    """Training examples (``examples_of`` a path) and held-out cases (``cases_of`` a path) of
    ``paths`` (as :func:`~kgp_kedro.training.paths.reasoning_paths` yields them), questions
    held out by :func:`is_heldout`; stops when both ``max_examples``
    examples and ``max_heldout`` held-out questions are reached (a question's paths stay on
    one side; the last one may pass ``max_examples``). ``one_order``: a question's first path
    only."""
    result = TrainingSet()
    side: dict[str, bool] = {}
    held_questions: set[str] = set()
    for path, collection in paths:
        if path.question_id in side and one_order:
            continue
        if path.question_id not in side:
            if len(result.examples) >= max_examples and len(held_questions) >= max_heldout:
                break
            side[path.question_id] = is_heldout(len(side), heldout_share)
        if side[path.question_id]:
            if len(held_questions) < max_heldout or path.question_id in held_questions:
                held_questions.add(path.question_id)
                result.heldout += cases_of(path, collection)
        elif len(result.examples) < max_examples:
            result.examples += examples_of(path, collection)
    return result


def training_set(paths: Iterable[tuple[ReasoningPath, pd.DataFrame]], kind: str,
                 negatives: int, positives_per_hop: int, max_examples: int,
                 heldout_share: float, max_heldout: int) -> TrainingSet:
    """Examples of ``kind`` from ``paths`` and the held-out questions' ranking cases
    (:func:`split_paths`; a question's other orders give ``dpr`` the same examples)."""
    if kind not in KINDS:
        raise ValueError(f"training kind {kind!r}: expected one of {', '.join(KINDS)}")
    return split_paths(
        paths, lambda p, c: path_examples(p, c, kind, negatives, positives_per_hop),
        lambda p, c: path_cases(p, c, kind), max_examples, heldout_share, max_heldout,
        one_order=kind == "dpr")
