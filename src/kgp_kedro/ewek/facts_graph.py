"""The entity-relation graph of one collection for ToG-E: HOLMES' fact graph
(:func:`kgp_kedro.facts.fact_graph`) over the collection's documents, each triple's evidence
sentence located in the passage that holds it."""
from __future__ import annotations

from collections.abc import Sequence

from kgp_kedro.ewek.quotes import Page, _passage_of
from kgp_kedro.ewek.tog import RelationGraph
from kgp_kedro.facts import EXTRACTORS, EntityDocumentGraph, extract_documents, fact_graph


def make_extractor(name: str, llm=None):
    """The registered fact extractor ``name`` with its default options (and ``llm``, the LLM
    client, when it needs one)."""
    cls = EXTRACTORS.get(name)
    return cls(cls.Params(), **({"llm": llm} if cls.needs_llm else {}))


def page_text(page: Page) -> str:
    return "\n".join(" ".join(s.text for s in para) for para in page.paragraphs)


def collection_relation_graph(pages: Sequence[Page], extractor,
                              cache_dir: str | None) -> RelationGraph:
    """The relation view of the collection's fact graph; a triple's evidence is the passage
    of its document holding its sentence (the document's best-overlapping passage else)."""
    pages = [p for p in pages if p.paragraphs]
    triples = extract_documents(extractor, [(p.title, page_text(p)) for p in pages], cache_dir)
    edg = EntityDocumentGraph.build([p.doc_id for p in pages], [p.title for p in pages],
                                    [[] for _ in pages])
    sentences = {p.doc_id: [(s.passage_id, s.text) for _, s in p.sentences()
                            if s.passage_id is not None] for p in pages}

    def locate(qualifiers: dict, evidence: str) -> tuple[str, ...]:
        doc = str(qualifiers.get("fact", "")).removeprefix("fact:").rsplit(":", 1)[0]
        found = _passage_of(evidence, sentences.get(doc, []), 0) if evidence else None
        return () if found is None else (sentences[doc][found][0],)

    graph = fact_graph(edg, {p.doc_id: t for p, t in zip(pages, triples)})
    return RelationGraph(graph, locate)
