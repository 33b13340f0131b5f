"""The retrieval node of one configured method and its namespaced pipeline, shared by the
retrieve and pooled stages (a stage imports no other stage)."""
from __future__ import annotations

from typing import Any

import pandas as pd
from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.models.loading import load_models
from kgp_kedro.retrievers.base import trained_name
from kgp_kedro.retrievers.run import retrieve_all


def with_trained(block: Any, folders: dict[str, str]) -> Any:
    """``block`` with every ``trained:<name>`` option replaced by that model's folder."""
    if isinstance(block, dict):
        return {k: with_trained(v, folders) for k, v in block.items()}
    name = trained_name(block) if isinstance(block, str) else None
    return folders[name] if name in folders else block


def retrieve_passages(questions: pd.DataFrame, passages: pd.DataFrame, method: dict[str, Any],
                      budget: int, name: str, setting: str | None = None,
                      nodes: pd.DataFrame | None = None, edges: pd.DataFrame | None = None,
                      embeddings: pd.DataFrame | None = None,
                      encoder: dict[str, Any] | None = None, llm: dict[str, Any] | None = None,
                      ann: dict[str, Any] | None = None, scope: str = "per_question",
                      **trained: str) -> pd.DataFrame:
    """``retrieved_<name>``: the method's ranked passages for every question, with the path,
    hop, latency and model calls; ``nodes``/``edges`` are the KG (``setting`` of it),
    ``embeddings`` the passage embeddings of ``encoder``, ``llm`` the LLM parameters: each
    given only when the method requires it; ``trained_<name>`` the folder of the train stage's
    model that a ``model: trained:<name>`` option names."""
    spec = parse_method(name, with_trained(method, {k.removeprefix("trained_"): v
                                                    for k, v in trained.items()}),
                        f"retrieve.methods.{name}")
    encoder_model, client = load_models(encoder, llm)
    graphs = GraphTables(nodes, edges) if edges is not None else None
    lookup = EmbeddingLookup(embeddings, encoder["model"]) if embeddings is not None else None
    return retrieve_all(questions, passages, spec, int(budget), encoder_model, client, graphs,
                        setting, lookup, ann, scope)


def method_pipeline(method, params, output: str, questions: str = "questions",
                    passages: str = "passages", graph: str | None = None,
                    setting: str | None = None, extra: dict | None = None,
                    scope: str = "per_question", namespace: str | None = None,
                    llm_questions: str = "qa_questions") -> Pipeline:
    """The retrieval node of one method under its own namespace: questions, passages, its YAML
    block and the budget, plus whatever its requirements add (``graph`` names the KG whose
    ``kg_nodes_<graph>`` / ``kg_edges_<graph>`` it traverses at ``setting``; ``extra`` adds
    parameter inputs, e.g. the pooled setting's faiss options). Methods that call the LLM
    and those asked to run on the QA questions only read ``llm_questions`` instead of
    ``questions``."""
    needs = method.requirements
    inputs = {"questions": llm_questions if needs.on_qa_questions else questions,
              "passages": passages,
              "method": f"params:retrieve.methods.{method.name}",
              "budget": "params:retrieve.budget", **(extra or {})}
    if needs.graph:
        inputs["nodes"], inputs["edges"] = f"kg_nodes_{graph}", f"kg_edges_{graph}"
    if needs.embeddings:
        encoder = params.retrieve.embeddings
        inputs["embeddings"] = f"passage_embeddings_{encoder}"
        inputs["encoder"] = f"params:embed.encoders.{encoder}"
    if needs.llm:
        inputs["llm"] = "params:llm"
    for trained in needs.trained:   # the train stage's model folder, for model: trained:<name>
        inputs[f"trained_{trained}"] = f"trained_{params.train.kind_of(trained)}_{trained}"
    func = bound(retrieve_passages, name=method.name, setting=setting, scope=scope)
    datasets = {v for v in inputs.values() if not v.startswith("params:")}
    return Pipeline([node(func, inputs, output, name="retrieve")],
                    namespace=namespace or method.name,
                    inputs=datasets, outputs={output},
                    parameters={v for v in inputs.values() if v.startswith("params:")})
