"""The fact-extractor interface: ``extract(doc_title, text) -> list[HyperTriple]``."""
from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from kgp_kedro.config.base import Params
from kgp_kedro.plumbing.registry import Registry

# coarse entity types shared by the extractors and the HOLMES schema (type match, §4.2.2);
# "" is an unknown type, which matches any type
TYPES = ("person", "organization", "location", "date", "number", "work", "event", "group",
         "thing", "")

# spaCy NER labels -> coarse types
SPACY_TYPES = {
    "PERSON": "person", "ORG": "organization", "NORP": "group", "GPE": "location",
    "LOC": "location", "FAC": "location", "DATE": "date", "TIME": "date", "CARDINAL": "number",
    "QUANTITY": "number", "MONEY": "number", "PERCENT": "number", "ORDINAL": "number",
    "WORK_OF_ART": "work", "PRODUCT": "thing", "EVENT": "event", "LAW": "work",
    "LANGUAGE": "group",
}


@dataclass(frozen=True)
class HyperTriple:
    """A hyper-relational fact ``(subject, relation, object, qualifiers)`` (HOLMES §3): the
    qualifiers hold at least ``source``, the title of the document it was extracted from.
    ``evidence`` is the sentence it was read from; ``subject_type`` / ``object_type`` a coarse
    type of :data:`TYPES` ("" when unknown)."""

    subject: str
    relation: str
    object: str
    qualifiers: dict[str, str] = field(default_factory=dict)
    evidence: str = ""
    subject_type: str = ""
    object_type: str = ""

    @property
    def source(self) -> str:
        return self.qualifiers.get("source", "")

    def verbalise(self, qualifiers: bool = True) -> str:
        """The fact as one delimited sentence (§4.2.3, as in the paper's case study, A.6):
        ``context: 'T' subject: 'S' relation: 'R' object: 'O'``; ``qualifiers=False`` drops the
        context (the triples-without-qualifiers ablation)."""
        head = f"context: '{self.source}' " if qualifiers else ""
        return (f"{head}subject: '{self.subject}' relation: '{self.relation}' "
                f"object: '{self.object}'")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "HyperTriple":
        return cls(**raw)


def encode_triples(triples: Sequence[HyperTriple]) -> str:
    return json.dumps([t.to_json() for t in triples], ensure_ascii=False)


def decode_triples(raw: Any) -> list[HyperTriple]:
    if not isinstance(raw, str):
        raise ValueError("not a JSON triple list")
    return [HyperTriple.from_json(t) for t in json.loads(raw)]


class FactExtractor(ABC):
    """Triples out of one document. A module defines a subclass registered with
    ``@EXTRACTORS.register("<name>")``; its ``Params`` model holds its options."""

    name: ClassVar[str]
    Params: ClassVar[type[Params]]
    needs_llm: ClassVar[bool] = False   # True: built with the LLM client (resource ``llm``)

    def __init__(self, params: Params | None = None, **resources: Any) -> None:
        self.params = params if params is not None else self.Params()

    @abstractmethod
    def extract(self, doc_title: str, text: str) -> list[HyperTriple]:
        """The hyper triples of one document, each with ``qualifiers['source'] == doc_title``."""

    def extract_many(self, documents: Sequence[tuple[str, str]]) -> list[list[HyperTriple]]:
        """:meth:`extract` of each ``(title, text)``; extractors that batch override it."""
        return [self.extract(title, text) for title, text in documents]

    @abstractmethod
    def identity(self) -> dict[str, Any]:
        """Everything that changes the output (model, options, code): the cache key."""


EXTRACTORS: Registry[FactExtractor] = Registry("fact extractor", "kgp_kedro.facts.extractors")
