"""Nodes of the ewek stage."""
from __future__ import annotations

import logging
from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import EncoderParams, PassagesParams, ReadParams
from kgp_kedro.ewek.params import EwekParams

logger = logging.getLogger(__name__)

TRAINING_COLUMNS = ["pairs", "positives", "questions", "heldout_pairs", "heldout_questions",
                    "heldout_auc", "recall_k", "heldout_recall_filter", "heldout_recall_rerank",
                    "min_auc", "guard_fired", "epochs",
                    "learning_rate", "hard_negatives", "seconds", "device", "base_model"]


def train_reranker(questions: pd.DataFrame, documents: pd.DataFrame, passages: pd.DataFrame,
                   qa_questions: pd.DataFrame, ewek: dict[str, Any], encoder: dict[str, Any],
                   passages_params: dict[str, Any]):
    """``ewek_cross_encoder`` and ``ewek_training``: the MiniLM cross-encoder trained on the
    supporting-fact labels of the train files' questions (``ewek.training.sources``; none
    given: the ingested questions that are not read, ``qa_questions`` excluded), and
    its report: pairs, epochs, training time, its AUC within the held-out questions, their
    quotes' recall@k (``k = composer.quotes``) in the fast filter's order and in its order, and
    whether the rerank guard fired (:mod:`kgp_kedro.ewek.guard`: the AUC below
    ``rerank.min_auc``, the rerank's recall below the filter's, or no question held out: the
    quotes keep the filter's order; an INFO line says which)."""
    from kgp_kedro.ewek.guard import guard_fires, mean_recall, recall_before_after
    from kgp_kedro.ewek.run import open_embedder
    from kgp_kedro.ewek.training import trained_cross_encoder, training_pairs
    from kgp_kedro.training.cross_encoder import pairs_auc
    from kgp_kedro.training.sources import source_collections
    from kgp_kedro.models.devices import resolve_device

    params = validate(EwekParams, ewek, "ewek")
    encoder_params = validate(EncoderParams, encoder, "encoder")
    tp, rr, k = params.training, params.rerank, params.composer.quotes
    if tp.sources:   # the train files: their questions are never read
        questions, documents, passages = source_collections(
            tp.sources, validate(PassagesParams, passages_params, "passages"))
    pairs, heldout = training_pairs(questions, documents, passages,
                                    qa_questions["question_id"].tolist(), params.splitter, tp, rr)
    model, seconds = trained_cross_encoder(pairs, tp)
    auc = pairs_auc(model, heldout, rr.batch_size)
    held = questions[questions["question_id"].isin(set(heldout.question_ids))]
    with open_embedder(encoder_params) as embed:
        recall = recall_before_after(held, documents, passages, embed, model, params, [k])
    before, after = mean_recall(recall, k)
    fired = guard_fires(auc, rr.min_auc, before, after)
    if not len(heldout):
        logger.info("ewek: too few training questions to hold any out (ewek.training."
                    "heldout_share), so the trained cross-encoder cannot be checked: the "
                    "quotes keep the %s filter's order (no rerank)", rr.filter)
    else:   # a fired guard is a safe fallback, expected on small training sets: INFO
        logger.info("ewek: on %d held-out questions the trained cross-encoder's AUC within "
                    "questions is %.3f (rerank.min_auc %.2f) and recall@%d of their quotes "
                    "%.3f in the %s filter's order, %.3f in its order: %s", heldout.n_questions,
                    auc, rr.min_auc, k, before, rr.filter, after,
                    "the quotes keep the filter's order (no rerank); train on more questions "
                    "(ewek.training) or name a cross-encoder (ewek.rerank.cross_encoder)"
                    if fired else "it reranks the quotes")
    info = pd.DataFrame([{"pairs": len(pairs), "positives": int(sum(pairs.labels)),
                          "questions": pairs.n_questions, "heldout_pairs": len(heldout),
                          "heldout_questions": heldout.n_questions, "heldout_auc": auc,
                          "recall_k": k, "heldout_recall_filter": before,
                          "heldout_recall_rerank": after,
                          "min_auc": rr.min_auc, "guard_fired": fired, "epochs": tp.epochs,
                          "learning_rate": tp.learning_rate,
                          "hard_negatives": tp.hard_negatives, "seconds": seconds,
                          "device": resolve_device(tp.device), "base_model": tp.base_model}],
                        columns=TRAINING_COLUMNS)
    return model, info


def answer_with_ewek(qa_questions: pd.DataFrame, documents: pd.DataFrame,
                     passages: pd.DataFrame, ewek: dict[str, Any], encoder: dict[str, Any],
                     llm: dict[str, Any], read: dict[str, Any], cross_encoder: Any = None,
                     training: pd.DataFrame | None = None):
    """``ewek_quotes``, ``ewek_triples``, ``ewek_composed`` (what each method's composer
    read) and one ``answers_<method>`` per ``ewek.methods`` entry. ``cross_encoder``: the
    trained model (its folder, or the model in memory) and ``training`` its report: when its
    guard fired, no rerank (the filter's order is kept); when ``ewek.rerank.cross_encoder``
    names a model, that one is loaded instead. With ``ewek.replay`` the composer reads that
    recording (a method or question it lacks stops the run before any call). The answers are
    scored under ``read.answer_form``, as every method's."""
    from kgp_kedro.ewek.facts_graph import make_extractor
    from kgp_kedro.ewek.recorded import read_composed, replayed_composed
    from kgp_kedro.models.cross_encoders import load_cross_encoder
    from kgp_kedro.ewek.run import run_ewek
    from kgp_kedro.llm import make_llm
    from kgp_kedro.models.embeddings import LazyEncoder, embedding_cache

    params = validate(EwekParams, ewek, "ewek")
    answer_form = validate(ReadParams, read, "read").answer_form
    client = make_llm(llm)
    encoder_params = validate(EncoderParams, encoder, "encoder")
    lazy = LazyEncoder(encoder_params)
    if params.replay:
        replay = replayed_composed(read_composed(params.replay), list(params.methods),
                                   qa_questions, params.replay)
        logger.info("ewek: the composer input of %d questions replayed from %s",
                    len(qa_questions), params.replay)
        quotes, triples, answers, composed = run_ewek(qa_questions, documents, passages, lazy,
                                                      None, client, params, replay=replay,
                                                      answer_form=answer_form)
        return (quotes, triples, composed, *[answers[name] for name in params.methods])
    rr = params.rerank
    model = rr.cross_encoder or cross_encoder
    unranked = None
    if rr.cross_encoder is None and training is not None and bool(training["guard_fired"].iloc[0]):
        model, unranked = None, "rerank guard fired"   # logged by train_reranker: filter order
    if isinstance(model, str):
        model = load_cross_encoder(model, rr.device, rr.max_length)
    cache = embedding_cache(encoder_params.cache_dir, lazy)
    extractor = make_extractor(params.facts.extractor, client) if params.needs_graph() else None
    try:
        quotes, triples, answers, composed = run_ewek(qa_questions, documents, passages, lazy,
                                                      model, client, params, cache, extractor,
                                                      unranked, answer_form=answer_form)
    finally:
        if cache is not None:
            cache.close()
    return (quotes, triples, composed, *[answers[name] for name in params.methods])


def summarise_ewek(ewek_quotes: pd.DataFrame, passages: pd.DataFrame, ewek: dict[str, Any],
                   *answers: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``ewek_summary`` (citation accuracy, LLM calls and wall time per question, per source
    and method) and ``ewek_rerank_recall`` (supporting-passage recall@k of the quotes before
    and after the rerank, and after deduplication)."""
    from kgp_kedro.ewek.summary import method_summary, rerank_recall

    params = validate(EwekParams, ewek, "ewek")
    summary = method_summary(answers)
    recall = rerank_recall(ewek_quotes, passages, params.recall_ks)
    for row in summary.itertuples(index=False):
        logger.info("ewek %s / %s: %d questions, citation accuracy %.3f, %.1f LLM calls and "
                    "%.0f ms per question", row.source, row.method, row.questions,
                    row.citation_accuracy, row.llm_calls, row.wall_ms)
    return summary, recall
