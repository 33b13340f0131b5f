"""The chains users run, composed from the stages: each stage holds only its own nodes, and
``kedro run --pipeline=<stage>`` runs the chain from the raw files to that stage. The stages
are shaped by a parameter tree (KG variants, methods, encoders), so ``--env`` and ``--params``
change what runs; :mod:`kgp_kedro.pipeline_registry` hands Kedro the session's.
"""
from __future__ import annotations

import importlib

from kedro.pipeline import Pipeline

from kgp_kedro.config.base import ParameterError
from kgp_kedro.pipelines.parameter_tree import validate_parameters

STAGES = ("ingest", "passages", "embed", "kg", "kg_quality", "train", "retrieve", "pooled",
          "retrieval_quality", "read", "ewek", "holmes", "score", "report", "ask")

# each chain: the stages it runs, upstream first
CHAINS = {
    "ingest": ["ingest"],
    "passages": ["ingest", "passages"],
    "embed": ["ingest", "passages", "embed"],
    "kg": ["ingest", "passages", "embed", "kg"],
    "kg_quality": ["ingest", "passages", "embed", "kg", "kg_quality"],
    "train": ["train"],
    "retrieve": ["ingest", "passages", "embed", "kg", "train", "retrieve"],
    "pooled": ["ingest", "passages", "embed", "train", "pooled"],
    "retrieval_quality": ["ingest", "passages", "embed", "kg", "train", "retrieve", "pooled",
                          "retrieval_quality"],
    "read": ["ingest", "passages", "embed", "kg", "train", "retrieve", "read"],
    "ewek": ["ingest", "passages", "ewek"],
    "holmes": ["ingest", "passages", "holmes"],
    "score": ["ingest", "passages", "embed", "kg", "train", "retrieve", "read", "ewek",
              "holmes", "score"],
    "report": ["ingest", "passages", "embed", "kg", "train", "retrieve", "read", "ewek",
               "holmes", "score", "report"],
    "ask": ["ingest", "passages", "embed", "kg", "train", "retrieve", "ask"],
}

# chains that run only the nodes their final outputs need (an ask run computes no passage
# embeddings unless its KG or methods use them)
TARGETS = {"ask": ("ask_report_md", "ask_report_html")}


def build_pipelines(raw_params) -> dict[str, Pipeline]:
    """The pipelines shaped by a given parameter tree (validated first), outside a session."""
    return compose(validate_parameters(raw_params))


def _as_stage(name: str, pipe: Pipeline) -> Pipeline:
    """``pipe`` under the namespace ``name`` (one group per stage in kedro-viz, ``--namespaces``
    selects a stage or one of its variants/methods, e.g. ``retrieve.kgp_tfidf``), its datasets
    and parameters keeping their catalog names."""
    params = {d for d in pipe.datasets() if d.startswith("params:")}
    return Pipeline(pipe, namespace=name, inputs=pipe.inputs() - params,
                    outputs=pipe.all_outputs(), parameters=params)


def compose(params) -> dict[str, Pipeline]:
    stages = {name: _as_stage(name, importlib.import_module(
        f"kgp_kedro.pipelines.{name}.pipeline").create_pipeline(params)) for name in STAGES}
    pipelines = {name: sum((stages[s] for s in chain), Pipeline([]))
                 for name, chain in CHAINS.items()}
    if params.retrieve.replay:   # no KG, embedding or training run that nothing reads now
        for name, chain in CHAINS.items():
            if stages[chain[-1]].nodes:
                pipelines[name] = pipelines[name].to_nodes(
                    *(n.name for n in stages[chain[-1]].nodes))
    for name, targets in TARGETS.items():
        if set(targets) <= pipelines[name].all_outputs():
            pipelines[name] = pipelines[name].to_outputs(*targets)
    for i, name in enumerate(params.pipelines.default):
        if name not in CHAINS:
            raise ParameterError(f"pipelines.default[{i}]", f"{name!r} is not a pipeline "
                                 f"(the pipelines are {', '.join(CHAINS)})")
    pipelines["__default__"] = sum((pipelines[name] for name in params.pipelines.default),
                                   Pipeline([]))
    return pipelines
