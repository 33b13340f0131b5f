"""pooled: every method of ``pooled.methods`` over one collection per source, writing
``retrieved_pooled_<method>``; KGP traverses a KNN KG built through faiss."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.pooled.nodes import build_pooled_graph, pool_questions
from kgp_kedro.pipelines.retrieval import method_pipeline


def create_pipeline(params) -> Pipeline:
    encoder = params.pooled_graph.embeddings
    nodes = [
        node(pool_questions, ["questions", "passages"], ["pooled_questions", "pooled_passages"],
             name="pool_questions"),
        node(build_pooled_graph, ["pooled_passages", f"passage_embeddings_{encoder}",
                                  "params:pooled.graph", "params:pooled.ann",
                                  f"params:embed.encoders.{encoder}"],
             ["kg_nodes_pooled", "kg_edges_pooled"], name="build_pooled_graph"),
    ]
    setting = params.pooled_graph.settings[0][0]
    methods = [method_pipeline(params.methods[m], params, f"retrieved_pooled_{m}",
                               questions="pooled_questions", passages="pooled_passages",
                               graph="pooled", setting=setting, scope="pooled",
                               extra={"ann": "params:pooled.ann"}, namespace=m,
                               llm_questions="pooled_questions")
               for m in params.pooled.methods]
    return Pipeline([*nodes, *methods], tags=["pooled"])
