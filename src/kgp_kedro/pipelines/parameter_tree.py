"""The whole parameter tree, validated at once before any node runs (a hook calls
:func:`validate_parameters` on the session's parameters, ``--env`` and ``--params`` included).

Fixed blocks are the models of :mod:`kgp_kedro.config.sections`; ``kg.variants`` and
``retrieve.methods`` are validated by the model of the builder / retriever each block names,
and cross-references (a graph setting that must exist, methods that must be configured) are
checked here, each error naming its key.
"""
from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationError

from kgp_kedro.config import sections as s
from kgp_kedro.config.base import (ParameterError, Params, PosInt, parse_named, setting_label,
                                   validate)
from kgp_kedro.corpus.sources.base import DATASET_READERS
from kgp_kedro.evaluation.qa_scores import metric_columns
from kgp_kedro.ewek.params import EwekParams
from kgp_kedro.graphs.builders import BUILDERS, GraphBuilder
from kgp_kedro.holmes.params import HolmesParams
from kgp_kedro.retrievers import RETRIEVERS, Requirements, Retriever
from kgp_kedro.training.params import TrainParams


@dataclass(frozen=True)
class Variant:
    """A KG variant: its builder, fixed options and density settings (``label``, params)."""

    name: str
    builder: type[GraphBuilder]
    params: Params
    swept: tuple[str, ...]
    settings: tuple[tuple[str, Params], ...]

    @property
    def embeddings(self) -> str | None:
        return self.builder.embeddings_of(self.params)

    def make_builder(self, features=None, **options: Any) -> GraphBuilder:
        return self.builder(self.params, features, **options)


def parse_variant(name: str, raw: Any, key: str) -> Variant:
    builder, params = parse_named(BUILDERS, raw, key, "builder", exclude=("sweep",))
    options = {k: v for k, v in raw.items() if k not in ("builder", "sweep")}
    sweep = raw.get("sweep") or {}
    if not isinstance(sweep, Mapping):
        raise ParameterError(f"{key}.sweep", "expected {hyperparameter: [values]}")
    for hyper in sweep:
        if hyper not in builder.Params.model_fields:
            raise ParameterError(f"{key}.sweep.{hyper}", f"not a hyperparameter of the "
                                 f"{raw['builder']} builder ({', '.join(builder.Params.model_fields)})")
    values = {h: v if isinstance(v, list) else [v] for h, v in sweep.items()}
    for hyper, listed in values.items():   # each value alone first, so an error names it
        for i, value in enumerate(listed):
            try:
                builder.Params.model_validate({**options, hyper: value})
            except ValidationError as exc:
                raise ParameterError(f"{key}.sweep.{hyper}[{i}]", "; ".join(
                    f"{e['msg']} (got {e.get('input')!r})" for e in exc.errors())) from None
    settings = []
    for combo in itertools.product(*values.values()):
        chosen = dict(zip(values, combo))
        setting = validate(builder.Params, {**options, **chosen}, key)
        settings.append((setting_label({h: getattr(setting, h) for h in chosen}) or "default",
                         setting))
    return Variant(name, builder, params, tuple(values), tuple(settings))


@dataclass(frozen=True)
class Method:
    """A retrieval method: its retriever class, options and requirements."""

    name: str
    retriever: type[Retriever]
    params: Params

    @property
    def requirements(self) -> Requirements:
        return self.retriever.requirements(self.params)

    @property
    def description(self) -> str:
        """What runs under this name: the registered method and the options that differ from
        their defaults, flattened (e.g. ``kgp agent.kind=encoder,agent.model=trained:mdr``; a
        bare ``kgp`` is Algorithm 1 with its documented defaults, the TF-IDF agent). The run's
        parameters carry every default, so what a YAML block spells out does not matter."""
        options = setting_label(_flat(self.params.model_dump(mode="json",
                                                             exclude_defaults=True)))
        return f"{self.retriever.name} {options}".strip()


def _flat(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"agent": {"kind": "tfidf"}}`` -> ``{"agent.kind": "tfidf"}``."""
    flat: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def parse_method(name: str, raw: Any, key: str) -> Method:
    retriever, params = parse_named(RETRIEVERS, raw, key, "method")
    retriever.check(params, key)
    return Method(name, retriever, params)


class GraphRef(Params):
    variant: str = "tagme"
    setting: dict[str, Any] = Field(default_factory=lambda: {"prior_threshold": 0.8})


class RetrieveBlock(Params):
    budget: PosInt = 30            # context passages per question, every method (§8.2)
    graph: GraphRef = Field(default_factory=GraphRef)   # the KG KGP traverses (Table 2: TAGME)
    embeddings: str = "minilm"     # the embed.encoders entry of the dense methods
    methods: dict[str, Any] = Field(min_length=1)
    # a benchmark's recorded retrievals (results/<benchmark>/retrieved.csv.gz): each method's
    # passages read from it instead of retrieved, so its prompts are the recorded ones on any
    # CPU (retrievers/recorded.py); null: retrieve
    replay: str | None = None


class KgBlock(Params):
    variants: dict[str, Any] = Field(min_length=1)
    # each collection's graphs kept by a digest of its passages, embeddings, features and the
    # builder's parameters: a re-run after adding or removing documents builds only the
    # collections they change (kgp_kedro/graphs/cache.py); null: every collection built
    cache_dir: str | None = "data/04_feature/cache/kg"


class PooledBlock(Params):
    methods: list[str] = Field(default_factory=list)
    graph: dict[str, Any] = Field(default_factory=lambda: {"builder": "knn", "k": 10})
    ann: s.AnnParams = Field(default_factory=s.AnnParams)


SECTIONS: dict[str, type[Params]] = {
    "ingest": s.IngestParams, "passages": s.PassagesParams, "embed": s.EmbedParams,
    "kg": KgBlock, "kg_quality": s.KgQualityParams, "retrieve": RetrieveBlock,
    "pooled": PooledBlock, "retrieval_quality": s.RetrievalQualityParams, "llm": s.LLMParams,
    "read": s.ReadParams, "score": s.ScoreParams, "report": s.ReportParams,
    "ewek": EwekParams, "holmes": HolmesParams, "pipelines": s.PipelinesParams,
    "train": TrainParams, "dask": s.DaskParams, "ask": s.AskParams,
}


@dataclass(frozen=True)
class Parameters:
    """The validated parameter tree."""

    ingest: s.IngestParams
    passages: s.PassagesParams
    embed: s.EmbedParams
    variants: dict[str, Variant]
    kg_quality: s.KgQualityParams
    retrieve: RetrieveBlock
    graph_setting: str            # the label of retrieve.graph's setting in kg_edges_<variant>
    methods: dict[str, Method]
    pooled: PooledBlock
    pooled_graph: Variant
    retrieval_quality: s.RetrievalQualityParams
    llm: s.LLMParams
    read: s.ReadParams
    score: s.ScoreParams
    report: s.ReportParams
    ewek: EwekParams
    holmes: HolmesParams
    pipelines: s.PipelinesParams
    train: TrainParams
    ask: s.AskParams

    def encoder(self, name: str) -> s.EncoderParams:
        return self.embed.encoders[name]


def _known(values: list[str], allowed: Mapping[str, Any] | list[str], key: str, what: str) -> None:
    for i, value in enumerate(values):
        if value not in allowed:
            raise ParameterError(f"{key}[{i}]", f"{value!r} is not {what} "
                                 f"(configured: {', '.join(allowed)})")


def _registered_datasets(blocks: Mapping[str, Any]) -> None:
    """Every dataset a block names (a source's, ``ingest.collection_size``'s keys,
    ``passages.paragraph_datasets``) has a reader in the dataset readers' registry."""
    ingest, train = blocks["ingest"], blocks["train"]
    named = [*((f"ingest.sources[{i}].dataset", source.dataset)
               for i, source in enumerate(ingest.sources)),
             *((f"ingest.collection_size.{name}", name) for name in ingest.collection_size or {}),
             *((f"passages.paragraph_datasets[{i}]", name)
               for i, name in enumerate(blocks["passages"].paragraph_datasets))]
    for key, sources in (("train.sources", train.sources),
                         ("ewek.training.sources", blocks["ewek"].training.sources),
                         ("holmes.auxiliary.sources", blocks["holmes"].auxiliary.sources)):
        named += [(f"{key}[{i}].dataset", source.dataset) for i, source in enumerate(sources)]
    for key, name in named:
        if name not in DATASET_READERS.names():
            raise ParameterError(key, f"unknown dataset {name!r}; known: "
                                      f"{', '.join(DATASET_READERS.names())}")


def validate_parameters(raw: Mapping[str, Any]) -> Parameters:
    """Validate a whole parameter tree (as Kedro's config loader returns it, ``ask.folder``
    already the ingest source: :func:`~kgp_kedro.config.sections.with_ask_folder`)."""
    unknown = sorted(set(raw) - set(SECTIONS))
    if unknown:
        raise ParameterError(unknown[0], f"unknown parameter block; the blocks are "
                                         f"{', '.join(SECTIONS)}")
    if "ingest" not in raw:
        raise ParameterError("ingest", "missing: configure ingest.sources")
    blocks = {name: validate(model, raw.get(name), name) for name, model in SECTIONS.items()}
    _registered_datasets(blocks)
    variants = {name: parse_variant(name, spec, f"kg.variants.{name}")
                for name, spec in blocks["kg"].variants.items()}
    methods = {name: parse_method(name, spec, f"retrieve.methods.{name}")
               for name, spec in blocks["retrieve"].methods.items()}
    for name, method in methods.items():
        for trained in method.requirements.trained:
            train = blocks["train"]
            if train.kind_of(trained) is None:
                raise ParameterError(f"retrieve.methods.{name}", f"trained:{trained} is not a "
                                     f"train.encoders or train.generators entry (configured: "
                                     f"{', '.join([*train.encoders, *train.generators])})")
    encoders = blocks["embed"].encoders
    for name, variant in variants.items():
        if variant.embeddings is not None and variant.embeddings not in encoders:
            raise ParameterError(f"kg.variants.{name}.embeddings",
                                 f"{variant.embeddings!r} is not an embed.encoders entry "
                                 f"(configured: {', '.join(encoders)})")
    retrieve: RetrieveBlock = blocks["retrieve"]
    if retrieve.embeddings not in encoders:
        raise ParameterError("retrieve.embeddings", f"{retrieve.embeddings!r} is not an "
                             f"embed.encoders entry (configured: {', '.join(encoders)})")
    graph_setting = _graph_setting(retrieve.graph, variants,
                                   any(m.requirements.graph for m in methods.values()))
    pooled: PooledBlock = blocks["pooled"]
    _known(pooled.methods, methods, "pooled.methods", "a retrieve.methods entry")
    pooled_graph = parse_variant("pooled", pooled.graph, "pooled.graph")
    if pooled_graph.builder.name != "knn":
        raise ParameterError("pooled.graph.builder", "the pooled setting builds a knn graph "
                             "(through a faiss index)")
    rq: s.RetrievalQualityParams = blocks["retrieval_quality"]
    _known(rq.collection_size.methods, methods, "retrieval_quality.collection_size.methods",
           "a retrieve.methods entry")
    figure_metric = blocks["report"].figure_metric
    if figure_metric not in (table1 := [c.name for c in metric_columns("table1")]):
        raise ParameterError("report.figure_metric", f"{figure_metric!r} is not a Table 1 "
                             f"metric ({', '.join(table1)})")
    # report.table*_methods and read.prompt_styles may name methods an env leaves out: the
    # tables show the methods that ran, a style applies to a method when it runs
    ask: s.AskParams = blocks["ask"]
    if ask.folder is not None or "ask" in blocks["pipelines"].default:
        for key, name in (("ask.method", ask.method), ("ask.sanity", ask.sanity)):
            if name is not None and name not in methods:
                raise ParameterError(key, f"{name!r} is not a retrieve.methods entry "
                                     f"(configured: {', '.join(methods)})")
    return Parameters(
        ingest=blocks["ingest"], passages=blocks["passages"], embed=blocks["embed"],
        variants=variants, kg_quality=blocks["kg_quality"], retrieve=retrieve,
        graph_setting=graph_setting, methods=methods, pooled=pooled, pooled_graph=pooled_graph,
        retrieval_quality=rq, llm=blocks["llm"], read=blocks["read"], score=blocks["score"],
        report=blocks["report"], ewek=_answering("ewek", blocks["ewek"], encoders, methods),
        holmes=_answering("holmes", blocks["holmes"], encoders,
                          {**methods, **blocks["ewek"].methods}),
        pipelines=blocks["pipelines"], train=blocks["train"], ask=ask)


def _answering(block: str, params: EwekParams | HolmesParams, encoders: Mapping[str, Any],
               methods: Mapping[str, Any]) -> EwekParams | HolmesParams:
    """A stage that answers on its own (EWEK-QA, HOLMES): its encoder configured and its
    methods' answer tables its own (no name shared with the methods configured before it)."""
    if params.encoder not in encoders:
        raise ParameterError(f"{block}.encoder", f"{params.encoder!r} is not an embed.encoders "
                             f"entry (configured: {', '.join(encoders)})")
    for name in params.methods:
        if name in methods:
            raise ParameterError(f"{block}.methods.{name}", "also a method of another stage "
                                 f"(retrieve, ewek): both would write answers_{name}")
    return params


def _graph_setting(ref: GraphRef, variants: dict[str, Variant], needed: bool) -> str:
    """The ``setting`` label of ``retrieve.graph`` in its variant's edge table."""
    if ref.variant not in variants:
        if not needed:
            return ""
        raise ParameterError("retrieve.graph.variant", f"{ref.variant!r} is not a kg.variants "
                             f"entry (configured: {', '.join(variants)})")
    variant = variants[ref.variant]
    if set(ref.setting) != set(variant.swept):
        raise ParameterError("retrieve.graph.setting", f"give a value for each swept "
                             f"hyperparameter of kg.variants.{ref.variant}: "
                             f"{', '.join(variant.swept) or '(none: use {})'}")
    chosen = validate(variant.builder.Params, {**variant.params.model_dump(), **ref.setting},
                      "retrieve.graph.setting")
    label = setting_label({h: getattr(chosen, h) for h in variant.swept}) or "default"
    labels = [lbl for lbl, _ in variant.settings]
    if label not in labels:
        raise ParameterError("retrieve.graph.setting", f"{label} is not among the settings built "
                             f"for kg.variants.{ref.variant} ({', '.join(labels)})")
    return label


def complete_parameters(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` with every default filled in (the models' values), so that every key a node may
    read as ``params:<key>`` exists although the YAML only overrides. Validates first."""
    params = validate_parameters(raw)
    tree: dict[str, Any] = {name: validate(model, raw.get(name), name).model_dump(mode="json")
                            for name, model in SECTIONS.items() if name in raw or name != "ingest"}
    tree["kg"]["variants"] = {name: {"builder": v.builder.name, **v.params.model_dump(mode="json"),
                                     **({"sweep": raw["kg"]["variants"][name]["sweep"]}
                                        if raw["kg"]["variants"][name].get("sweep") else {})}
                              for name, v in params.variants.items()}
    tree["retrieve"]["methods"] = {name: {"method": m.retriever.name,
                                          **m.params.model_dump(mode="json")}
                                   for name, m in params.methods.items()}
    tree["pooled"]["graph"] = {"builder": params.pooled_graph.builder.name,
                               **params.pooled_graph.params.model_dump(mode="json")}
    return tree
