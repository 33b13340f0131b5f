"""Grounded answers (issue 49): each claim (sentence) of a reader's answer checked against the
quotes it cites, then the prompt's other quotes, with no model call.

A claim's *terms* are its names and numbers (capitalized words and digits, a few function
words aside) and, when none of them is new to the question, its content words of 4+ letters
that the question lacks (``heart attack``). The check (``check``) decides which terms must be
found:

- ``claim``: every term of the claim but those it shares with a parenthesized part of the
  question (:func:`aside`: the reader repeats the question's ``(1954 Film)``, which the
  quote holding the fact need not);
- ``relation``: the terms of ``claim``, and the quotes that hold them must also hold who did
  what (:func:`~kgp_kedro.asking.relations.who_did_what`: the verb before the phrase the
  claim adds, the relation that leads to a bridge the claim does not name);
- ``answer``: the terms the question lacks (what the claim adds to it);
- ``none``: no term (every claim kept as the reply cites it; the mark says only whether the
  reply declined).

A term is found in a quote when the quote has the word (a word of 5+ letters: one sharing
its first 5 letters, ``directed`` / ``director``). A claim is *supported* when the quotes it
cites hold its terms together; else *re-attributed* when other quotes of the prompt hold
them (its citations become the fewest quotes that do, cited quotes first); else
*unsupported*, and it is removed from the answer. Several quotes hold a claim together only
when each shares a full name (two or more capitalized words) with another (the bridge of a
two-hop claim: a film's quote and its director's, both naming the director); a claim naming nothing the
question lacks is *empty* and removed too. The answer's mark: *not found* when the
reply says the quotes do not answer (:data:`REFUSAL`) or no claim is left (the answer then
becomes :data:`NOT_FOUND`, the prompt's first quotes listed as the closest); *partly
supported* when a claim was removed; else *supported*."""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations

from kgp_kedro.asking.relations import sentences, who_did_what
from kgp_kedro.asking.words import WORD as _WORD
from kgp_kedro.asking.words import key as _key
from kgp_kedro.asking.words import keys as _keys
from kgp_kedro.asking.words import norm as _norm
from kgp_kedro.ewek.composer import keep_citations, parse_citations

NOT_FOUND = "Not found in your documents."
CHECKS = ("claim", "relation", "answer", "none")
MARKS = ("supported", "partly supported", "not found")
REFUSAL = re.compile(
    r"\b(?:(?:do|does|did)(?: not|n't)|not|cannot|can't|unable to|no)\s+(?:\w+\s+){0,2}?"
    r"(?:answer|mention|mentioned|contain|provide|provided|include|specify|specified|say|"
    r"state|stated|give|given|information|determine|found|find|available|enough)\b", re.I)
# a capital letter, accented ones too (the "Á" of "Árpád", the "Ø" of "Øystein"): the
# uppercase letters of the Latin, Greek and Cyrillic blocks
_UP = "[" + re.escape("".join(c for c in map(chr, range(0x2000)) if c.isupper())) + "]"
# a sentence ends at . ! ? before a capital or a citation, not after an initial or a title
_SENTENCE = re.compile(rf"(?<!\b{_UP}\.)(?<!\b(?:Mr|Dr|St|Jr)\.)(?<!\bMrs\.)(?<=[.!?])\s+"
                       rf"(?=(?:{_UP}|\[))")
# a sentence pointing at the quotes ("This information is found in quote [2]", "This is
# stated in quote [5]." and nothing more): its citations belong to the claim before it
POINTER = re.compile(r"^(?:this|the|that)\s+(?:information|answer|fact)\b.*\bquotes?\b|"
                     r"^(?:this|that|it)\s+(?:is|was|can\s+be)\s+(?:stated|mentioned|found|"
                     r"seen|given|cited|shown)\s+(?:in|from)\s+(?:the\s+)?(?:\w+\s+)?quotes?"
                     r"[\s\d\[\],]*\.?$|"
                     r"^(?:as\s+)?(?:stated|mentioned|found|given|cited)\s+in\s+(?:the\s+)?"
                     r"quotes?\b", re.I)
_CITED = re.compile(r"^(\s*\[\d+(?:\s*,\s*\d+)*\])+")
# a name, or a number with the letters written onto it ("5th", "1990s": one word of a quote)
_TERM = re.compile(rf"\b(?:{_UP}[\w'’-]*|\d[\d,.]*\d[a-z]*|\d[a-z]*)")
_NAME = re.compile(rf"\b{_UP}[\w'’-]+(?:\s+(?:{_UP}[\w'’-]+|{_UP}\.|von|van|de|del|di|da|"
                   rf"la|le|of|ibn|bin|bint))*\s+{_UP}[\w'’-]+")
_CONTENT = re.compile(r"\b[a-z][a-z'-]{3,}\b")
_ASIDE = re.compile(r"\(([^()]*)\)")
FUNCTION_WORDS = frozenset(
    "a an the he she it its his her hers they them their this that these those there then "
    "in on at of for by to from with and or but as yes no not quote quotes according based "
    "also both however which who whom whose what when where while was were is are be been "
    "has have had did does do i we you our your one two".split())
MAX_SUPPORT = 2   # quotes at most that hold one claim's terms together
CLOSEST = 3       # quotes listed with a "not found" answer


def terms(claim: str, question: str, check: str) -> set[str]:
    """The claim's terms (module docstring) as word keys, all of them (``claim``,
    ``relation``) or the new ones (``answer``)."""
    asked = _keys(question)
    names = {_key(w) for t in _TERM.findall(claim) for w in _WORD.findall(t)
             if _norm(w) not in FUNCTION_WORDS and _norm(w)}
    if not names - asked:
        names |= {_key(w) for w in _CONTENT.findall(claim) if w not in FUNCTION_WORDS} - asked
    return names - aside(question) if check in ("claim", "relation") else names - asked


def aside(question: str) -> set[str]:
    """The word keys of the question's parenthesized parts (``1954`` and ``film`` of
    ``Camelia (1954 Film)``): the ``claim`` check does not need them found."""
    return _keys(" ".join(_ASIDE.findall(question)))


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


def _split(answer: str, question: str) -> list[str]:
    """``answer`` cut at its sentence ends (:data:`_SENTENCE`), except where the words either
    side of one stand so in ``question`` (a title's "Rossini! Rossini!")."""
    pieces: list[str] = []
    for piece in _SENTENCE.split(answer.strip()):
        before, after = (pieces[-1].split() if pieces else []), piece.split()
        if before and after and f"{before[-1]} {after[0]}" in question:
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return pieces


def claims(answer: str, question: str = "") -> list[tuple[str, list[int]]]:
    """The answer's sentences with the numbers each cites (a citation right after a
    sentence's full stop belongs to that sentence, and so do the citations of a sentence
    pointing at the quotes after it, :data:`POINTER`); a sentence end inside a phrase of
    ``question`` does not cut."""
    out: list[tuple[str, list[int]]] = []
    for piece in _split(answer, question):
        lead = _CITED.match(piece)
        if lead and out:
            out[-1] = (out[-1][0], out[-1][1] + parse_citations(lead.group(0)))
            piece = piece[lead.end():]
        text = " ".join(keep_citations(piece, set()).split())
        if text and out and POINTER.match(text):
            out[-1] = (out[-1][0], out[-1][1] + parse_citations(piece))
        elif text:
            out.append((text, parse_citations(piece)))
    return out


def _snippet(passage: str, needed: set[str], chars: int) -> str:
    """The sentence (or line) of ``passage`` holding most of ``needed``, cut to ``chars``."""
    pieces = sentences(passage)
    best = max(pieces, key=lambda p: len(needed & _keys(p)), default=passage)
    return " ".join(best.split())[:chars]


def _names(text: str) -> set[str]:
    """The full names of ``text``: runs of two or more capitalized words, casefolded."""
    return {" ".join(m.group(0).split()).casefold() for m in _NAME.finditer(text)}


def new_names(text: str, question: str) -> list[str]:
    """The full names of ``text`` (as :func:`_names` finds them) that ``question`` lacks, in
    their order in ``text``, as written there."""
    asked = _names(question)
    found = [" ".join(m.group(0).split()) for m in _NAME.finditer(text)]
    return list(dict.fromkeys(n for n in found if n.casefold() not in asked))


def _together(group: list[int], needed: set[str], quotes: list[set[str]],
              names: list[set[str]]) -> bool:
    """Whether the quotes ``group`` hold ``needed`` together: all its words are theirs and,
    for several quotes, each shares a full name with another one of them (the bridge of a
    two-hop claim: a film's quote and its director's, both naming the director)."""
    held = [quotes[n - 1] for n in group]
    return bool(group) and needed <= set().union(*held) and (len(group) == 1 or all(
        any(names[a - 1] & names[b - 1] for b in group if b != a) for a in group))


def _holding(order: list[int], holds: Callable[[list[int]], bool]) -> list[int]:
    """The fewest quotes (numbers, at most :data:`MAX_SUPPORT`; earlier in ``order`` first)
    that ``holds`` accepts; empty when none do."""
    for size in range(1, MAX_SUPPORT + 1):
        for group in combinations(order, size):
            if holds(list(group)):
                return list(group)
    return []


def _cite(text: str, numbers: list[int]) -> str:
    """``text`` with ``[n]`` for each of ``numbers`` before its closing full stop."""
    marks = "".join(f" [{n}]" for n in numbers)
    body = text.rstrip()
    if body[-1:] in ".!?":
        return body[:-1].rstrip() + marks + body[-1]
    return body + marks


def ground(question: str, answer: str, quotes: list[str], check: str,
           snippet_chars: int) -> Grounded:
    """``answer`` (a reply over the numbered ``quotes``) grounded by ``check`` (module
    docstring)."""
    if check not in CHECKS:
        raise ValueError(f"grounding check {check!r}: expected one of {', '.join(CHECKS)}")
    closest = list(range(1, min(CLOSEST, len(quotes)) + 1))
    if REFUSAL.search(answer) or not answer.strip():
        return Grounded(NOT_FOUND, "not found", [Claim(t, c) for t, c in claims(answer, question)],
                        closest)
    words, names = [_keys(q) for q in quotes], [_names(q) for q in quotes]
    asked_aside = aside(question)
    found: list[Claim] = []
    for text, cited in claims(answer, question):
        claim = Claim(text, cited)
        needed, new = terms(text, question, check), terms(text, question, "answer")
        cited_here = [n for n in cited if 1 <= n <= len(quotes)]

        def holds(group: list[int], text: str = text, needed: set[str] = needed) -> bool:
            return _together(group, needed, words, names) and (
                check != "relation" or who_did_what(
                    text, question, [quotes[n - 1] for n in group], needed, asked_aside))
        if check == "none":
            claim.support, claim.verdict = cited_here, "supported"
        elif not new:
            claim.verdict = "empty"   # it says nothing the question does not
        elif holds(cited_here):
            claim.support, claim.verdict = cited_here, "supported"
        else:
            others = [n for n in range(1, len(quotes) + 1) if n not in cited_here]
            claim.support = _holding(cited_here + others, holds)
            claim.verdict = "re-attributed" if claim.support else "unsupported"
        if claim.support:
            claim.snippet = _snippet(quotes[claim.support[-1] - 1], needed, snippet_chars)
        found.append(claim)
    kept = [c for c in found if c.support or (check == "none" and c.verdict == "supported")]
    if not kept:
        return Grounded(NOT_FOUND, "not found", found, closest)
    text = " ".join(_cite(c.text, c.support) for c in kept)
    return Grounded(text, "supported" if len(kept) == len(found) else "partly supported",
                    found, [])
