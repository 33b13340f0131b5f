"""Retrieval benchmark: latency per question of every configured method (for the LLM-driven
ones, with and without the LLM's generation time), candidates scored per second by each KGP
traversal agent, and the pooled setting's faiss index build and search times.

    .venv/bin/python benchmarks/bench_retrieval.py [--questions 30] [--llm-questions 3]

The project's parameters and the pipelines' own nodes (ingest -> passages -> embed -> kg, run in
memory) make the collections and the KG of ``retrieve.graph``. The chat agent and IRCoT use
the LLM of parameters_llm.yml without the call cache (so every generation is timed) on the
first --llm-questions questions; the seq2seq agent runs only with a configured checkpoint.
"""
from __future__ import annotations

import argparse
import copy
import os
import time
from pathlib import Path

import numpy as np

from kgp_kedro.config.project import validate_parameters
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.llm import make_llm
from kgp_kedro.models import load_encoder
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.retrievers import Resources, SkippedMethod
from kgp_kedro.retrievers.run import CollectionSource
from kgp_kedro.search.ann import VectorIndex
from kgp_kedro.search.dense import exact_search

ROOT = Path(__file__).resolve().parents[1]


class CountingAgent:
    """Wraps a traversal agent to count the candidates it scores and the time it takes."""

    def __init__(self, agent) -> None:
        self.agent, self.candidates, self.seconds = agent, 0, 0.0

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def score(self, question, path, candidates, collection):
        start = time.perf_counter()
        scores = self.agent.score(question, path, candidates, collection)
        self.seconds += time.perf_counter() - start
        self.candidates += len(candidates)
        return scores


class TimedLLM:
    """Wraps an LLM client to add up the time spent generating."""

    def __init__(self, llm) -> None:
        self.llm, self.seconds = llm, 0.0

    def __getattr__(self, name):
        return getattr(self.llm, name)

    def complete(self, messages, max_tokens=None):
        start = time.perf_counter()
        try:
            return self.llm.complete(messages, max_tokens)
        finally:
            self.seconds += time.perf_counter() - start


def bench_pooled_index(vectors: np.ndarray, ann: dict, queries: int = 200) -> str:
    """Build time of the pooled faiss index, its search time, and its recall@10 against exact
    search, for ``queries`` passages used as queries."""
    hnsw = VectorIndex(vectors, **ann)
    flat = VectorIndex(vectors, **{**ann, "kind": "flat"})
    probe = vectors[:queries]
    start = time.perf_counter()
    _, found = hnsw.search(probe, 10)
    hnsw_ms = 1000 * (time.perf_counter() - start) / len(probe)
    start = time.perf_counter()
    flat.search(probe, 10)
    flat_ms = 1000 * (time.perf_counter() - start) / len(probe)
    start = time.perf_counter()
    _, exact = exact_search(probe, vectors, 10, "cpu")
    torch_ms = 1000 * (time.perf_counter() - start) / len(probe)
    recall = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(found, exact)])
    return (f"{len(vectors):,} passages: {ann['kind']} build {hnsw.build_seconds:.2f} s "
            f"(flat {flat.build_seconds:.3f} s); search {hnsw_ms:.3f} ms/query vs flat "
            f"{flat_ms:.3f} ms, exact torch {torch_ms:.3f} ms; recall@10 vs exact {recall:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30, help="questions per source")
    parser.add_argument("--llm-questions", type=int, default=3,
                        help="questions per source for the LLM-driven methods (0: skip them)")
    args = parser.parse_args()
    os.chdir(ROOT)
    raw = project_parameters()
    params = validate_parameters(raw)
    encoder_params = params.encoder(params.retrieve.embeddings)
    encoder = load_encoder(encoder_params)
    llm = (TimedLLM(make_llm({**params.llm.model_dump(), "cache": None}))
           if args.llm_questions else None)
    graph = params.retrieve.graph.variant
    print(f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}, encoder on {encoder.device}; "
          f"budget {params.retrieve.budget}")
    for source in raw["ingest"]["sources"]:
        one = copy.deepcopy(raw)
        one["ingest"]["sources"] = [{**source, "limit": args.questions}]
        data = run_chain("kg", one, to_outputs=[f"kg_edges_{graph}",
                                                f"passage_embeddings_{params.retrieve.embeddings}"])
        questions, passages = data["questions"], data["passages"]
        embeddings = EmbeddingLookup(data[f"passage_embeddings_{params.retrieve.embeddings}"],
                                     encoder_params.model)
        collections = CollectionSource(passages, GraphTables(data[f"kg_nodes_{graph}"],
                                                             data[f"kg_edges_{graph}"]),
                                       params.graph_setting, embeddings)
        print(f"\n{source['dataset']}: {len(questions)} questions, "
              f"{len(passages) / passages['collection_id'].nunique():.0f} passages each")
        for name, method in params.methods.items():
            needs = method.requirements
            try:
                retriever = method.retriever(method.params, Resources(
                    params.retrieve.budget, encoder, llm if needs.llm else None))
            except SkippedMethod as skipped:
                print(f"  {name:12s} skipped: {skipped}")
                continue
            agent = getattr(retriever, "agent", None)
            if agent is not None:
                retriever.agent = agent = CountingAgent(agent)
            asked = questions.head(args.llm_questions) if needs.llm else questions
            if asked.empty:
                continue
            generating = llm.seconds if llm is not None else 0.0
            latencies = []
            for q in asked.itertuples():
                collection = collections.get(q.collection_id)
                start = time.perf_counter()
                retriever.retrieve(q.question, collection)
                latencies.append(1000 * (time.perf_counter() - start))
            line = (f"  {name:12s} {np.mean(latencies):8.1f} ms/question "
                    f"(p95 {np.percentile(latencies, 95):.1f}), "
                    f"{retriever.model_calls() / len(asked):.1f} model calls/question")
            if needs.llm:
                generated = 1000 * (llm.seconds - generating) / len(asked)
                line += (f", {np.mean(latencies) - generated:.1f} ms without the LLM's "
                         f"generation ({len(asked)} questions)")
            if agent is not None and agent.seconds:
                line += f", {agent.candidates / agent.seconds:,.0f} candidates scored/s"
            print(line)
        # the pooled setting: every passage of the source in one faiss index
        vectors = embeddings.matrix(passages["passage_id"].drop_duplicates().tolist())
        print(f"  pooled index: {bench_pooled_index(vectors, params.pooled.ann.model_dump())}")


if __name__ == "__main__":
    main()
