"""Evidence first (``ask.evidence_first``): the reader copies the sentence or table row of the
quotes that answers the question, after its quote's number (``[n] words``,
:data:`~kgp_kedro.prompts.ask.EVIDENCE_INSTRUCTION`), then writes ``Answer: ...``.
:func:`split_reply` parts the reply into the copied lines and the answer; :func:`copied_from`
says whether a copied line is in the quote it names: at least :data:`MIN_SHARE` of its words
(:func:`~kgp_kedro.asking.words.keys`) found there, a table row's cells read as words. With
``ask.evidence_gate`` an answer none of whose copied lines is in its quote is *not found*."""
from __future__ import annotations

import re

from kgp_kedro.asking.words import keys

MIN_SHARE = 0.8     # of a copied line's words found in the quote it names
MIN_WORDS = 2       # a copied line of fewer words copies nothing
_COPIED = re.compile(r"^\s*(?:[-*]\s*)?\[(\d+)\]\s*[:\-–]?\s*(.+?)\s*$")
_ANSWER = re.compile(r"\**\banswer\**\s*:\**\s*", re.I)
_MARKS = "\"'“”‘’`"


def split_reply(reply: str) -> tuple[list[tuple[int, str]], str]:
    """``(copied, answer)``: the lines before ``Answer:`` (on a line of its own or after a
    copied line) that open with a quote's number (``[n] words``, quotation marks taken off),
    and the text after ``Answer:``; with no ``Answer:``, the copied lines are the answer, each
    citing its quote (``words [n]``), with the lines that copy nothing."""
    at = _ANSWER.search(reply)
    head = reply if at is None else reply[:at.start()]
    copied, rest = [], []
    for line in head.splitlines():
        match = _COPIED.match(line)
        if match:
            copied.append((int(match.group(1)), match.group(2).strip(_MARKS + " ")))
        elif line.strip():
            rest.append(line.strip())
    if at is not None:
        return copied, reply[at.end():].strip()
    return copied, "\n".join([f"{words} [{n}]" for n, words in copied] + rest).strip()


def copied_from(words: str, quote: str) -> bool:
    """Whether ``words`` are copied from ``quote``: at least :data:`MIN_WORDS` of them and
    :data:`MIN_SHARE` of them found there."""
    said = keys(words.replace("|", " "))
    if len(said) < MIN_WORDS:
        return False
    return len(said & keys(quote.replace("|", " "))) >= MIN_SHARE * len(said)


def verified(copied: list[tuple[int, str]], quotes: list[str]) -> list[int]:
    """The numbers of the quotes a copied line is found in, each once, in order."""
    return list(dict.fromkeys(n for n, words in copied
                              if 1 <= n <= len(quotes) and copied_from(words, quotes[n - 1])))
