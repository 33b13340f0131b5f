"""The reader's answer post-processing (``read.answer_form``), one rule for every method and
dataset alike: a small model often answers in a sentence ("Luca Parmitano is younger.", "The
White Countess is from the United States.") where the question asks for an entity, a date or
yes / no, and EM / F1 score the sentence's extra words as wrong.

``line`` keeps the reply's first line (:func:`kgp_kedro.reading.contexts.parse_answer`, the
paper's reading); ``short`` then drops a sentence frame around the answer
(:func:`short_answer`)."""
from __future__ import annotations

import re

from kgp_kedro.reading.contexts import parse_answer

ANSWER_FORMS = ("line", "short")

_LEAD = re.compile(r"^(?:the\s+(?:final\s+)?answer\s+(?:is|was)\s*:?|it\s+(?:is|was)\s)\s*",
                   re.IGNORECASE)
_COPULA = re.compile(r"\s+(?:is|was|are|were)\s+", re.IGNORECASE)
_PREPOSITION = re.compile(r"^(?:from|in|on|at|by)\s+", re.IGNORECASE)
_POLAR = re.compile(r"^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would)\b",
                    re.IGNORECASE)
_YES_NO = re.compile(r"^(yes|no)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")
_STOP = frozenset("a an the of and or in on at by to for from with as is was are were".split())


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def _overlap(side: str, question_words: set[str]) -> float:
    """The share of ``side``'s content words that the question holds (1.0 for none)."""
    words = _content_words(side)
    return len(words & question_words) / len(words) if words else 1.0


def _bare(text: str) -> str:
    """``text`` without trailing sentence punctuation and surrounding quotes."""
    return text.strip().rstrip(".!").strip().strip("\"'“”").strip()


def _named_prefix(words: list[str], question: str) -> str | None:
    """The longest run of ``words``' first words (not all of them) that the question holds
    verbatim and that has a content word: the option a choice question's answer names before
    its frame ("Lee Mantle was born earlier.")."""
    lowered = question.lower()
    for n in range(len(words) - 1, 0, -1):
        prefix = " ".join(words[:n]).rstrip(",.;:").strip("\"'“”")
        if _content_words(prefix) and prefix.lower() in lowered:
            return prefix
    return None


def short_answer(answer: str, question: str) -> str:
    """``answer`` (a parsed reply line) without a sentence frame:

    - a polar question (starting with is / are / was / did / …) answered "Yes, …" / "No, …":
      ``yes`` / ``no``;
    - a leading "The answer is" / "It was" dropped;
    - a choice question (it holds " or ") answered "<option> <frame>" ("Lee Mantle was born
      earlier.", "X is older than Y."): the longest leading run of words that the question
      holds verbatim, the option (a reply the question holds whole is kept whole: "King
      Arthur Was a Gentleman");
    - otherwise a sentence of 4+ words with a copula (is / was / are / were): split there into
      subject and predicate (a leading from / in / on / at / by dropped from the predicate),
      the side with the smaller share of the question's content words kept (the new
      information; the subject on a tie);
    - trailing sentence punctuation and surrounding quotes stripped.

    A reply already short (under 4 words, no copula) comes back stripped only."""
    text = answer.strip().strip("\"'“”").strip()
    if _POLAR.match(question.strip()) and (polar := _YES_NO.match(text)):
        return polar.group(1).lower()
    text = _LEAD.sub("", text).strip()
    words = text.split()
    if _bare(text).lower() in question.lower():
        return _bare(text)   # a name the question holds, whole
    if " or " in question.lower() and len(words) >= 2 and (
            option := _named_prefix(words, question)):
        return option
    parts = _COPULA.split(text, maxsplit=1)
    if len(words) >= 4 and len(parts) == 2:
        subject = parts[0].strip()
        predicate = _PREPOSITION.sub("", parts[1].strip().rstrip(".!")).strip()
        if subject and predicate:
            question_words = _content_words(question)
            text = (predicate if _overlap(predicate, question_words)
                    < _overlap(subject, question_words) else subject)
    return _bare(text)


def formed_answer(answer: str, question: str, form: str = "line") -> str:
    """``answer``, as a method's reader read it off its reply (the first line, HOLMES' Final
    Response, EWEK-QA's answer without its citations), under ``read.answer_form`` ``form``:
    the one post-processing step every method's answer gets alike."""
    if form not in ANSWER_FORMS:
        raise ValueError(f"read.answer_form must be one of {ANSWER_FORMS}, got {form!r}")
    return short_answer(answer, question) if form == "short" else answer


def final_answer(reply: str, question: str, form: str = "line") -> str:
    """The answer scored from ``reply`` under ``read.answer_form`` ``form``."""
    return formed_answer(parse_answer(reply), question, form)
