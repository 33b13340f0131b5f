"""Training benchmark: the train stage's bi-encoders and generators (``train.encoders``,
``train.generators``) trained (or loaded from their cache) on the train files, with their
wall/CPU time and held-out next-passage ranking (base vs trained); then, on the first
--questions dev questions of each ingest source, document recall@2/@5 and passage SP-EM@30 of
each off-the-shelf method beside its trained counterpart, with ms and model calls a question.

    .venv/bin/python benchmarks/bench_training.py [--questions 30]
        [--methods dpr dpr_trained mdr mdr_trained kgp_encoder kgp_mdr]
    # KGP-T5 (the generator methods of conf/t5), e.g. a smaller training on 2 CPUs:
    KEDRO_ENV=t5 .venv/bin/python benchmarks/bench_training.py --questions 10 \
        --methods bm25 dpr kgp_encoder kgp_mdr kgp_generator kgp_t5 --generator-examples 64 \
        --generator-heldout 5 --threads 1

The dev collections are made by the pipelines' own nodes (ingest -> passages -> embed -> kg, in
memory) with the project's parameters; the load average is printed with every figure (shared
CPUs move them all).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

from kgp_kedro.pipelines.parameter_tree import parse_method, validate_parameters
from kgp_kedro.evaluation.retrieval import score_retrieval
from kgp_kedro.models import load_encoder
from kgp_kedro.pipelines.in_memory import kg_per_source
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.pipelines.retrieval import with_trained
from kgp_kedro.pipelines.train.nodes import (read_train_sources, train_bi_encoder,
                                             train_generator_model)
from kgp_kedro.pipelines.train.pipeline import needed
from kgp_kedro.reporting.measurements import load_line
from kgp_kedro.retrievers.run import retrieve_all

ROOT = Path(__file__).resolve().parents[1]


def train_all(raw, params, methods) -> dict[str, str]:
    """Train (or load) the encoders and generators ``methods`` name; print each report; its
    cache folder by name."""
    start, cpu = time.perf_counter(), time.process_time()
    questions, passages = read_train_sources(raw["train"], raw["passages"])
    print(f"train files: {len(questions)} questions, {len(passages)} passages, read in "
          f"{time.perf_counter() - start:.1f} s [{load_line()}]")
    folders = {}
    names = {t for m in methods for t in params.methods[m].requirements.trained}
    for name in [n for n in needed(params) if n in names]:
        start, cpu = time.perf_counter(), time.process_time()
        train = (train_bi_encoder if params.train.kind_of(name) == "encoder"
                 else train_generator_model)
        _, report = train(questions, passages, raw["train"], name)
        row = report.iloc[0]
        folders[name] = str(Path(params.train.cache_dir) / f"{name}-{row['digest']}")
        print(f"{name}: {'cached' if row['cached'] else 'trained'} in "
              f"{time.perf_counter() - start:.1f} s wall, {time.process_time() - cpu:.1f} s CPU "
              f"(training alone {row['seconds']:.1f} s); {row['examples']} examples from "
              f"{row['questions']} questions; loss {row['loss_first']:.3f} -> "
              f"{row['loss_last']:.3f}; held-out next passage ({row['heldout_cases']} cases) "
              f"MRR {row['heldout_mrr_base']:.3f} -> {row['heldout_mrr_trained']:.3f}, "
              f"R@1 {row['heldout_recall@1_base']:.3f} -> {row['heldout_recall@1_trained']:.3f}"
              f", R@5 {row['heldout_recall@5_base']:.3f} -> "
              f"{row['heldout_recall@5_trained']:.3f} [{load_line()}]", flush=True)
    return folders


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30, help="dev questions per source")
    parser.add_argument("--methods", nargs="+", default=["dpr", "dpr_trained", "mdr",
                                                         "mdr_trained", "kgp_encoder", "kgp_mdr"])
    parser.add_argument("--generator-examples", type=int, default=None,
                        help="train.generators.*.max_examples (default: the configured)")
    parser.add_argument("--generator-heldout", type=int, default=None,
                        help="train.generators.*.max_heldout (default: the configured)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    raw = project_parameters()
    for generator in raw["train"].get("generators", {}).values():
        for key, value in [("max_examples", args.generator_examples),
                           ("max_heldout", args.generator_heldout)]:
            if value:
                generator[key] = value
    params = validate_parameters(raw)
    folders = train_all(raw, params, args.methods)
    encoder_params = params.encoder(params.retrieve.embeddings)
    encoder = load_encoder(encoder_params)
    rows = []
    for source, questions, passages, graphs, embeddings in kg_per_source(raw, params,
                                                                          args.questions):
        tables = []
        for name in args.methods:
            method = parse_method(name, with_trained(raw["retrieve"]["methods"][name], folders),
                                  f"retrieve.methods.{name}")
            start = time.perf_counter()
            tables.append(retrieve_all(questions, passages, method, params.retrieve.budget,
                                       encoder, None, graphs, params.graph_setting, embeddings))
            print(f"  {source['dataset']} {name}: {time.perf_counter() - start:.1f} s "
                  f"[{load_line()}]", flush=True)
        _, summary = score_retrieval(questions, passages, [2, 5, 30], *tables)
        calls = {t["method"].iloc[0]: t.drop_duplicates("question_id")["calls"].mean()
                 for t in tables if not t.empty}
        for name in args.methods:
            part = summary[summary["method"] == name].set_index(["unit", "k"])
            if part.empty:
                continue
            rows.append({"source": source["dataset"], "method": name,
                         "doc_R@2": part.loc[("document", 2), "recall"],
                         "doc_R@5": part.loc[("document", 5), "recall"],
                         "SP-EM@30": part.loc[("passage", 30), "sp_em"],
                         "ms/q": part.loc[("passage", 30), "latency_ms"],
                         "calls/q": calls[name],
                         "n": int(part.loc[("passage", 30), "n_questions"])})
    print(f"\n[{load_line()}]")
    print(pd.DataFrame(rows).to_string(index=False, float_format="{:.3f}".format))


if __name__ == "__main__":
    main()
