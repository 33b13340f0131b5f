"""embed: one node per encoder, ``passages`` -> ``passage_embeddings_<encoder>``."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.embed.nodes import embed


def create_pipeline(params) -> Pipeline:
    return Pipeline([
        Pipeline([node(embed, ["passages", "params:encoder"], "embeddings",
                       name="embed_passages")],
                 namespace=name, inputs={"passages"},
                 outputs={"embeddings": f"passage_embeddings_{name}"},
                 parameters={"params:encoder": f"params:embed.encoders.{name}"})
        for name in params.embed.encoders], tags=["embed"])
