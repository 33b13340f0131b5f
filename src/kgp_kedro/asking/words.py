"""The one way the ask path cuts text into sentences and words and compares a word of an answer
with a word of a quote (:mod:`.grounding`, :mod:`.answers`).

A *token* is a run of letters and digits, with the ``.``, ``,``, ``-``, ``:``, ``/`` or ``'``
between two of them kept inside it: ``2.4``, ``1,024``, ``git-config``, ``10:30``, ``I/O``,
``O'Brien`` are one token each, so a number is compared whole (``2.4`` is not ``4.2`` nor
``24``). A token's *key*: casefolded, a possessive dropped, digits grouped by thousands written
without their commas (``1,024`` → ``1024``), a word of 5+ letters cut to its first 5
(``directed`` / ``director``)."""
from __future__ import annotations

import re

TOKEN = re.compile(r"\w+(?:[.,:/'’-]\w+)*")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
# a token's parts: its numbers (whole) and its runs of letters (``v2.4`` → ``v``, ``2.4``;
# ``8MB`` → ``8``, ``MB``; ``git-config`` → ``git``, ``config``)
_PARTS = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]+")
# a sentence ends at . ! ? followed by blanks and a capital, a digit, a quote mark or a
# citation, not after a one-letter initial or a common abbreviation; a line break ends one too
_ABBREVIATIONS = ("Mr", "Dr", "St", "Jr", "vs", "cf", "No", "pp", "Fig", "Vol", "e.g", "i.e",
                  "etc")
_SENTENCE = re.compile(r"(?<!\b[A-Z]\.)" + "".join(rf"(?<!\b{re.escape(a)}\.)"
                                                    for a in _ABBREVIATIONS)
                       + r"(?<=[.!?])\s+(?=[\"'“(\[A-Z0-9])|\n+")


def norm(token: str) -> str:
    """``token`` casefolded, ``’`` as ``'``, a possessive ``'s`` dropped, thousands commas
    dropped."""
    token = token.casefold().replace("’", "'").removesuffix("'s")
    return token.replace(",", "") if _THOUSANDS.match(token) else token


def key(token: str) -> str:
    """``token``'s key (module docstring)."""
    token = norm(token)
    return token[:5] if token.isalpha() and len(token) >= 5 else token


def parts(token: str) -> list[str]:
    """``token``'s parts (its numbers whole, its runs of letters)."""
    return _PARTS.findall(token)


def keys(text: str) -> set[str]:
    """The keys of ``text``'s tokens and of their parts (:func:`parts`)."""
    out = set()
    for token in TOKEN.findall(text):
        out.add(key(token))
        out.update(key(part) for part in parts(token))
    return out


def found(token: str, held: set[str]) -> bool:
    """Whether ``token`` is among the keys ``held`` (:func:`keys` of a quote): itself, or
    every one of its parts (``8MB`` in "8 MB"); a number only whole."""
    if " " in token:   # a number and its unit (grounding.unit_pairs): written together, or
        number, unit = (key(t) for t in token.split())     # the number alone, the unit anywhere
        return f"{number} {unit}" in held or (f"{number} *" in held and unit in held)
    if key(token) in held:
        return True
    pieces = parts(token)
    return not is_number(token) and len(pieces) > 1 and all(key(p) in held for p in pieces)


def is_number(token: str) -> bool:
    """Whether ``token`` is a number (digits with ``.`` or ``,`` inside): compared whole."""
    return bool(re.fullmatch(r"\d+(?:[.,]\d+)*", token))


def sentences(text: str) -> list[str]:
    """``text``'s sentences (and lines), blank ones left out."""
    return [s.strip() for s in _SENTENCE.split(text) if s.strip()]
