"""Coarse entity types (:data:`~kgp_kedro.facts.TYPES`) of free text: the type an LLM names
("Person", "Country", "Film") or a question's wh-word and nouns, so that schema and KG types
compare (HOLMES §4.2.2's type match). "" is unknown and matches every type."""
from __future__ import annotations

import re

_WORDS = {
    "person": "person people man woman actor actress singer director writer author player "
              "musician artist politician president king queen leader founder composer "
              "producer character member wife husband son daughter father mother child "
              "spouse sibling brother sister coach manager performer vocalist",
    "organization": "organization organisation company band team club university college "
                    "school party group label network channel agency firm corporation "
                    "institution league publisher airline army",
    "location": "location place country city town village state region county province "
                "river mountain island continent area capital district building venue airport "
                "station road street park nation",
    "date": "date year time day month decade century period birthday",
    "number": "number count amount quantity population age height length size many much "
              "percentage",
    "work": "work film movie album song book novel show series game play magazine newspaper "
            "episode opera poem painting single",
    "event": "event war battle election tournament festival competition championship award",
    "group": "nationality language religion ethnicity",
}
_TYPE_OF = {w: t for t, words in _WORDS.items() for w in words.split()}
_WH = {"who": "person", "whom": "person", "whose": "person", "when": "date",
       "where": "location"}
_WORD = re.compile(r"[a-z]+")


def coarse_type(text: str) -> str:
    """The coarse type of a type name or noun phrase (its last known word decides:
    'Person' -> person, 'Television channel' -> organization); "" when none is known."""
    words = _WORD.findall(text.lower())
    for word in reversed(words):
        for form in (word, word[:-1] if word.endswith("s") else word):
            if form in _TYPE_OF:
                return _TYPE_OF[form]
    return ""


def wh_type(word: str) -> str:
    """The answer type a wh-word asks for ('who' -> person), "" when it does not say."""
    return _WH.get(word.lower(), "")


def types_match(a: str, b: str) -> bool:
    """Two coarse types agree when equal or when either is unknown."""
    return not a or not b or a == b
