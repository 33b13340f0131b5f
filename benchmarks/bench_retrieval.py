"""Retrieval benchmark: latency per question of every configured method (for the LLM-driven
ones, with and without the LLM's generation time), candidates scored per second by each KGP
traversal agent, the LLM-free KGP traversal one question at a time against the batched run
(questions advancing hop by hop together), and the pooled setting's faiss index build and
search times.

    .venv/bin/python benchmarks/bench_retrieval.py [--questions 30] [--llm-questions 3]
    .venv/bin/python benchmarks/bench_retrieval.py --traversal-only [--modes paper distinct]

The traversal lines give, per LLM-free KGP method and mode, the ms per question of the
one-question loop (``Kgp.retrieve``, each step scored on its own) and of the batched run
(``Kgp.retrieve_batch`` over ``batch_size`` questions: the batch's wall time divided by its
questions), the speed-up, and whether both gave the same visits. Each run starts from fresh
collections and a fresh agent (nothing encoded before); the machine's load average is printed
before and after, since on shared CPUs it moves every figure.

The project's parameters and the pipelines' own nodes (ingest -> passages -> embed -> kg, run in
memory) make the collections and the KG of ``retrieve.graph``. The chat agent and IRCoT use
the LLM of parameters_llm.yml without the call cache (so every generation is timed) on the
first --llm-questions questions; the seq2seq agent runs only with a configured checkpoint.
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.llm import make_llm
from kgp_kedro.models import load_encoder
from kgp_kedro.pipelines.in_memory import kg_per_source
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.retrievers import Resources, SkippedMethod
from kgp_kedro.retrievers.kgp import Kgp
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


def load_line() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def time_traversal(method, params, questions, make_collections, budget: int, encoder,
                   batched: bool) -> tuple[float, float, list, int]:
    """Wall and CPU ms per question of one LLM-free KGP run over ``questions`` (fresh
    collections and agent; the collections are built before the clock starts, as
    ``run_retriever`` does), its visits, and its model calls."""
    retriever = method.retriever(params, Resources(budget, encoder))
    collections = make_collections()
    asked = list(questions.itertuples())
    held = [collections.get(q.collection_id) for q in asked] if batched else None
    visits, wall, cpu = [], 0.0, 0.0
    size = retriever.batch_size if batched else 1
    for i in range(0, len(asked), size):
        chunk = asked[i:i + size]
        found = held[i:i + size] if batched else [collections.get(chunk[0].collection_id)]
        start, start_cpu = time.perf_counter(), time.process_time()
        if batched:
            visits += retriever.retrieve_batch([q.question for q in chunk], found)
        else:
            visits.append(retriever.retrieve(chunk[0].question, found[0]))
        wall += time.perf_counter() - start
        cpu += time.process_time() - start_cpu
    return 1000 * wall / len(asked), 1000 * cpu / len(asked), visits, retriever.model_calls()


def bench_traversal(params, questions, make_collections, encoder, modes) -> list[str]:
    """The loop against the batched run for every LLM-free KGP method of ``params`` and
    each of ``modes``: wall and process-CPU ms per question (CPU time moves less with the
    machine's load), the speed-up, and the questions whose visits both runs agree on."""
    from kgp_kedro.search.tfidf import TextCounts

    TextCounts(["warm up the tokenizer", "and scikit-learn's import"])
    lines = []
    for name, method in params.methods.items():
        if method.retriever is not Kgp or method.requirements.llm:
            continue
        for mode in modes:
            options = method.params.model_copy(update={"mode": mode})
            try:
                loop_ms, loop_cpu, loop_visits, loop_calls = time_traversal(
                    method, options, questions, make_collections, params.retrieve.budget,
                    encoder, batched=False)
                batch_ms, batch_cpu, batch_visits, batch_calls = time_traversal(
                    method, options, questions, make_collections, params.retrieve.budget,
                    encoder, batched=True)
            except SkippedMethod as skipped:
                lines.append(f"  {name:12s} skipped: {skipped}")
                break
            same = sum([(v.path, v.hop) for v in a] == [(v.path, v.hop) for v in b]
                       for a, b in zip(loop_visits, batch_visits))
            lines.append(f"  {name:12s} {mode:8s} loop {loop_ms:7.1f} ms/question "
                         f"(CPU {loop_cpu:6.1f}, {loop_calls / len(questions):.1f} model "
                         f"calls) | batched {batch_ms:7.1f} ms/question (CPU {batch_cpu:6.1f}, "
                         f"{batch_calls} calls, batch_size {options.batch_size}) | "
                         f"x{loop_ms / batch_ms:.1f} (CPU x{loop_cpu / batch_cpu:.1f}) | "
                         f"same visits {same}/{len(questions)} questions "
                         f"[{load_line()}]")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=30, help="questions per source")
    parser.add_argument("--llm-questions", type=int, default=3,
                        help="questions per source for the LLM-driven methods (0: skip them)")
    parser.add_argument("--traversal-only", action="store_true",
                        help="only the loop vs batched KGP traversal")
    parser.add_argument("--modes", nargs="+", default=["paper", "distinct"],
                        choices=["paper", "distinct"], help="KGP modes of the traversal lines")
    parser.add_argument("--threads", type=int, default=None,
                        help="torch intra-op threads (default: torch's own, one per core); on "
                             "cores shared with other jobs 1 thread can be faster")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.traversal_only:
        args.llm_questions = 0
    os.chdir(ROOT)
    raw = project_parameters()
    params = validate_parameters(raw)
    encoder_params = params.encoder(params.retrieve.embeddings)
    encoder = load_encoder(encoder_params)
    encoder.encode(["warm-up"])  # the first call's one-off costs stay out of every figure
    llm = (TimedLLM(make_llm({**params.llm.model_dump(), "cache": None}))
           if args.llm_questions else None)
    import torch

    print(f"{load_line()}; encoder on {encoder.device} ({encoder.dtype}, {torch.get_num_threads()} "
          f"torch threads); budget {params.retrieve.budget}")
    for source, questions, passages, graphs, embeddings in kg_per_source(raw, params,
                                                                          args.questions):
        collections = CollectionSource(passages, graphs, params.graph_setting, embeddings)
        print(f"\n{source['dataset']}: {len(questions)} questions, "
              f"{len(passages) / passages['collection_id'].nunique():.0f} passages each")
        print(f"  traversal, LLM-free KGP ({load_line()}):")
        for line in bench_traversal(params, questions, lambda: CollectionSource(
                passages, graphs, params.graph_setting, embeddings), encoder, args.modes):
            print(line, flush=True)
        print(f"  ({load_line()})")
        if args.traversal_only:
            continue
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
