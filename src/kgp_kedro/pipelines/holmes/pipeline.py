"""holmes: auxiliary schema (once), entity–document graphs, hyper triples, schema, pruned facts,
then one answer node per ``holmes.methods`` entry writing ``answers_<method>`` (and, for a
method that reads facts, ``holmes_read_<method>``: what its reader read, which the report
stage records). With ``holmes.replay`` a fact-reading method's reader reads that recording
instead, and none of the KG stages runs."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.holmes.nodes import (answer_base, answer_with_facts, build_schema,
                                              extract_hyper_triples, link_entities,
                                              mine_auxiliary, prune_facts, replay_with_facts)


def create_pipeline(params) -> Pipeline:
    holmes = params.holmes
    if not holmes.methods:   # an env that selects no HOLMES method (`holmes: {methods: {}}`)
        return Pipeline([])
    encoder = f"params:embed.encoders.{holmes.encoder}"
    nodes = [] if holmes.replay else [
        node(mine_auxiliary, ["questions", "qa_questions", "params:holmes"] + (
            [encoder, "params:llm"] if holmes.auxiliary.miner().needs_models else []),
             "holmes_auxiliary_schema", name="mine_auxiliary_schema"),
        node(link_entities, ["qa_questions", "documents", "params:holmes"],
             "holmes_entity_documents", name="link_entities"),
        node(extract_hyper_triples, ["qa_questions", "documents", "holmes_entity_documents",
                                     "params:holmes", "params:llm"],
             "holmes_hyper_triples", name="extract_hyper_triples"),
        node(build_schema, ["qa_questions", "holmes_entity_documents", "holmes_auxiliary_schema",
                            "params:holmes", encoder, "params:llm"],
             "holmes_schema", name="build_schema"),
        node(prune_facts, ["holmes_hyper_triples", "holmes_schema", "params:holmes", encoder],
             "holmes_pruned_facts", name="prune_facts"),
    ]
    for name, method in holmes.methods.items():
        outputs = [f"answers_{name}", f"holmes_read_{name}"]
        if method.method().reads_facts and holmes.replay:
            func = bound(replay_with_facts, name=name)
            inputs = ["qa_questions", "passages", "params:holmes", "params:llm", "params:read"]
        elif method.method().reads_facts:
            func = bound(answer_with_facts, name=name)
            inputs = ["qa_questions", "holmes_pruned_facts", "holmes_schema",
                      "holmes_entity_documents", "holmes_hyper_triples", "documents",
                      "passages", "params:holmes", encoder, "params:llm", "params:read"]
        else:
            outputs = f"answers_{name}"
            func = bound(answer_base, name=name)
            inputs = ["qa_questions", "documents", "passages", "params:holmes", "params:llm",
                      "params:read"]
        nodes.append(node(func, inputs, outputs, name=f"answer_{name}"))
    return Pipeline(nodes, tags=["holmes"])
