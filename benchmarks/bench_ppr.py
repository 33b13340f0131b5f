"""Entity walk traversal cost: per question, the personalized PageRank alone (reset vector +
power iteration over the collection's entity–passage graph), and the batched retriever with
TF-IDF seeds (seed scores included), at the collection sizes of an env (``--env paper``:
Table 3's). The graphs are built first (index-time work; the linker's mentions come from its
disk cache when the kg stage or a run has filled it), and that time is printed apart.

    .venv/bin/python benchmarks/bench_ppr.py [--env paper] [--limit 20] [--source hotpotqa]

Wall and process-CPU ms per question are printed with the load average (CPU time moves less
with the load of shared cores).
"""
from __future__ import annotations

import argparse
import copy
import os
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def clock(run) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=["base", "paper"], default="paper")
    parser.add_argument("--limit", type=int, default=20, help="questions (one collection each)")
    parser.add_argument("--source", default="hotpotqa", help="an ingest.sources dataset")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.env == "paper":
        os.environ["KEDRO_ENV"] = "paper"
    from kgp_kedro.pipelines.parameter_tree import parse_method
    from kgp_kedro.pipelines.in_memory import run_chain
    from kgp_kedro.pipelines.parameters import project_parameters
    from kgp_kedro.retrievers import Resources
    from kgp_kedro.retrievers.run import CollectionSource
    from kgp_kedro.search.ppr import personalized_pagerank

    raw = project_parameters()
    one = copy.deepcopy(raw)
    one["ingest"]["sources"] = [{**s, "limit": args.limit} for s in raw["ingest"]["sources"]
                                if s["dataset"] == args.source]
    data = run_chain("passages", one)
    questions = data["questions"]["question"].tolist()
    source = CollectionSource(data["passages"])
    collections = []
    for cid in data["questions"]["collection_id"]:
        collections.append(source.get(cid))
    spec = parse_method("walk", {"method": "entity_walk", "seeds_from": "tfidf"}, "walk")
    walk = spec.retriever(spec.params, Resources(raw["retrieve"]["budget"]))
    build, _ = clock(lambda: walk.prepare(collections))
    graphs = [walk.scorer.graph(c) for c in collections]
    seeds = [c.tfidf().scores(q) for c, q in zip(collections, questions)]
    o = spec.params

    def ppr_alone() -> None:
        for graph, question, seed in zip(graphs, questions, seeds):
            reset = graph.reset(question, seed, o.passage_weight)
            personalized_pagerank(graph.transition, graph.dangling, reset, o.damping, o.tol,
                                  o.max_iter)

    n = len(questions)
    ppr_wall, ppr_cpu = clock(ppr_alone)
    batch_wall, batch_cpu = clock(lambda: walk.retrieve_batch(questions, collections))
    one_load = os.getloadavg()[0]
    print(f"{args.source}, env {args.env}: {n} collections of "
          f"{np.mean([len(c) for c in collections]):.0f} passages, graphs of "
          f"{np.mean([g.transition.shape[0] for g in graphs]):.0f} nodes "
          f"({np.mean([len(g.entities) for g in graphs]):.0f} entities), built in "
          f"{1000 * build / n:.0f} ms a collection")
    print(f"  PPR alone (reset + power iteration): {1000 * ppr_wall / n:.2f} ms/question wall, "
          f"{1000 * ppr_cpu / n:.2f} ms CPU")
    print(f"  entity walk batched, TF-IDF seed scores included (index fitted before): {1000 * batch_wall / n:.2f} "
          f"ms/question wall, {1000 * batch_cpu / n:.2f} ms CPU")
    print(f"  load average {one_load:.2f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
