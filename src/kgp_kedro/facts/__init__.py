"""Hyper-relational facts out of documents, and the graphs they make (HOLMES §3, §4.2.1).

Contract (used by HOLMES and by EWEK-QA's ToG-E):

- :class:`HyperTriple` ``(subject, relation, object, qualifiers, evidence, subject_type,
  object_type)``: ``qualifiers['source']`` is the title of the document the fact was read from;
  ``evidence`` the sentence (offline extractor; "" from the LLM); types are coarse
  (:data:`TYPES`, "" = unknown). ``verbalise()`` gives the reader's line
  ``context: 'T' subject: 'S' relation: 'R' object: 'O'``.
- :class:`FactExtractor`: ``extract(doc_title, text) -> list[HyperTriple]`` and
  ``extract_many([(title, text), ...])``; ``EXTRACTORS.get(name)(params, **resources)`` builds
  one by name: ``dependency`` (offline default, spaCy's parse, ~ms a document on CPU) or
  ``llm`` (the paper's prompt, A.4.4; needs ``llm=LLMClient``). ``Extractor.Params`` holds the
  options with their defaults.
- :func:`extract_documents` ``(extractor, [(title, text)], cache_dir)``: the same with a
  per-document on-disk cache (:func:`~kgp_kedro.models.cache.cached_map`), keyed by the
  extractor's ``identity()`` and the document's title and text.
- :class:`EntityDocumentGraph` ``.build(doc_ids, titles, mentions)``: documents and the entity
  keys they mention (``documents(entity)``, ``entities_of[doc]``); :func:`fact_graph` turns it
  plus ``{doc_id: [HyperTriple]}`` into a :class:`~kgp_kedro.graphs.model.Graph`: document,
  entity (``entity:<key>``) and fact (``fact:<doc>:<n>``) nodes; ``mentions`` edges, one
  directed edge subject -> object per fact whose ``relation`` is the extracted relation, with
  qualifiers ``{"source": title, "fact": fact id}`` and the sentence as evidence.
"""
from kgp_kedro.facts.base import EXTRACTORS, SPACY_TYPES, TYPES, FactExtractor, HyperTriple
from kgp_kedro.facts.graph import (EntityDocumentGraph, entity_key, entity_node, fact_graph,
                                   fact_node)
from kgp_kedro.facts.store import extract_documents

__all__ = ["EXTRACTORS", "SPACY_TYPES", "TYPES", "EntityDocumentGraph", "FactExtractor",
           "HyperTriple", "entity_key", "entity_node", "extract_documents", "fact_graph",
           "fact_node"]
