"""kg pipeline: one namespaced modular pipeline per configured KG variant.

Each variant ``v`` reads ``params:kg.variants.v`` and writes ``kg_edges_v``; the builder kind
(``tfidf``, ``knn``, ``entity``) picks the template. A KNN-MDR variant is a YAML block with
``builder: knn`` and an ``encoder.model`` path.
"""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.kg.nodes import (build_entity_graphs, build_knn_graphs,
                                          build_tfidf_graphs, embed_passages, link_entities)
from kgp_kedro.pipelines import ingest, passages
from kgp_kedro.pipelines.config import load_kg_variants

_TEMPLATES = {
    "tfidf": lambda: [
        node(build_tfidf_graphs, ["passages", "params:variant"], "kg_edges",
             name="build_tfidf_graphs"),
    ],
    "knn": lambda: [
        node(embed_passages, ["passages", "params:variant"], "passage_embeddings",
             name="embed_passages"),
        node(build_knn_graphs, ["passages", "passage_embeddings", "params:variant"], "kg_edges",
             name="build_knn_graphs"),
    ],
    "entity": lambda: [
        node(link_entities, ["passages", "params:variant"], "passage_mentions",
             name="link_entities"),
        node(build_entity_graphs, ["passages", "passage_mentions", "params:variant"], "kg_edges",
             name="build_entity_graphs"),
    ],
}


def variant_pipeline(name: str, builder: str) -> Pipeline:
    """The template of ``builder`` under namespace ``name``, writing ``kg_edges_<name>``."""
    return Pipeline(_TEMPLATES[builder](), namespace=name, inputs={"passages"},
                    outputs={"kg_edges": f"kg_edges_{name}"},
                    parameters={"params:variant": f"params:kg.variants.{name}"})


def create_pipeline(**kwargs) -> Pipeline:
    return sum((variant_pipeline(name, spec["builder"])
                for name, spec in load_kg_variants().items()), Pipeline([]))


def graphs_from_raw() -> Pipeline:
    """ingest + passages + kg: what every downstream pipeline carries, since
    ``kedro run --pipeline=X`` imports only ``pipelines/X/``."""
    return ingest.create_pipeline() + passages.create_pipeline() + create_pipeline()
