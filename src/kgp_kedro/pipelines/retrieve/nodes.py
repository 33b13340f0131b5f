"""Node of the retrieve stage: run one configured method over every question."""
from __future__ import annotations

from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.project import parse_method
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.models import load_encoder
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.retrievers.base import trained_name
from kgp_kedro.retrievers.run import retrieve_all


def with_trained(block: Any, folders: dict[str, str]) -> Any:
    """``block`` with every ``trained:<name>`` option replaced by that model's folder."""
    if isinstance(block, dict):
        return {k: with_trained(v, folders) for k, v in block.items()}
    name = trained_name(block) if isinstance(block, str) else None
    return folders[name] if name in folders else block


def load_models(encoder: dict[str, Any] | None, llm: dict[str, Any] | None):
    """The encoder and LLM client of a method's requirements (None where not required)."""
    from kgp_kedro.llm import make_llm

    return (load_encoder(validate(EncoderParams, encoder, "encoder")) if encoder else None,
            make_llm(llm) if llm else None)


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
