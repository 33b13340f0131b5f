"""KGP's structural questions (paper §4: "we first apply LLM to classify whether the question
is asking about the document structure or content. If the question focuses on the document
structure, we extract the structural keywords such as Page or Table, and retrieve the content
in the corresponding structural nodes in KG"; "for the table node, we retrieve its markdown
formatted content while for the page node, we traverse its one-hop neighbor and obtain
passages belonging to that page").

- :func:`classify_rules` (the default router): a question is structural when it names a page
  (``page 3``, ``the first page``), a table (``Table 2``, ``the second table``, ``the table
  on page 4``) or a quoted heading (``the section "Early life"``); the keys are extracted.
- :func:`classify_llm`: the paper's LLM router, through the project's LLM client: a system
  prompt describing the two classes and the reply's JSON schema, five generic examples as chat
  turns (:data:`ROUTER_EXAMPLES`), then the question; the LLM answers a JSON object with the
  same keys (:func:`parse_router_reply`).
- :func:`route`: each question's keys under a retriever's ``routing`` option (rules, llm,
  off), over the collections whose KG has structural nodes (KGP's and the entity walk's).
- :func:`structural_visits`: the content of the structural nodes a :class:`StructuralQuery`
  names, in reading order, each visit's path ``(structural node, passage)``.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs.model import Graph
from kgp_kedro.prompts.structural import router_messages
from kgp_kedro.retrievers.base import Visit

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
             "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "last": -1}
_ORD = "|".join(_ORDINALS)
_PAGE = re.compile(rf"\bpage\s+(\d+)\b|\b({_ORD})\s+page\b", re.IGNORECASE)
_TABLE = re.compile(rf"\btable\s+(\d+)\b|\b({_ORD})\s+table\b", re.IGNORECASE)
_TABLE_ON_PAGE = re.compile(r"\btables?\b[^.?!]{0,40}?\bpage\b", re.IGNORECASE)
_HEADING = re.compile(r"\b(?:section|heading|chapter)\s+(?:titled\s+|called\s+|named\s+)?"
                      r"[\"'“‘](.+?)[\"'”’]", re.IGNORECASE)


@dataclass(frozen=True)
class StructuralQuery:
    """The structural keys of a question: a page, a table (its number; 0 = every table of the
    page), a heading (numbers 1-based; -1 = the last)."""

    page: int | None = None
    table: int | None = None
    heading: str | None = None

    @property
    def target(self) -> str:
        """What the question asks for: ``table``, ``page`` or ``heading``."""
        return "table" if self.table is not None else "page" if self.page is not None \
            else "heading"


def _number(match: re.Match | None) -> int | None:
    if match is None:
        return None
    return int(match.group(1)) if match.group(1) else _ORDINALS[match.group(2).lower()]


def classify_rules(question: str) -> StructuralQuery | None:
    """The structural keys the question names, or None for a content question."""
    page, table = _number(_PAGE.search(question)), _number(_TABLE.search(question))
    heading = _HEADING.search(question)
    if table is None and page is not None and _TABLE_ON_PAGE.search(question):
        table = 0   # "the table on page 4": the tables of that page
    if page is None and table is None and heading is None:
        return None
    return StructuralQuery(page, table, heading.group(1).strip() if heading else None)


def _integer(value) -> int | None:
    """An integer key of the reply: an int, an integral float or a string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return value if isinstance(value, int) else None


def parse_router_reply(reply: str, question: str | None = None) -> StructuralQuery | None:
    """The keys of an LLM router's reply (its first JSON object; a model may go on after it);
    None for content, a structural reply naming no key, or an unreadable reply. Given the
    ``question``, a heading is kept only when the question names it (a small model invents
    section titles, and an invented one empties the section filter)."""
    start = reply.find("{")
    try:
        data = json.JSONDecoder().raw_decode(reply[start:])[0] if start >= 0 else {}
    except json.JSONDecodeError:
        return None
    structural = data.get("structural") if isinstance(data, dict) else None
    if isinstance(structural, str):
        structural = structural.strip().lower() in ("true", "yes")
    if structural is not True:
        return None
    heading = data.get("heading")
    heading = heading.strip() if isinstance(heading, str) and heading.strip() else None
    if heading is not None and question is not None:
        from rapidfuzz import fuzz

        if fuzz.partial_ratio(heading.lower(), question.lower()) < HEADING_MATCH:
            heading = None
    query = StructuralQuery(_integer(data.get("page")), _integer(data.get("table")), heading)
    return query if (query.page, query.table, query.heading) != (None, None, None) else None


def classify_llm(questions: Sequence[str], llm, max_tokens: int = 64
                 ) -> list[StructuralQuery | None]:
    """The paper's LLM router: one call per question through the project's LLM client."""
    replies = llm.complete_many([router_messages(q) for q in questions],
                                max_tokens=max_tokens, desc="route")
    return [parse_router_reply(r.text, q) for q, r in zip(questions, replies)]


# §4: structural or content question? rules (default), llm (the paper's), off
Routing = Literal["rules", "llm", "off"]


def route(questions: Sequence[str], collections: Sequence[Collection], routing: Routing,
          llm=None) -> tuple[list[StructuralQuery | None], list[int]]:
    """Each question's structural keys (None: a content question, or a collection whose KG has
    no structural nodes) by ``routing``, and the positions of the questions the LLM
    classified (one call each; none unless ``routing`` is llm)."""
    routed = [i for i, c in enumerate(collections)
              if routing != "off" and has_structural_nodes(c.graph)]
    keys: list[StructuralQuery | None] = [None] * len(questions)
    if routing == "llm" and routed:
        found = classify_llm([questions[i] for i in routed], llm)
    else:
        found = [classify_rules(questions[i]) for i in routed]
    for i, key in zip(routed, found):
        keys[i] = key
    return keys, routed if routing == "llm" else []


@dataclass(frozen=True)
class _Unit:
    node: str
    doc: str
    page: int | None
    order: int
    unit: str   # passage | heading | table
    text: str


def _units(graph: Graph) -> list[_Unit]:
    def make() -> list[_Unit]:
        out = []
        for node, text, attrs in zip(graph.nodes.ids, graph.nodes.texts,
                                     graph.nodes.attributes):
            data = json.loads(attrs or "{}")
            if "unit" in data:
                out.append(_Unit(node, data["doc_id"], data["page"], data["order"],
                                 data["unit"], text))
        return sorted(out, key=lambda u: (u.doc, u.order))
    if not hasattr(graph, "_structural_units"):
        graph._structural_units = make()   # memo on the graph: built once per collection
    return graph._structural_units


def has_structural_nodes(graph: Graph | None) -> bool:
    return graph is not None and bool(_units(graph))


def _documents(graph: Graph, question: str) -> list[str]:
    """The documents the question names (file name, stem or title), else all of them."""
    docs = [n for n, k in zip(graph.nodes.ids, graph.nodes.kinds) if k == "document"]
    lowered = question.lower()
    named = []
    for doc, kind, title in zip(graph.nodes.ids, graph.nodes.kinds, graph.nodes.texts):
        if kind != "document":
            continue
        name = doc.split("/", 1)[-1].lower()
        stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", lowered) or any(
                len(word) > 3 and re.search(rf"(?<!\w){re.escape(word.lower())}(?!\w)", lowered)
                for word in (stem, title)):
            named.append(doc)
    return named or docs


def _pick(items: list, number: int | None) -> list:
    if number is None or number == 0:
        return items
    index = number - 1 if number > 0 else len(items) + number
    return [items[index]] if 0 <= index < len(items) else []


def structural_visits(query: StructuralQuery, question: str, graph: Graph,
                      budget: int) -> list[Visit]:
    """The content of the structural nodes ``query`` names, in reading order, at most
    ``budget``: a table's markdown (the ``table``-th table of the page or of the document), a
    page's passages and tables, a section's units (from its heading to the next one). The path
    of each visit is ``(page or document node, unit)``."""
    units = _units(graph)
    visits: list[Visit] = []
    for doc in _documents(graph, question):
        mine = [u for u in units if u.doc == doc]
        pages = sorted({u.page for u in mine if u.page is not None})
        page = None
        if query.page is not None:
            page = pages[-1] if query.page == -1 and pages else query.page
            if page not in pages:
                continue
        scope = [u for u in mine if page is None or u.page == page]
        if query.heading is not None:
            scope = _section(scope, query.heading)
        if query.table is not None:
            scope = _pick([u for u in scope if u.unit == "table"], query.table)
        visits.extend(Visit(u.node, (u.node,), 0, 1.0) for u in scope)
    return visits[:budget]


HEADING_MATCH = 85   # rapidfuzz ratio from which a heading is the one the question names


def _section(units: list[_Unit], heading: str) -> list[_Unit]:
    from rapidfuzz import fuzz

    wanted = heading.lower()
    out, inside = [], False
    for u in units:
        if u.unit == "heading":
            inside = False
        if inside:
            out.append(u)
        if u.unit == "heading" and fuzz.ratio(wanted, u.text.lower()) >= HEADING_MATCH:
            inside = True
            out.append(u)
    return out
