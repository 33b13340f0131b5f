"""Entity linkers for the TAGME KG (paper §3): the TagMe API, and an offline default.

Both return, for each passage text, a list of :class:`Mention`. A mention's ``score`` plays
the role of the reference code's prior threshold: the TagMe linker reports the API's
``rho`` confidence, and the offline linker leaves it ``None`` so that
:func:`kgp_kedro.graphs.builders.entity.build_entity_graph` scores it inside the collection.
"""
from __future__ import annotations

import logging
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from tqdm.auto import tqdm

logger = logging.getLogger(__name__)

_TOKEN = re.compile(r"\w+", re.UNICODE)
_POSSESSIVE = re.compile(r"['’]s\b")
_DISAMBIGUATION = re.compile(r"\s*\([^)]*\)\s*$")

# spaCy NER labels that name things; numbers and dates would join unrelated passages
DEFAULT_LABELS = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT",
                  "WORK_OF_ART", "LAW", "LANGUAGE")


def strip_disambiguation(title: str) -> str:
    """A Wikipedia-style title without its disambiguation suffix: 'Get Low (song)' -> 'Get Low'."""
    return _DISAMBIGUATION.sub("", title)


def normalise_entity(text: str) -> str:
    """Canonical key of an entity mention: lower-cased word tokens, possessive and leading
    article dropped ("The Simpsons'" and "the simpsons" give "simpsons")."""
    tokens = _TOKEN.findall(_POSSESSIVE.sub("", text).lower())
    if len(tokens) > 1 and tokens[0] in ("the", "a", "an"):
        tokens = tokens[1:]
    return " ".join(tokens)


def entity_tokens(text: str) -> list[str]:
    """The token sequence that entity keys are matched against."""
    return _TOKEN.findall(_POSSESSIVE.sub("", text).lower())


@dataclass(frozen=True)
class Mention:
    """A linked span: ``entity`` is the key two passages must share to be joined."""

    surface: str
    entity: str
    score: float | None = None


class EntityLinker(Protocol):
    name: str

    def annotate(self, texts: Sequence[str]) -> list[list[Mention]]:
        """Mentions found in each text."""


@lru_cache(maxsize=2)
def _spacy_ner(model: str):
    import spacy

    return spacy.load(model, disable=["tagger", "parser", "attribute_ruler", "lemmatizer"])


class OfflineEntityLinker:
    """Named-entity mentions from a spaCy model shipped on PyPI (no network).

    Each mention becomes the entity of its normalised surface form. Unlike TagMe, nothing
    resolves two surface forms to one Wikipedia page here; the collection's document titles
    are matched as a gazetteer by the graph builder, which links "Alf Clausen" passages to the
    "Alf Clausen" document.
    """

    name = "offline"

    def __init__(self, spacy_model: str, labels: Sequence[str], batch_size: int) -> None:
        self.spacy_model = spacy_model
        self.labels = set(labels)
        self.batch_size = batch_size

    def annotate(self, texts: Sequence[str]) -> list[list[Mention]]:
        nlp = _spacy_ner(self.spacy_model)
        result = []
        for doc in tqdm(nlp.pipe(texts, batch_size=self.batch_size), total=len(texts),
                        desc="entity mentions", leave=False, disable=None):
            mentions = []
            for ent in doc.ents:
                key = normalise_entity(ent.text)
                if ent.label_ in self.labels and key:
                    mentions.append(Mention(surface=ent.text, entity=key))
            result.append(mentions)
        return result


class TagMeEntityLinker:
    """The TagMe Wikipedia entity linker (through the ``tagme`` package; needs a token).

    The token comes from the ``token`` argument or the ``TAGME_TOKEN`` environment variable
    (``conf/local/credentials.yml`` in the pipelines). Mentions carry the annotation's
    ``rho`` as score; the entity is the Wikipedia title.
    """

    name = "tagme"

    def __init__(self, lang: str, token: str | None = None) -> None:
        self.token = token or os.environ.get("TAGME_TOKEN")
        if not self.token:
            raise ValueError("the TagMe linker needs a gcube token: set TAGME_TOKEN or "
                             "credentials 'tagme: {token: ...}' in conf/local/credentials.yml")
        self.lang = lang

    def annotate(self, texts: Sequence[str]) -> list[list[Mention]]:
        import tagme

        result = []
        for text in tqdm(texts, desc="TagMe", leave=False, disable=None):
            response = tagme.annotate(text, gcube_token=self.token, lang=self.lang)
            if response is None:
                raise RuntimeError(f"TagMe returned no annotation for passage {text[:60]!r}")
            result.append([Mention(surface=a.mention, entity=a.entity_title, score=a.score)
                           for a in response.get_annotations(0.0) if a.entity_title])
        return result


def make_linker(backend: str, **options) -> EntityLinker:
    """The linker named by ``backend`` (``offline`` or ``tagme``)."""
    if backend == "offline":
        return OfflineEntityLinker(**options)
    if backend == "tagme":
        return TagMeEntityLinker(**options)
    raise ValueError(f"unknown entity linker {backend!r}; expected 'offline' or 'tagme'")
