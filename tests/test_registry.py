"""Adding a KG builder, a retriever or a traversal agent is one module plus one YAML block: toy
ones, registered here with the registries' decorators, are accepted by the parameter validation
when a YAML block names them, run on a real bundled collection, and are unregistered after."""
from __future__ import annotations

import copy
from collections.abc import Sequence
from contextlib import contextmanager

import numpy as np
import pytest
import yaml

from kgp_kedro.retrievers.agents import AGENTS, TraversalAgent
from kgp_kedro.config import ParameterError, Params
from kgp_kedro.config.base import NonNegInt, PosInt
from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.corpus.collection import Collection, iter_collections
from kgp_kedro.graphs import BUILDERS, Edges, Graph, GraphBuilder, Nodes
from kgp_kedro.graphs.build import GraphTables, build_variant
from kgp_kedro.plumbing.registry import Registry
from kgp_kedro.retrievers import RETRIEVERS, Resources, Retriever, Visit
from kgp_kedro.retrievers.run import retrieve_all
from kgp_kedro.search.tfidf import TfidfIndex
from tests.config.test_parameters import shipped

# the YAML a user would add to conf/base/parameters_kg.yml and parameters_retrieve.yml
BLOCKS = yaml.safe_load("""
kg:
  variants:
    toy:
      builder: toy_chain
      relation: follows
      sweep:
        step: [1, 2]
retrieve:
  graph: {variant: toy, setting: {step: 2}}
  methods:
    lead: {method: toy_lead, offset: 1}
    kgp_toy: {method: kgp, mode: distinct, seeds: 2, branching_factor: 1, max_hops: 3,
              agent: {kind: toy_shortest}}
""")
NAMES = {"toy_chain": BUILDERS, "toy_lead": RETRIEVERS, "toy_shortest": AGENTS}


@contextmanager
def toys():
    """The three toy classes, each registered by its decorator, as a module of their own would;
    unregistered on the way out."""
    try:
        @BUILDERS.register("toy_chain")
        class ChainBuilder(GraphBuilder):
            """Passage i is joined to passage i + step (in table order)."""

            class Params(Params):
                step: PosInt = 1
                relation: str = "next"

            def build(self, collection: Collection, setting: Params) -> Graph:
                n = len(collection)
                src = np.arange(max(n - setting.step, 0))
                return Graph(Nodes.of_passages(collection.passage_ids, collection.texts),
                             Edges.uniform(src, src + setting.step, np.ones(len(src)),
                                           [""] * len(src), setting.relation, directed=False))

        @RETRIEVERS.register("toy_lead")
        class LeadRetriever(Retriever):
            """The collection's passages in table order, from ``offset`` on."""

            class Params(Params):
                offset: NonNegInt = 0

            def search(self, question: str, collection: Collection) -> list[Visit]:
                ids = collection.passage_ids[self.params.offset:][:self.budget]
                return [Visit(p, (p,), 0, 1.0 / (rank + 1)) for rank, p in enumerate(ids)]

        @AGENTS.register("toy_shortest")
        class ShortestAgent(TraversalAgent):
            """Prefers the shortest candidate passage."""

            class Params(Params):
                pass

            def score(self, question: str, path: Sequence[str], candidates: Sequence[str],
                      collection: Collection) -> np.ndarray:
                self.calls += 1
                return -np.array([len(collection.text_of[c]) for c in candidates], dtype=float)

        yield ChainBuilder, LeadRetriever, ShortestAgent
    finally:
        for name, registry in NAMES.items():
            registry.unregister(name)


def _with_blocks() -> dict:
    raw = copy.deepcopy(shipped())
    raw["kg"]["variants"].update(BLOCKS["kg"]["variants"])
    raw["retrieve"]["graph"] = BLOCKS["retrieve"]["graph"]
    raw["retrieve"]["methods"].update(BLOCKS["retrieve"]["methods"])
    return raw


def test_toy_builder_retriever_and_agent_run_from_their_yaml_blocks(hotpot_passages):
    questions, passages = hotpot_passages
    questions = questions.head(3)
    passages = passages[passages["collection_id"].isin(questions["collection_id"])]
    raw = _with_blocks()
    with toys() as (ChainBuilder, LeadRetriever, ShortestAgent):
        assert {"toy_chain", "toy_lead", "toy_shortest"} <= \
            set(BUILDERS.names()) | set(RETRIEVERS.names()) | set(AGENTS.names())
        params = validate_parameters(raw)

        # the builder: one graph per collection and swept setting
        variant = params.variants["toy"]
        assert variant.builder is ChainBuilder and variant.params.relation == "follows"
        assert [label for label, _ in variant.settings] == ["step=1", "step=2"]
        assert params.graph_setting == "step=2"
        nodes, edges = build_variant(passages, variant.make_builder(), variant.settings, "toy")
        sizes = passages.groupby("collection_id").size()
        assert len(nodes) == sizes.sum() and (edges["relation"] == "follows").all()
        counts = edges.groupby(["collection_id", "setting"]).size()
        for cid, n in sizes.items():
            assert counts[(cid, "step=1")] == n - 1 and counts[(cid, "step=2")] == n - 2
        tables = GraphTables(nodes, edges)

        # the retriever: the passages from the second on, up to the budget
        lead = params.methods["lead"]
        assert lead.retriever is LeadRetriever and lead.params.offset == 1
        table = retrieve_all(questions, passages, lead, 5)
        for cid, group in table.groupby("collection_id"):
            ids = passages.loc[passages["collection_id"] == cid, "passage_id"].tolist()
            assert group.sort_values("rank")["passage_id"].tolist() == ids[1:6]

        # the agent, inside KGP over the toy graph (step 2): TF-IDF seeds, then each step goes
        # two passages on or back, to the shorter passage
        method = params.methods["kgp_toy"]
        kgp = method.retriever(method.params, Resources(8))
        assert isinstance(kgp.agent, ShortestAgent)
        retrieved = retrieve_all(questions, passages, method, 8, graphs=tables,
                                 setting=params.graph_setting)
        assert set(retrieved["question_id"]) == set(questions["question_id"])
        for q in questions.itertuples():
            collection = next(c for c in iter_collections(passages)
                              if c.collection_id == q.collection_id)
            rows = retrieved[retrieved["question_id"] == q.question_id].sort_values("rank")
            seeds, _ = TfidfIndex(collection.texts).search(q.question, 2)
            assert rows["passage_id"].tolist()[:2] == [collection.passage_ids[i] for i in seeds]
            assert 2 < len(rows) <= 8 and (rows["hop"].iloc[2:] >= 1).all()
            position = collection.position_of
            for row in rows.iloc[2:].itertuples():
                path = row.path.split(" > ")
                assert path[-1] == row.passage_id
                assert abs(position[path[-1]] - position[path[-2]]) == 2
                assert row.score == -len(collection.text_of[row.passage_id])
            assert (rows["calls"] > 0).all()

    # unregistered: the same YAML blocks now name nothing
    for name, registry in NAMES.items():
        assert name not in registry.names()
    with pytest.raises(ParameterError) as info:
        validate_parameters(raw)
    assert info.value.key == "kg.variants.toy.builder"


def test_a_name_is_registered_once_and_can_be_forgotten():
    registry: Registry[object] = Registry("toy", "tests.config")

    @registry.register("one")
    class One:
        pass

    assert registry.get("one") is One and One.name == "one"
    assert registry.register("one")(One) is One  # the same class again is fine
    with pytest.raises(ValueError, match="registered twice"):
        @registry.register("one")
        class Other:
            pass
    registry.unregister("one")
    with pytest.raises(KeyError, match="unknown toy 'one'"):
        registry.get("one")
    registry.unregister("one")  # forgetting an unknown name is a no-op
