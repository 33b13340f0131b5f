"""Word keys, the one way the grounding checks (:mod:`.grounding`, :mod:`.relations`) compare a
claim's words with a quote's: casefolded, a possessive and a trailing full stop or comma
dropped, a word of 5+ letters cut to its first 5 (``directed`` / ``director``)."""
from __future__ import annotations

import re

WORD = re.compile(r"[\w'’]+")


def norm(word: str) -> str:
    """``word`` casefolded, ``’`` as ``'``, a trailing ``.`` or ``,`` and ``'s`` dropped."""
    return word.casefold().replace("’", "'").rstrip(".,").removesuffix("'s")


def key(word: str) -> str:
    """``word``'s key: :func:`norm`, cut to 5 letters when it is a word of 5+ letters."""
    word = norm(word)
    return word[:5] if word.isalpha() and len(word) >= 5 else word


def keys(text: str) -> set[str]:
    """The keys of ``text``'s words."""
    return {key(w) for w in WORD.findall(text)}
