"""ewek: train the reranker (unless ``ewek.rerank.cross_encoder`` names one), answer every QA
question with each ``ewek.methods`` entry (``answers_<method>``, scored by the score stage),
and summarise citations, LLM calls and rerank recall. ``ewek_composed`` (what each composer
read) is what the report stage records and ``ewek.replay`` reads back."""
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.ewek.nodes import answer_with_ewek, summarise_ewek, train_reranker


def create_pipeline(params) -> Pipeline:
    ewek = params.ewek
    if not ewek.methods:   # an env that selects no EWEK-QA method (`ewek: {methods: {}}`)
        return Pipeline([])
    answers = [f"answers_{m}" for m in ewek.methods]
    inputs = {"qa_questions": "qa_questions", "documents": "documents", "passages": "passages",
              "ewek": "params:ewek", "encoder": f"params:embed.encoders.{ewek.encoder}",
              "llm": "params:llm", "read": "params:read"}
    nodes = []
    if ewek.rerank.cross_encoder is None and not ewek.replay:   # a replay reranks nothing
        nodes.append(node(train_reranker, ["questions", "documents", "passages", "qa_questions",
                                           "params:ewek", f"params:embed.encoders.{ewek.encoder}",
                                           "params:passages"],
                          ["ewek_cross_encoder", "ewek_training"], name="train_reranker"))
        inputs.update(cross_encoder="ewek_cross_encoder", training="ewek_training")
    nodes.append(node(answer_with_ewek, inputs,
                      ["ewek_quotes", "ewek_triples", "ewek_composed", *answers], name="answer"))
    nodes.append(node(summarise_ewek, ["ewek_quotes", "passages", "params:ewek", *answers],
                      ["ewek_summary", "ewek_rerank_recall"], name="summarise"))
    return Pipeline(nodes, tags=["ewek"])
