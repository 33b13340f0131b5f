"""kg: one namespace per KG variant of ``kg.variants``, writing ``kg_nodes_<variant>`` and
``kg_edges_<variant>``; the builder (a registered class) decides the extra inputs: its own
per-passage features, passage embeddings."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.kg.nodes import build_graphs, featurize_passages


def variant_pipeline(variant) -> Pipeline:
    name = variant.name
    inputs = {"passages": "passages", "variant": "params:variant",
              "cache_dir": "params:kg.cache_dir"}
    outputs = {"kg_nodes": f"kg_nodes_{name}", "kg_edges": f"kg_edges_{name}"}
    nodes = []
    if variant.builder.features:
        features = f"passage_{variant.builder.features}_{name}"
        nodes.append(node(bound(featurize_passages, name=name), ["passages", "params:variant"],
                          "features", name=f"find_{variant.builder.features}"))
        inputs["features"] = "features"
        outputs["features"] = features
    free = {"passages"}
    parameters = {"params:variant": f"params:kg.variants.{name}",
                  "params:kg.cache_dir": "params:kg.cache_dir"}
    if variant.embeddings is not None:
        inputs["embeddings"] = f"passage_embeddings_{variant.embeddings}"
        inputs["encoder"] = "params:encoder"
        free.add(inputs["embeddings"])
        parameters["params:encoder"] = f"params:embed.encoders.{variant.embeddings}"
    nodes.append(node(bound(build_graphs, name=name), inputs, ["kg_nodes", "kg_edges"],
                      name="build_graphs"))
    return Pipeline(nodes, namespace=name, inputs=free, outputs=outputs, parameters=parameters,
                    tags=["kg"])


def create_pipeline(params) -> Pipeline:
    return sum((variant_pipeline(v) for v in params.variants.values()), Pipeline([]))
