"""``read.hops: typed``: a compositional question ("When was the institute that owned The
Collegian founded?") read one hop at a time. One short call breaks the question into
sub-questions in MuSiQue's format (``#k``: the k-th one's answer), shown by the train files'
own decompositions (:func:`decomposition_examples`); each sub-question is then asked of the
question's prompt contexts with the reader's own prompt (the ask env's: its quotes), its
answer put in for ``#k`` in the later ones, and the last sub-question's answer is the answer.
Issue 48's candidate for MuSiQue's Golden F1 (a small reader rarely composes three hops in one
reply). One rule for every retrieval method; a question the call does not break into linked
sub-questions (:func:`parse_chain`), a choice question (:mod:`kgp_kedro.reading.choices`), and
a chain whose last sub-question asks for another kind of answer than the question
(:func:`answer_kind`: "When did #1 come into effect?" for "... the signing of what treaty?"),
is read whole, its hops not asked. ``whole``: one call (the paper's)."""
from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

import pandas as pd

from kgp_kedro.config.sections import Source
from kgp_kedro.llm import Completion, LLMClient
from kgp_kedro.llm.client import Messages
from kgp_kedro.prompts.hops import decompose_prompt, decompose_system
from kgp_kedro.reading.answers import final_answer
from kgp_kedro.reading.choices import choice_options
from kgp_kedro.reading.demonstrations import HOP, train_questions

HOPS = ("whole", "typed")
HOP_EXAMPLES = 4                   # decompositions shown (issue 48: 8 read MuSiQue worse)
MAX_HOPS = 4                       # MuSiQue's longest decompositions
DECOMPOSE_TOKENS = 96              # room for four sub-questions
_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.+?)\s*$")
# MuSiQue's relation form of a sub-question: "Steven Blankaart >> place of birth"
_RELATION = re.compile(r"^(?P<subject>.+?)\s*>>\s*(?P<relation>.+)$")
# a question's first question word, and the noun phrases that ask for a date or a place
_QUESTION_WORD = re.compile(
    r"\b(who|whom|whose|when|where|how(?: many| much| old| long)?|what|which)\b", re.I)
_DATE_ASKED = re.compile(r"\b(?:what|which)\s+(?:year|date|day|month|century|decade)\b"
                         r"|\bdate of\b", re.I)
_PLACE_ASKED = re.compile(r"\bplace of\b", re.I)
_KINDS = {"who": "person", "whom": "person", "whose": "person", "when": "date",
          "where": "place"}


def natural_hop(hop: str) -> str:
    """A MuSiQue sub-question as a question: the relation form ``X >> r`` as ``What is the r
    of X?``, any other one unchanged (its spacing tidied)."""
    hop = " ".join(hop.split())
    match = _RELATION.match(hop)
    if match:
        return f"What is the {match['relation']} of {match['subject']}?"
    return hop


def answer_kind(question: str) -> str:
    """The kind of answer ``question`` asks for: ``date`` ("what year", "the date of birth",
    else a first question word "when"), ``place`` ("the place of death", "where"), ``person``
    ("who", "whom", "whose"), ``number`` ("how many", "how much", "how old", "how long"), else
    ``other`` ("what", "which", "how", none). The first question word decides ("What is the native
    language of the person who ..." asks for ``other``)."""
    if _DATE_ASKED.search(question):
        return "date"
    if _PLACE_ASKED.search(question):
        return "place"
    match = _QUESTION_WORD.search(question)
    if match is None:
        return "other"
    word = match.group(1).lower()
    return "number" if word.startswith("how ") else _KINDS.get(word, "other")


def parse_chain(reply: str) -> list[str] | None:
    """The sub-questions of a decomposition reply (its lines ``1. ...``, ``2. ...`` from 1 on,
    read up to the first line that breaks the numbering), or None unless they link: 2 to
    :data:`MAX_HOPS` of them, each later one naming an earlier one's answer (``#k``, k below
    its own number), every one but the last named by a later one."""
    hops: list[str] = []
    for line in reply.splitlines():
        match = _NUMBERED.match(line)
        if not match or int(match.group(1)) != len(hops) + 1:
            if hops:
                break
            continue
        hops.append(match.group(2))
    if not 2 <= len(hops) <= MAX_HOPS:
        return None
    named: set[int] = set()
    for k, hop in enumerate(hops, start=1):
        refs = {int(r) for r in HOP.findall(hop)}
        if any(not 1 <= r < k for r in refs) or (k > 1 and not refs):
            return None
        named |= refs
    return hops if named == set(range(1, len(hops))) else None


def decomposition_examples(questions: pd.DataFrame, k: int) -> list[tuple[str, list[str]]]:
    """``k`` (question, sub-questions) examples from the MuSiQue train questions of
    ``questions`` (their ``meta``: the record's ``question_decomposition``), taken from the
    **last** one backwards (a study that chooses the reader on a train file's first questions
    keeps them apart), one of each length in turn (2, 3, 4 hops, then again), each a linked
    chain (:func:`parse_chain`) once its relation forms read as questions
    (:func:`natural_hop`)."""
    if k <= 0:
        return []
    by_length: dict[int, list[tuple[str, list[str]]]] = {}
    rows = questions[questions["dataset"] == "musique"].iloc[::-1]
    for question, meta in zip(rows["question"], rows["meta"]):
        hops = [natural_hop(str(h.get("question", "")))
                for h in (json.loads(meta) if meta else {}).get("question_decomposition") or []]
        if parse_chain("\n".join(f"{i}. {h}" for i, h in enumerate(hops, start=1))):
            by_length.setdefault(len(hops), []).append((question, hops))
    drawn: list[tuple[str, list[str]]] = []
    while len(drawn) < k and any(by_length.values()):
        for length in sorted(by_length):
            if by_length[length] and len(drawn) < k:
                drawn.append(by_length[length].pop(0))
    return drawn


def train_decompositions(sources: Sequence[Source], k: int = HOP_EXAMPLES,
                         key: str = "train.sources") -> list[tuple[str, list[str]]]:
    """:func:`decomposition_examples` from the train files ``sources``."""
    return decomposition_examples(train_questions(sources, key), k) if k > 0 else []


def with_answers(hop: str, answers: Sequence[str]) -> str:
    """A sub-question with the earlier sub-questions' answers put in for ``#k``."""
    return HOP.sub(lambda m: answers[int(m.group(1)) - 1], hop)


def read_by_hops(client: LLMClient, questions: list[str],
                 prompt: Callable[[int, str], Messages], method: str,
                 examples: Sequence[tuple[str, Sequence[str]]]
                 ) -> dict[int, tuple[list[Completion], str | None]]:
    """``read.hops: typed``: per question asked (its position in ``questions``; a choice
    question is not), the calls made before its answering call and what that call asks: one
    decomposition call; where it breaks the question into linked sub-questions, each but the
    last asked as ``prompt(i, sub_question)`` gives (the reader's prompt over question ``i``'s
    contexts), its reply's short answer put in for ``#k`` ("": none, the question read
    whole), and the last sub-question is what the answering call asks. None
    instead: the question is read whole (the reply was no chain, a call failed, or a
    sub-question got no answer, or the last sub-question asks for
    another :func:`answer_kind` than the question, before any hop is asked), its calls so far
    still counted. The calls go in rounds
    (every question's decomposition, then every first sub-question, then every second one),
    each round one batch."""
    asked = [i for i, q in enumerate(questions) if choice_options(q) is None]
    head = [{"role": "system", "content": decompose_system(examples)}]
    replies = client.complete_many(
        [[*head, {"role": "user", "content": decompose_prompt(questions[i])}] for i in asked],
        max_tokens=DECOMPOSE_TOKENS, desc=f"decompose {method}")
    calls = {i: [reply] for i, reply in zip(asked, replies)}
    # the questions still read by hops: their sub-questions and the answers so far
    chains = {i: (hops, []) for i, reply in zip(asked, replies)
              if not reply.error and (hops := parse_chain(reply.text))
              and answer_kind(hops[-1]) == answer_kind(questions[i])}
    for step in range(MAX_HOPS - 1):
        due = [i for i, (hops, answers) in chains.items() if len(answers) == step < len(hops) - 1]
        if not due:
            break
        asked_now = [with_answers(chains[i][0][step], chains[i][1]) for i in due]
        replies = client.complete_many([prompt(i, q) for i, q in zip(due, asked_now)],
                                       desc=f"hop {step + 1} {method}")
        for i, q, reply in zip(due, asked_now, replies):
            calls[i].append(reply)
            said = "" if reply.error else final_answer(reply.text, q, "short")
            if said:
                chains[i][1].append(said)
            else:
                del chains[i]
    return {i: (made, with_answers(chains[i][0][-1], chains[i][1]) if i in chains else None)
            for i, made in calls.items()}
