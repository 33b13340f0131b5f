"""Grounded answers: each claim (sentence) of a reader's answer checked against the quotes it
cites, then the prompt's other quotes, with no model call and no vocabulary of any dataset.

What a claim adds beyond the question must be in the quotes that hold it:

- its **specifics** (:func:`specifics`): numbers (compared whole: ``2.4`` is not ``4.2``; with
  the unit written after them, :func:`unit_pairs`: ``32 kbps`` is not ``32 kHz``), names (a
  capitalized word not opening the sentence), code-like words (``git-config``,
  ``max_connections``, ``PostgreSQL``, ``-v``) and every word of a quoted term
  (``"Not found"``, ```ls -l```), the ones the question lacks: **all** of them must be found;
- an acronym spelled out beside it ("FHS (Filesystem Hierarchy Standard)", "Voice Activity
  Detection (VAD)") is the acronym alone (:func:`without_expansions`): a reader that spells
  out the question's acronym adds nothing the quote must hold; a quantity restated in
  parentheses is an aside (:func:`without_asides`: "every 3600 seconds (1 hour)");
- when it adds no specific, its content words (4+ letters, not a function word) the question
  lacks: **half** of them at least (a paraphrase, "released" for "published", or a negative
  answer, "does not include", keeps its claim); a claim that adds neither is *empty* (it says
  nothing the question does not), unless it answers yes or no (then half its content words)
  or picks one of the two alternatives the question offers (:func:`chosen`: the words naming
  its pick).

A table quote (a markdown pipe table, the readers' form, under the lines before it) is matched
as cells: a claim's words must be in **one row** (with the header and the lines above the
table), or in as many rows as the claim names by their first cell ("the X100 costs $499 and
the X200 $599"): a price read from the wrong row is not held. The quotes that hold a claim
must also share a content word with the question (they are about what was asked).

A claim is *supported* when the quotes it cites hold it; else *re-attributed* when other quotes
of the prompt hold it (its citations become the fewest quotes that do, at most
:data:`MAX_SUPPORT`, cited quotes first); else *unsupported*, and it is removed. A sentence
saying the quotes lack the answer (:func:`refuses`) makes the answer *not found*
(:data:`NOT_FOUND`, the prompt's first quotes listed as the closest), as does an answer left
with no claim or whose first claim, the answer itself, was removed (what follows it only
elaborates); *partly supported* when a later claim was removed; else *supported*. With the check
``none`` every claim is kept as the reply cites it, and the mark says only whether it
declined."""
from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations, product

from kgp_kedro.asking.words import TOKEN, found, is_number, key, keys, sentences
from kgp_kedro.corpus.sources.formats.base import table_rows
from kgp_kedro.ewek.composer import keep_citations, parse_citations
from kgp_kedro.prompts.ask import NOT_ANSWERED

NOT_FOUND = NOT_ANSWERED   # the answer of a question the quotes do not answer
CHECKS = ("answer", "none")
MARKS = ("supported", "partly supported", "not found")
MAX_SUPPORT = 2   # quotes at most that hold one claim together
UNIT_LETTERS = 5  # a word of at most this many letters right after a number is its unit
CLOSEST = 3       # quotes listed with a "not found" answer
FUNCTION_WORDS = frozenset(
    "a an the he she it its his her hers they them their this that these those there then "
    "in on at of for by to from with and or but as yes no not quote quotes according based "
    "also both however which who whom whose what when where while was were is are be been "
    "has have had did does do i we you our your one two can could may might must shall "
    "should will would into onto over under about above below after before than such each "
    "every some any other more most only same very just used uses using use table tables "
    "section chapter figure page appendix note example "
    # the words of citing ("with a citation from quote [3]", "as mentioned in the document")
    "citation citations cite cites cited mention mentions mentioned stated information "
    "provided document documents passage passages excerpt excerpts context".split())
# a sentence saying the quotes lack the answer: a negation before a verb of saying or having,
# in a sentence naming the quotes, the documents or the information; or "not found"
_NEGATION = r"(?:not|no|\w+n't|cannot|unable\s+to|neither|nor|none\s+of)"
_LACKING = (r"(?:mention|mentions|mentioned|contain|contains|provide|provides|provided|include|"
            r"includes|included|specify|specifies|specified|say|says|state|states|stated|"
            r"give|gives|given|answer|answers|indicate|indicates|discuss|discusses|address|"
            r"addresses|cover|covers|information|details?|find|found|available|enough|"
            r"determine|determined|clear|explicit|explicitly|directly)")
_LACK = re.compile(rf"\b{_NEGATION}\b(?:\s+\S+){{0,4}}?\s+{_LACKING}\b", re.I)
_SOURCES = re.compile(r"\b(?:quotes?|documents?|passages?|context|sources?|excerpts?|"
                      r"provided|I)\b", re.I)
_NOT_FOUND = re.compile(r"\bnot\s+found\b|\bno\s+(?:such\s+)?information\b|"
                        r"\bcannot\s+be\s+(?:found|determined|answered)\b|"
                        r"\bI\s+(?:do\s+not|don't)\s+know\b", re.I)
_CITED = re.compile(r"^(\s*\[\d+(?:\s*,\s*\d+)*\])+")
# a sentence pointing at where the answer is ("This information is found in quote [2]", "This
# can be found in quote on page 32", "As stated in section 4.3"): no claim of its own; its
# citations belong to the claim before it
POINTER = re.compile(
    r"^(?:this|that|it|these|the\s+(?:answer|information|fact|above))\s+(?:\w+\s+)?"
    r"(?:is|are|was|were|can\s+be|could\s+be|may\s+be)\s+(?:\w+\s+)?(?:found|stated|"
    r"mentioned|specified|described|given|shown|listed|seen|explained|defined|cited|derived|"
    r"taken|indicated|noted|provided)\s+(?:in|on|from|at|under)\b|"
    r"^(?:as\s+)?(?:stated|mentioned|found|given|cited|shown|specified|described)\s+in\b|"
    r"^(?:see|refer\s+to)\s", re.I)
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|`([^`]+)`|(?<!\w)'([^']+)'(?!\w)")
_CONTENT = re.compile(r"\b[^\W\d_][\w'-]{3,}\b")
YES_NO = re.compile(r"^\s*(?:yes|no)\b", re.I)


def refuses(sentence: str) -> bool:
    """Whether ``sentence`` says the quotes do not answer ("The quotes do not mention …",
    "No information is given …", "Not found in the documents."), not a negative answer
    ("The warranty does not include water damage")."""
    return bool(_NOT_FOUND.search(sentence)
                or (_LACK.search(sentence) and _SOURCES.search(sentence)))


def _code_like(token: str, before: str) -> bool:
    """A word written as code or a product name: an inner capital (``PostgreSQL``), capitals
    only (``SQL``), a digit in it (``x86``, ``utf8``, a range ``16-19``, a time ``10:30``),
    ``_`` or a joining ``.``/``/``/``-`` between letters (``git-config``, ``I/O``), or an
    option's dash before it."""
    return bool(re.search(r"[a-z][A-Z]", token) or (len(token) > 1 and token.isupper())
                or re.search(r"\d", token)
                or "_" in token or re.search(r"[^\W\d_][./-][^\W\d_]", token)
                or before.endswith("-"))


def _is_unit(token: str) -> bool:
    """A word that may be a number's unit: letters only, at most :data:`UNIT_LETTERS`, not a
    function word (``ms``, ``kbps``, ``bytes``; not ``and``)."""
    return token.isalpha() and len(token) <= UNIT_LETTERS and \
        token.casefold() not in FUNCTION_WORDS


def unit_pairs(text: str) -> set[str]:
    """``text``'s numbers with the unit written right after them (``32 kHz``, ``32kHz``:
    ``"32 khz"``), and ``"32 *"`` for a number written somewhere with no unit after it (a
    table cell, "12 32 Acknowledge"): its unit may be anywhere (a header's "Size (bits)")."""
    tokens = list(TOKEN.finditer(text))
    out = set()
    for a, b in zip(tokens, [*tokens[1:], None]):
        token = a.group(0)
        glued = re.fullmatch(r"(\d+(?:[.,]\d+)*)([^\W\d_]+)", token)
        if glued and _is_unit(glued.group(2)):
            out.add(f"{key(glued.group(1))} {key(glued.group(2))}")
        elif is_number(token):
            unit = b is not None and text[a.end():b.start()] == " " and _is_unit(b.group(0))
            out.add(f"{key(token)} {key(b.group(0)) if unit else '*'}")
    return out


def specifics(claim: str, question: str = "") -> list[str]:
    """The claim's specifics (module docstring) the question lacks, as written, in order."""
    asked = keys(question)
    quoted = {t for groups in _QUOTED.findall(claim) for g in groups for t in TOKEN.findall(g)}
    out, number = [], ""
    for i, match in enumerate(TOKEN.finditer(claim)):
        token, before = match.group(0), claim[:match.start()]
        word = token.casefold()
        if number and _is_unit(token) and before.endswith(f"{number} "):
            if f"{number} {token}".casefold() not in question.casefold():
                out.append(f"{number} {token}")   # a number and its unit, found together
        special = (token in quoted or is_number(token) or _code_like(token, before)
                   or (i > 0 and token[0].isupper() and word not in FUNCTION_WORDS))
        if special and key(token) not in asked and word not in FUNCTION_WORDS | {"i"}:
            out.append(token)
        number = token if is_number(token) else ""
    return list(dict.fromkeys(out))


_SPELLED = re.compile(r"\b([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\s*\(([^()]{3,80})\)")
_SPELLING = re.compile(r"((?:[A-Za-z][\w-]*\s+){1,8}[A-Za-z][\w-]*)\s*\(([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*)\)")
_JOINING = frozenset("of for and the in on to a an".split())


def spells(acronym: str, words: str) -> bool:
    """Whether ``words`` spell out ``acronym``: its letters are the words' initials in order
    (joining words such as "of" skipped, a word's initial skipped at most twice: "GNU General
    Public License" for GPL), starting and ending with them."""
    initials = [w[0].casefold() for w in re.findall(r"[A-Za-z][\w']*", words)
                if w.casefold() not in _JOINING]
    letters = [c.casefold() for c in acronym if c.isalpha()]
    if not letters or not initials or len(initials) > len(letters) + 2 or \
            initials[0] != letters[0] or initials[-1] != letters[-1]:
        return False
    rest = iter(initials)
    return all(any(c == i for i in rest) for c in letters)


def without_expansions(text: str) -> str:
    """``text`` with each acronym's spelling-out beside it left out: "FHS (Filesystem Hierarchy
    Standard)" and "Filesystem Hierarchy Standard (FHS)" both become "FHS"; a parenthesis that
    spells out nothing is kept."""
    text = _SPELLED.sub(lambda m: m.group(1) if spells(m.group(1), m.group(2)) else m.group(0),
                        text)

    def shorten(m: re.Match) -> str:
        words = m.group(1).split()
        for start in reversed(range(len(words))):   # the shortest run before it that spells it
            if spells(m.group(2), " ".join(words[start:])):
                return " ".join(words[:start] + [m.group(2)])
        return m.group(0)
    return _SPELLING.sub(shorten, text)


def content(text: str) -> set[str]:
    """The keys of ``text``'s content words: 4+ letters, not a function word."""
    return {key(w) for w in _CONTENT.findall(text) if w.casefold() not in FUNCTION_WORDS}


# a parenthesis holding a quantity alone ("(1 hour)", "(about 64 KB)", "(= 2^16)")
_ASIDE = re.compile(r"\s*\(\s*(?:about|approx\.?|approximately|roughly|~|=|i\.e\.,?)?\s*"
                    r"\d[\d.,^]*\s*[^\W\d_]{0,8}\s*\)")


def without_asides(claim: str) -> str:
    """``claim`` without a quantity restated in parentheses ("every 3600 seconds (1 hour)" →
    "every 3600 seconds"): a unit converted need not be quoted; any other parenthesis is
    checked as written."""
    return _ASIDE.sub("", claim)


_CHOICE = re.compile(r"([^,;:?]+?)\s+or\s+([^,;:?]+?)\s*\?\s*$")


def chosen(claim: str, question: str) -> list[str]:
    """For a question offering two alternatives ("Which is older, the A manual or the B
    guide?"), the words that tell apart the alternatives ``claim`` names (its choice): the
    quotes must hold them; none when the question offers no choice or the claim names none."""
    offer = _CHOICE.search(question)
    if not offer:
        return []
    sides = [[t for t in TOKEN.findall(side) if t.casefold() not in FUNCTION_WORDS]
             for side in offer.groups()]
    first, second = (keys(" ".join(side)) for side in sides)
    own = [[t for t in sides[0] if key(t) not in second],
           [t for t in sides[1] if key(t) not in first]]
    said = keys(claim)
    return [t for words in own if words and all(key(t) in said for t in words) for t in words]


@dataclass
class Claim:
    """One sentence of the answer: its text (citations removed), the numbers it cited, the
    numbers that hold it (empty: unsupported), its verdict and the supporting snippet."""

    text: str
    cited: list[int]
    support: list[int] = field(default_factory=list)
    verdict: str = "unsupported"
    snippet: str = ""

    def as_dict(self) -> dict:
        return {"claim": self.text, "cited": self.cited, "support": self.support,
                "verdict": self.verdict, "snippet": self.snippet}


@dataclass
class Grounded:
    """The grounded answer: its text (supported claims with their supporting citations, or
    :data:`NOT_FOUND`), its mark, every claim, and the closest quotes' numbers when not
    found."""

    text: str
    mark: str
    claims: list[Claim]
    closest: list[int]


def claims(answer: str) -> list[tuple[str, list[int]]]:
    """The answer's sentences with the numbers each cites (a citation right after a
    sentence's full stop belongs to that sentence, and so do the citations of a sentence
    pointing at the quotes after it, :data:`POINTER`)."""
    out: list[tuple[str, list[int]]] = []
    for piece in sentences(answer):
        lead = _CITED.match(piece)
        if lead and out:
            out[-1] = (out[-1][0], out[-1][1] + parse_citations(lead.group(0)))
            piece = piece[lead.end():]
        text = " ".join(keep_citations(piece, set()).split())
        if POINTER.match(text):
            if out:
                out[-1] = (out[-1][0], out[-1][1] + parse_citations(piece))
        elif text and re.search(r"\w", text):
            out.append((text, parse_citations(piece)))
    return out


class Quote:
    """A quote as the check reads it: its *units*, the word keys a claim's words may be found
    in together (the whole quote; a table quote one unit a row, the header and the lines above
    the table in each), and each table row's first-cell keys."""

    def __init__(self, text: str) -> None:
        self.text = text
        lines = text.splitlines()
        at = next((i for i, line in enumerate(lines) if line.lstrip().startswith("|")), None)
        rows = table_rows("\n".join(lines[at:])) if at is not None else None
        if not rows or len(rows) < 2:
            self.units, self.firsts = [keys(text) | unit_pairs(text)], []
            return
        above = "\n".join(lines[:at] + [" ".join(rows[0])])
        head = keys(above)
        body = [row for row in rows[1:] if any(row)]
        self.units = [head | keys(" | ".join(row)) | unit_pairs(" | ".join(row))
                      for row in body]
        self.firsts = [keys(row[0]) for row in body]

    def choices(self, claim_keys: set[str]) -> list[set[str]]:
        """The units a claim may be held by: for a table whose rows the claim names by their
        first cell, those rows (and together, when it names two or more); else each unit."""
        named = [u for u, first in zip(self.units, self.firsts) if first and first <= claim_keys]
        if not named:
            return self.units
        return named + ([set().union(*named)] if len(named) >= 2 else [])


def _needed(held: set[str], hard: list[str], soft: set[str]) -> set[str]:
    """The claim's words ``held`` holds: its hard words found there, its soft keys there."""
    return {t for t in hard if found(t, held)} | (soft & held)


def _holds(units: tuple[set[str], ...], hard: list[str], soft: set[str],
           topic: set[str]) -> bool:
    """Whether ``units`` (one a quote) hold a claim together: every ``hard`` word found, half
    the ``soft`` keys at least, a word of the question's ``topic`` when it has one, and, for
    several, each holding a word of the claim the others lack (no quote cited for nothing)."""
    held = set().union(*units)
    if not (all(found(t, held) for t in hard)
            and len(soft & held) >= math.ceil(len(soft) / 2)
            and (not topic or bool(topic & held))):
        return False
    words = [_needed(u, hard, soft) for u in units]
    return len(units) == 1 or all(
        words[i] - set().union(*(w for j, w in enumerate(words) if j != i))
        for i in range(len(units)))


def _held_by(group: Iterable[int], quotes: list[Quote], claim_keys: set[str], hard: list[str],
             soft: set[str], topic: set[str]) -> bool:
    """Whether the quotes numbered ``group`` hold the claim, one unit (:meth:`Quote.choices`)
    of each together."""
    options = [quotes[n - 1].choices(claim_keys) for n in group]
    return bool(options) and any(_holds(units, hard, soft, topic)
                                 for units in product(*options))


def _snippet(passage: str, needed: set[str], chars: int) -> str:
    """The sentence (or line) of ``passage`` holding most of ``needed``, cut to ``chars``."""
    best = max(sentences(passage), key=lambda s: len(needed & keys(s)), default=passage)
    return " ".join(best.split())[:chars]


def _cite(text: str, numbers: list[int]) -> str:
    """``text`` with ``[n]`` for each of ``numbers`` before its closing full stop."""
    marks = "".join(f" [{n}]" for n in numbers)
    body = text.rstrip()
    if body[-1:] in ".!?":
        return body[:-1].rstrip() + marks + body[-1]
    return body + marks


def check_claim(claim: Claim, question: str, quotes: list[Quote]) -> Claim:
    """``claim``'s support and verdict against ``quotes`` (module docstring)."""
    said = without_asides(without_expansions(claim.text))
    hard = specifics(said, question)
    added = content(said) - keys(question)
    if hard:
        soft = set()
    elif added:
        soft = added
    elif YES_NO.match(claim.text):
        soft = content(said)
    else:
        soft = set()
    claim_keys, topic = keys(claim.text), content(question)
    if not hard and not soft:
        hard = chosen(said, question)
    cited = [n for n in claim.cited if 1 <= n <= len(quotes)]
    if not hard and not soft:
        claim.support, claim.verdict = cited, "empty"
        return claim

    def holds(group: Iterable[int]) -> bool:
        return _held_by(group, quotes, claim_keys, hard, soft, topic)
    if cited and len(cited) <= MAX_SUPPORT and holds(cited):
        claim.support, claim.verdict = cited, "supported"
        return claim
    order = cited + [n for n in range(1, len(quotes) + 1) if n not in cited]
    for size in range(1, MAX_SUPPORT + 1):
        for group in combinations(order, size):
            if holds(group):
                claim.support, claim.verdict = list(group), "re-attributed"
                return claim
    return claim


def ground(question: str, answer: str, quotes: list[str], check: str,
           snippet_chars: int) -> Grounded:
    """``answer`` (a reply over the numbered ``quotes``) grounded by ``check`` (module
    docstring)."""
    if check not in CHECKS:
        raise ValueError(f"grounding check {check!r}: expected one of {', '.join(CHECKS)}")
    closest = list(range(1, min(CLOSEST, len(quotes)) + 1))
    said = [Claim(text, cited) for text, cited in claims(answer)]
    if not said or any(refuses(c.text) for c in said):
        return Grounded(NOT_FOUND, "not found", said, closest)
    if check == "none":
        for claim in said:
            claim.support = [n for n in claim.cited if 1 <= n <= len(quotes)]
            claim.verdict = "supported"
        return Grounded(" ".join(_cite(c.text, c.support) for c in said), "supported",
                        said, [])
    read = [Quote(q) for q in quotes]
    for claim in said:
        check_claim(claim, question, read)
        if claim.support:
            claim.snippet = _snippet(quotes[claim.support[-1] - 1],
                                     keys(claim.text) - keys(question), snippet_chars)
    checked = [c for c in said if c.verdict != "empty"]
    kept = [c for c in checked if c.support]
    if not kept or not checked[0].support:   # the first claim is the answer
        return Grounded(NOT_FOUND, "not found", said, closest)
    shown = [c for c in said if c.support or c.verdict == "empty"]
    return Grounded(" ".join(_cite(c.text, c.support) for c in shown),
                    "supported" if len(kept) == len(checked) else "partly supported", said, [])
