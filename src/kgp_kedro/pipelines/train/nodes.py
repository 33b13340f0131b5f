"""Nodes of the train stage: read the train files, fine-tune one bi-encoder (cached by the
digest of its examples and parameters) and report it."""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pandas as pd

from kgp_kedro.config import validate
from kgp_kedro.config.sections import PassagesParams
from kgp_kedro.training.params import TrainParams

logger = logging.getLogger(__name__)

REPORT = "training_report.json"   # kept beside a cached model, so a cached run reports it too


def read_train_sources(train: dict[str, Any], passages: dict[str, Any]
                       ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(train_questions, train_passages)``: the train files of ``train.sources``, each
    question's own documents its collection, split as the passages stage splits."""
    from kgp_kedro.training.sources import source_collections

    questions, _, split = source_collections(validate(TrainParams, train, "train").sources,
                                             validate(PassagesParams, passages, "passages"),
                                             "train.sources")
    return questions, split


def _trained_or_cached(cache_dir: str, name: str, digest: str, train_it, load,
                       report: dict[str, Any], complete: str):
    """``(model, report row)``: ``train_it()``'s model (which fills ``report``), or the one
    the same digest cached with its report; the report is kept beside the cached model."""
    from kgp_kedro.training.artifacts import cached_model

    model, cached = cached_model(cache_dir, name, digest, train_it, load, complete)
    folder = Path(cache_dir) / f"{name}-{digest}"
    if cached:
        report = json.loads((folder / REPORT).read_text())
    else:
        (folder / REPORT).write_text(json.dumps(report, indent=1))
        logger.info("train %s: held-out next-passage MRR %.3f (base) -> %.3f (trained) on %d "
                    "cases", name, report["heldout_mrr_base"], report["heldout_mrr_trained"],
                    report["heldout_cases"])
    return model, pd.DataFrame([{**report, "cached": cached}])


def _report(name: str, kind: str, digest: str, made, seconds: float, losses: list[float],
            before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """A training report: examples, questions, seconds, first and last loss, and the
    held-out ranking by the base model and by the trained one."""
    return {"name": name, "kind": kind, "digest": digest, "examples": len(made.examples),
            "questions": made.n_questions, "heldout_cases": before["cases"], "seconds": seconds,
            "loss_first": losses[0], "loss_last": losses[-1],
            **{f"heldout_{k}_base": v for k, v in before.items() if k != "cases"},
            **{f"heldout_{k}_trained": v for k, v in after.items() if k != "cases"}}


def train_bi_encoder(questions: pd.DataFrame, passages: pd.DataFrame, train: dict[str, Any],
                     name: str):
    """``(trained_encoder_<name>, training_report_<name>)``: ``train.encoders.<name>``
    fine-tuned on its examples (loaded from ``train.cache_dir`` when the same examples and
    parameters trained it before), and one row: examples, questions, seconds, first and last
    loss, and the next-passage ranking of the held-out train questions by the base model and
    by the trained one."""
    from kgp_kedro.models.devices import resolve_device
    from kgp_kedro.models.encoders import resolve_model_path
    from kgp_kedro.training.artifacts import training_digest
    from kgp_kedro.training.encoder import load_base, ranking_scores, train_encoder
    from kgp_kedro.training.examples import training_set
    from kgp_kedro.training.paths import reasoning_paths

    params = validate(TrainParams, train, "train")
    ep = params.encoders[name]
    made = training_set(reasoning_paths(questions, passages), ep.kind, ep.negatives,
                        ep.positives_per_hop, ep.max_examples, ep.heldout_share, ep.max_heldout)
    device = resolve_device(ep.device)
    digest = training_digest(made.examples, ep.model_dump(mode="json"),
                             resolve_model_path(ep.base_model))
    report: dict[str, Any] = {}

    def encode_with(model):
        return lambda texts: model.encode(list(texts), batch_size=64)

    def train_it():
        before = ranking_scores(encode_with(load_base(ep.base_model, device, ep.max_length)),
                                made.heldout)
        model, seconds, losses = train_encoder(made.examples, ep, f"train {name}")
        report.update(_report(name, ep.kind, digest, made, seconds, losses, before,
                              ranking_scores(encode_with(model), made.heldout)))
        return model

    return _trained_or_cached(params.cache_dir, name, digest, train_it,
                              lambda path: load_base(path, device, ep.max_length), report,
                              "modules.json")


def train_generator_model(questions: pd.DataFrame, passages: pd.DataFrame,
                          train: dict[str, Any], name: str):
    """``(trained_generator_<name>, training_report_<name>)``: ``train.generators.<name>``
    fine-tuned on its Listing 1 examples (loaded from ``train.cache_dir`` when the same
    examples and parameters trained it before), and its report row as for an encoder, the
    held-out ranking by TF-IDF similarity to the generated next evidence."""
    from kgp_kedro.models.generators import open_generator, resolve_generator_path
    from kgp_kedro.training.artifacts import training_digest
    from kgp_kedro.training.generation import (generation_ranking, generation_set,
                                               train_generator)
    from kgp_kedro.training.paths import reasoning_paths

    params = validate(TrainParams, train, "train")
    gp = params.generators[name]
    made = generation_set(reasoning_paths(questions, passages), gp.positives_per_hop,
                          gp.max_examples, gp.heldout_share, gp.max_heldout)
    digest = training_digest(made.examples, gp.model_dump(mode="json"),
                             resolve_generator_path(gp.base_model))
    report: dict[str, Any] = {}

    def train_it():
        before = generation_ranking(open_generator(gp.base_model, gp.device), made.heldout, gp)
        generator, seconds, losses = train_generator(made.examples, gp, f"train {name}")
        report.update(_report(name, "generator", digest, made, seconds, losses, before,
                              generation_ranking(generator, made.heldout, gp)))
        return generator

    return _trained_or_cached(params.cache_dir, name, digest, train_it,
                              lambda path: open_generator(path, gp.device), report,
                              "config.json")
