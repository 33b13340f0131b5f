"""Nodes of the holmes pipeline: thin wrappers over :mod:`kgp_kedro.holmes.run`."""
from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from kgp_kedro.config import ParameterError, validate
from kgp_kedro.config.sections import EncoderParams, ReadParams
from kgp_kedro.corpus import read_source
from kgp_kedro.holmes import run as holmes
from kgp_kedro.holmes.params import HolmesParams
from kgp_kedro.llm import make_llm
from kgp_kedro.models import load_encoder

logger = logging.getLogger(__name__)


def _params(raw: dict[str, Any]) -> HolmesParams:
    return validate(HolmesParams, raw, "holmes")


def _embed(encoder: dict[str, Any]):
    model = load_encoder(validate(EncoderParams, encoder, "embed.encoders"))
    return lambda texts: model.encode(list(texts))


def _llm(params: HolmesParams, llm: dict[str, Any], needed: bool):
    return make_llm(llm) if needed else None


def mine_auxiliary(questions: pd.DataFrame, qa_questions: pd.DataFrame,
                   holmes_params: dict[str, Any], encoder: dict[str, Any] | None = None,
                   llm: dict[str, Any] | None = None) -> pd.DataFrame:
    """``holmes_auxiliary_schema`` (§4.2.2, A.5): mined from ``holmes.auxiliary.sources`` (train
    files), or from the ingested questions that are not read when none is given; by their
    parses (``method: parse``) or by A.5's LLM steps (``method: llm``, which needs the
    ``holmes.encoder`` and ``llm`` parameters the pipeline then passes)."""
    params = _params(holmes_params)
    aux = params.auxiliary
    if aux.sources:
        texts = []
        for i, s in enumerate(aux.sources):
            rows, _ = read_source(s.dataset, s.path, s.name or s.dataset, s.limit,
                                  param_key=f"holmes.auxiliary.sources[{i}]")
            texts += [r["question"] for r in rows]
    else:
        texts = questions.loc[~questions["question_id"].isin(qa_questions["question_id"]),
                              "question"].tolist()
    texts = texts[:aux.max_questions]
    logger.info("HOLMES auxiliary schema from %d questions (%s)", len(texts),
                "train files" if aux.sources else "ingested questions not read")
    miner = aux.miner()()
    if not miner.needs_models:
        return miner.mine(texts, aux, params.spacy_model)
    if encoder is None or llm is None:
        raise ParameterError("holmes.auxiliary.method",
                             f"{aux.method} needs the encoder and llm parameters as node inputs")
    return miner.mine(texts, aux, params.spacy_model, make_llm(llm), _embed(encoder))


def link_entities(qa_questions: pd.DataFrame, documents: pd.DataFrame,
                  holmes_params: dict[str, Any]) -> pd.DataFrame:
    """``holmes_entity_documents``: each question's entity–document graph (§4.2.1)."""
    return holmes.entity_document_table(qa_questions, documents, _params(holmes_params))


def extract_hyper_triples(qa_questions: pd.DataFrame, documents: pd.DataFrame,
                          entity_documents: pd.DataFrame, holmes_params: dict[str, Any],
                          llm: dict[str, Any]) -> pd.DataFrame:
    """``holmes_hyper_triples``: the hyper triples the level-order traversal keeps (k levels)."""
    params = _params(holmes_params)
    client = _llm(params, llm, params.extractor_class().needs_llm
                  or params.question_parser_class().needs_llm)
    graphs = holmes.graphs_of(entity_documents)
    parsed, _ = holmes.parse_questions(qa_questions, graphs, params, client)
    facts = holmes.DocumentFacts(documents, holmes.make_extractor(params, client),
                                 params.cache_dir)
    return holmes.traverse(qa_questions, graphs, {q: p.entities for q, p in parsed.items()},
                           facts, params.levels)


def build_schema(qa_questions: pd.DataFrame, entity_documents: pd.DataFrame,
                 auxiliary: pd.DataFrame, holmes_params: dict[str, Any],
                 encoder: dict[str, Any], llm: dict[str, Any]) -> pd.DataFrame:
    """``holmes_schema``: each question's query-aligned schema (its own and auxiliary triples)."""
    params = _params(holmes_params)
    client = _llm(params, llm, params.question_parser_class().needs_llm)
    parsed, calls = holmes.parse_questions(qa_questions, holmes.graphs_of(entity_documents),
                                           params, client)
    return holmes.schema_table(qa_questions, parsed, calls, auxiliary, _embed(encoder), params)


def prune_facts(triples: pd.DataFrame, schema: pd.DataFrame, holmes_params: dict[str, Any],
                encoder: dict[str, Any]) -> pd.DataFrame:
    """``holmes_pruned_facts``: the top p hyper triples of each question, in score order."""
    return holmes.prune_table(triples, schema, _embed(encoder), _params(holmes_params))


def _other_calls(params: HolmesParams, triples: pd.DataFrame,
                 schema: pd.DataFrame) -> dict[str, int]:
    """LLM calls a question took before the reader: the schema's, and one per document read
    when the extractor is the LLM (before caching)."""
    calls = schema.groupby("question_id")["llm_calls"].first().astype(int).to_dict()
    if params.extractor_class().needs_llm and len(triples):
        read = triples.groupby("question_id")["documents_read"].first().astype(int)
        for qid, n in read.items():
            calls[qid] = calls.get(qid, 0) + int(n)
    return calls


def answer_with_facts(qa_questions: pd.DataFrame, pruned: pd.DataFrame, schema: pd.DataFrame,
                      entity_documents: pd.DataFrame, triples: pd.DataFrame,
                      documents: pd.DataFrame, passages: pd.DataFrame,
                      holmes_params: dict[str, Any], encoder: dict[str, Any],
                      llm: dict[str, Any], read: dict[str, Any], name: str
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``answers_<name>`` of a HOLMES method, the A.4.5 reader over the pruned facts (its
    answers under ``read.answer_form``), and ``holmes_read_<name>``, what it read."""
    params = _params(holmes_params)
    client = make_llm(llm)
    facts = holmes.DocumentFacts(documents, holmes.make_extractor(params, client),
                                 params.cache_dir)
    return holmes.answer_with_facts(qa_questions, pruned, schema,
                                    holmes.graphs_of(entity_documents), facts, passages,
                                    client, _embed(encoder), params, params.methods[name], name,
                                    _other_calls(params, triples, schema),
                                    answer_form=validate(ReadParams, read, "read").answer_form)


def replay_with_facts(qa_questions: pd.DataFrame, passages: pd.DataFrame,
                      holmes_params: dict[str, Any], llm: dict[str, Any],
                      read: dict[str, Any], name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``answers_<name>`` and ``holmes_read_<name>`` of a HOLMES method whose reader reads the
    recording ``holmes.replay`` (a method or question it lacks stops the run before any
    call): no KG, schema or pruning runs."""
    from kgp_kedro.holmes.recorded import read_recorded_facts, replayed_read_facts

    params = _params(holmes_params)
    replay = replayed_read_facts(read_recorded_facts(params.replay), name, qa_questions,
                                 params.replay)
    logger.info("holmes %s: the reader input of %d questions replayed from %s", name,
                len(qa_questions), params.replay)
    return holmes.answer_with_facts(qa_questions, None, None, {}, None, passages,
                                    make_llm(llm), None, params, params.methods[name], name,
                                    {}, replay=replay,
                                    answer_form=validate(ReadParams, read, "read").answer_form)


def answer_base(qa_questions: pd.DataFrame, documents: pd.DataFrame, passages: pd.DataFrame,
                holmes_params: dict[str, Any], llm: dict[str, Any], read: dict[str, Any],
                name: str) -> pd.DataFrame:
    """``answers_<name>`` of a baseline: Base (question only) or Base with its documents."""
    params = _params(holmes_params)
    read_params = validate(ReadParams, read, "read")
    docs_of = holmes.question_documents(qa_questions, documents, params.only_own_documents)
    return holmes.answer_base(qa_questions, docs_of, passages, make_llm(llm), name,
                              params.methods[name].method().with_documents,
                              read_params.margin_tokens, read_params.system_prompt,
                              params.description(name), read_params.answer_form)
