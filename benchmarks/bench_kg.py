"""KG benchmark: build time per collection for each configured KG variant, encoder and
feature (entity linker) throughput, and (with ``--kedro-run``) the wall time of
``kedro run --pipeline=kg_quality``.

    .venv/bin/python benchmarks/bench_kg.py [--questions 50] [--kedro-run]

The project's own parameters (conf/base plus the run env) and the pipelines' own nodes make the
collections: the ingest, passages and embed stages run in memory on the first ``--questions``
questions of each source. Figures are printed, not asserted: they are machine dependent.
"""
from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.corpus.collection import iter_collections
from kgp_kedro.graphs.build import attach
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50, help="questions per source")
    parser.add_argument("--kedro-run", action="store_true",
                        help="also time `kedro run --pipeline=kg_quality` on the bundled data")
    args = parser.parse_args()
    os.chdir(ROOT)
    raw = project_parameters()
    print(f"machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; torch threads "
          f"{__import__('torch').get_num_threads()}")
    for source in raw["ingest"]["sources"]:
        one = copy.deepcopy(raw)
        one["ingest"]["sources"] = [{**source, "limit": args.questions}]
        params = validate_parameters(one)
        start = time.perf_counter()
        data = run_chain("embed", one)
        embed_seconds = time.perf_counter() - start
        passages = data["passages"]
        distinct = passages["passage_id"].nunique()
        collections = list(iter_collections(passages))
        print(f"\n{source['dataset']}: {len(collections)} collections, "
              f"{len(passages) / len(collections):.0f} passages each, {distinct} distinct passages"
              f" (ingest + passages + embed: {embed_seconds:.1f} s)")
        for variant in params.variants.values():
            features = None
            if variant.builder.features:
                start = time.perf_counter()
                features = variant.make_builder().featurize(passages)
                seconds = time.perf_counter() - start
                print(f"  {variant.name}: {variant.builder.features} of {distinct} passages at "
                      f"{distinct / seconds:.0f} passages/s")
            lookup = (EmbeddingLookup(data[f"passage_embeddings_{variant.embeddings}"],
                                      params.encoder(variant.embeddings).model)
                      if variant.embeddings else None)
            builder = variant.make_builder(features)
            setting = variant.params   # the builder's default density
            times = []
            for collection in collections:
                attach(collection, None, None, lookup)
                start = time.perf_counter()
                builder.build(collection, setting)
                times.append(1000 * (time.perf_counter() - start))
            ms = np.asarray(times)
            print(f"  {variant.name} ({variant.builder.name}, default density): {ms.mean():.1f} ms"
                  f" per collection (p95 {np.percentile(ms, 95):.1f})")

    if args.kedro_run:
        env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1")
        kedro = str(Path(sys.executable).with_name("kedro"))
        start = time.perf_counter()
        subprocess.run([kedro, "run", "--pipelines=kg_quality"], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"\nkedro run --pipelines=kg_quality (bundled data): "
              f"{time.perf_counter() - start:.0f} s wall")


if __name__ == "__main__":
    main()
