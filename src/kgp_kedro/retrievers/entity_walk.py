"""Entity walk (beyond the KGP paper; HippoRAG 2 / LinearRAG style, no LLM): personalized
PageRank over the collection's entity–passage graph (:mod:`kgp_kedro.graphs.entity_passage`)
from the question's entities and every passage's seed score; passages ranked by their PPR mass.

Defaults and where they come from:

- ``damping`` 0.5: HippoRAG and HippoRAG 2 run igraph's personalized PageRank with damping 0.5.
- ``passage_weight`` 0.05 and ``seeds_from`` dense: HippoRAG 2 puts every passage in the reset
  vector with its dense-retrieval score, min-max normalised, times the passage node weight
  0.05, beside the phrase (entity) nodes. The ``hipporag`` env sets 0.02, chosen on the train
  files in HippoRAG 2's setting and judged on its dev questions (docs/entity-walk.md).
- entity reset ``1 / |passages of the entity|``: HippoRAG's node specificity (HippoRAG 2
  keeps it); HippoRAG 2 also weights a phrase by its fact's score, and there are no facts here
  (no LLM), so that factor is 1.
- ``links`` 0: no passage–passage edge, as in HippoRAG 2 (its graph links phrases and
  passages; LinearRAG links entities, sentences and passages). Chosen on the bundled train
  files (30 questions a source, ``bench_recall.py --split train``): 10 links at cosine >= 0.8
  gave mean document recall@5 .680 over the three sources against .691 without links, and 10
  at >= 0.5 less still. With ``links`` above 0, ``link_min_similarity`` 0.8 is HippoRAG 2's
  synonym-edge threshold, applied to the passage cosine.
- the entities: the TAGME KG's offline linker and link-probability threshold
  (``prior_threshold`` 0.8, the reference code's prior; ``max_entity_tokens``,
  ``same_document`` as the KG builder), as LinearRAG builds its graph from spaCy entities.

A run's questions are scored ``batch_size`` at a time: their seed scores together (one encoder
call for a batch with dense seeds), then one power iteration per collection over all its
questions (the pooled setting's questions share one). Each collection's graph is built by
:meth:`EntityWalk.prepare`, before a question's clock starts (index-time work, as the faiss
index); the passage mentions come from the linker's disk cache shared with the ``kg`` stage.

``routing`` (off by default; rules in the ask env) sends a structural question ("the table on
page 2 of lease.pdf") to its structural nodes of the KG of ``retrieve.graph``, as KGP's router
does (:func:`kgp_kedro.retrievers.structural.route`); the other questions are walked.
"""
from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Annotated

import numpy as np
from pydantic import Field

from kgp_kedro.config.base import Fraction, NonNegInt, Params, PosInt
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs.builders.entity import LinkerParams, find_mentions
from kgp_kedro.graphs.entity_passage import (EntityPassageGraph, build_entity_passage_graph,
                                             mentions_of)
from kgp_kedro.retrievers.base import (RETRIEVERS, Requirements, Resources, Retriever, Visit,
                                       ranked_visits)
from kgp_kedro.retrievers.structural import Routing, route, structural_visits
from kgp_kedro.search.ppr import personalized_pagerank
from kgp_kedro.search.ranking import top_k
from kgp_kedro.retrievers.seeding import SeedSource, seed_scores

logger = logging.getLogger(__name__)

Damping = Annotated[float, Field(ge=0.0, lt=1.0)]
NonNegFloat = Annotated[float, Field(ge=0.0)]

GRAPH_FIELDS = {"links", "link_min_similarity", "prior_threshold", "max_entity_tokens",
                "same_document", "table_subjects", "linker"}


class EntityWalkOptions(Params):
    """The entity walk's graph and PPR options (the retriever's and the ``ppr`` agent's)."""

    seeds_from: SeedSource = "dense"      # HippoRAG 2: dense passage scores in the reset
    damping: Damping = 0.5                # HippoRAG / HippoRAG 2: PPR damping 0.5
    passage_weight: NonNegFloat = 0.05    # HippoRAG 2: passage node weight 0.05
    links: NonNegInt = 0                  # passage–passage neighbours (0: none, as HippoRAG 2)
    link_min_similarity: float = 0.8      # HippoRAG 2's synonym-edge threshold, on passages
    prior_threshold: Fraction = 0.8       # the TAGME KG's link-probability threshold
    max_entity_tokens: PosInt = 8         # longest entity matched in a passage or question
    same_document: bool = True            # a passage also joins its document's title node
    # a table passage also joins its rows' subjects (first cells), whatever the linker finds
    # (graphs/entity_passage.py); off here (the qa sources have no tables), on in the ask env,
    # chosen on an analyst folder (docs/ask.md)
    table_subjects: bool = False
    linker: LinkerParams = Field(default_factory=LinkerParams)
    tol: NonNegFloat = 1e-8               # power iteration: stop at this L1 change
    max_iter: PosInt = 100

    def requirements(self) -> Requirements:
        """Passage embeddings (and their encoder) for dense seeds or passage links."""
        return Requirements(embeddings=self.seeds_from == "dense" or self.links > 0)


class PprScorer:
    """PPR masses of the passages of each (question, collection) over the collection's
    entity–passage graph; the graphs are built once per collection (:meth:`prepare`)."""

    def __init__(self, options: EntityWalkOptions,
                 encode: Callable[[Sequence[str]], np.ndarray], resources: Resources) -> None:
        self.options, self.encode = options, encode
        self.device = resources.encoder.device if resources.encoder is not None else "cpu"
        self.key = ("entity passage graph", options.model_dump_json(include=GRAPH_FIELDS))

    def prepare(self, collections: Sequence[Collection]) -> None:
        """Build the graph of every collection that has none yet, linking the passages of all
        of them in one linker call (cached mentions are reused)."""
        todo = list({id(c): c for c in collections
                     if c.passage_ids and not c.built(self.key)}.values())
        if not todo:
            return
        texts = list(dict.fromkeys(t for c in todo for t in c.texts))
        found = dict(zip(texts, find_mentions(texts, self.options.linker)))
        for c in todo:
            self.graph(c, found)

    def graph(self, collection: Collection,
              found: dict | None = None) -> EntityPassageGraph:
        """The collection's graph, built on first use (``found``: its texts' mentions)."""
        def build() -> EntityPassageGraph:
            o = self.options
            mentions = (mentions_of(collection, found) if found is not None
                        else find_mentions(collection.texts, o.linker))
            graph = build_entity_passage_graph(collection, mentions, o.prior_threshold,
                                               o.max_entity_tokens, o.same_document, o.links,
                                               o.link_min_similarity, o.table_subjects)
            logger.debug("%s: entity-passage graph of %d passages, %d entities, %d links",
                         collection.collection_id, graph.n_passages, len(graph.entities),
                         graph.n_links)
            return graph
        return collection.memo(self.key, build)

    def masses(self, questions: Sequence[str],
               collections: Sequence[Collection]) -> list[np.ndarray]:
        """The PPR mass of every passage of each question's collection (table order)."""
        o = self.options
        self.prepare(collections)
        seeds = seed_scores(questions, collections, o.seeds_from, self.encode, self.device)
        groups: dict[int, list[int]] = defaultdict(list)
        for i, c in enumerate(collections):
            groups[id(c)].append(i)
        out: list[np.ndarray] = [np.zeros(0)] * len(questions)
        for members in groups.values():
            graph = self.graph(collections[members[0]])
            reset = np.column_stack([graph.reset(questions[i], seeds[i], o.passage_weight)
                                     for i in members])
            mass = personalized_pagerank(graph.transition, graph.dangling, reset, o.damping,
                                         o.tol, o.max_iter)
            for column, i in enumerate(members):
                out[i] = mass[:graph.n_passages, column]
        return out


@RETRIEVERS.register("entity_walk")
class EntityWalk(Retriever):
    """Passages ranked by personalized PageRank mass over the entity–passage graph (module)."""

    class Params(EntityWalkOptions):
        batch_size: PosInt = 64           # questions scored together
        # structural questions to the structural nodes of retrieve.graph's KG (files with
        # pages, tables or headings): rules | llm | off (off: no KG needed)
        routing: Routing = "off"

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        return params.requirements() | Requirements(graph=params.routing != "off",
                                                    llm=params.routing == "llm")

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        self.scorer = PprScorer(params, self.encode_questions, resources)

    @property
    def batch_size(self) -> int:
        return self.params.batch_size

    def prepare(self, collections: Sequence[Collection]) -> None:
        self.scorer.prepare(collections)

    def search(self, question: str, collection: Collection) -> list[Visit]:
        return self.retrieve_batch([question], [collection])[0]

    def retrieve_batch(self, questions: Sequence[str],
                       collections: Sequence[Collection]) -> list[list[Visit]]:
        live = [i for i, c in enumerate(collections) if c.passage_ids]
        out: list[list[Visit]] = [[] for _ in questions]
        charged = [0] * len(questions)
        keys, asked = route([questions[i] for i in live], [collections[i] for i in live],
                            self.params.routing, self.resources.llm)
        self.calls += len(asked)
        for j in asked:                   # the LLM classified each routed question once
            charged[live[j]] += 1
        for i, key in zip(live, keys):
            if key is not None:
                out[i] = structural_visits(key, questions[i], collections[i].graph, self.budget)
        live = [i for i, key in zip(live, keys) if key is None]
        before = self.calls
        masses = (self.scorer.masses([questions[i] for i in live],
                                     [collections[i] for i in live]) if live else [])
        # the one encoder call (dense seeds) served every walked question of the batch
        for i in live:
            charged[i] += self.calls - before
        self.batch_calls = charged
        for i, mass in zip(live, masses):
            out[i] = ranked_visits(collections[i], *top_k(mass, self.budget))
        return out
