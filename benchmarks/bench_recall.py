"""Retrieval quality benchmark (issue 19's table): for every configured LLM-free retrieval method
(``retrieve.methods``, so methods added later appear on their own; ``none``, ``golden`` and
the LLM-driven methods are left out), per source: document recall@2 / @5, passage SP-EM@30, ms
and model calls per question.

    .venv/bin/python benchmarks/bench_recall.py [--env base|paper] [--pooled] [--limit 30]
        [--methods bm25 dpr entity_walk] [--sources hotpotqa musique 2wikimultihopqa]
        [--split dev|train]

``--env paper``: Table 3 collection sizes (conf/paper); ``--pooled``: the pooled setting (all
questions of a source share one collection, conf/base/parameters_pooled.yml; the methods that
walk a KG walk the pooled KNN KG, as the pooled stage does). ``--limit N``: the first N questions
of each source. ``--split train`` reads each source's bundled train file
(``data/01_raw/<dataset>/*train*``) instead of its dev file: what to look at when choosing a
setting, so that dev questions stay unseen.

Everything runs through the project's own code in memory: the ingest → passages → embed → kg
chain (or the pooled stage's ``pool_questions`` and ``build_pooled_graph`` nodes) via
:func:`kgp_kedro.pipelines.in_memory.run_chain`, each method through the retrieve stage's node
(:func:`kgp_kedro.pipelines.retrieval.retrieve_passages`, which times each question and
counts its model calls), and the metrics of :func:`kgp_kedro.evaluation.retrieval.score_retrieval`.
The KG stage runs only when a chosen method walks a KG. ms/question is the mean of the
retrieve node's per-question latency (batched methods: the batch's time over its questions; the
collections' index-time work, e.g. the entity walk's graph, is not in it: ``wall s`` is the
method's whole run, collections and graphs included). Index s is the method's index-time work
(:func:`index_seconds`: encoding the passages when it reads their vectors, the KG build when it
walks the KG stage's graph, and its own run less its per-question time; every feature cache
off, so it is a build from scratch), recorded with the passages indexed, so the tables give it per 1,000 passages beside ms per question (it holds
loading the encoder and the NER model once a source: on a few questions that dominates). The CPU
model and the load average are printed before and after each source.
"""
from __future__ import annotations

import argparse
import copy
import os
import time
from pathlib import Path

import pandas as pd

from kgp_kedro.reporting.measurements import cpu_model, load_line

ROOT = Path(__file__).resolve().parents[1]
KS = [2, 5, 30]


def train_file(dataset: str) -> str:
    found = sorted((ROOT / "data" / "01_raw" / dataset).glob("*train*"))
    if not found:
        raise FileNotFoundError(f"no bundled train file for {dataset} in data/01_raw/{dataset}")
    return str(found[0].relative_to(ROOT))


def chosen_methods(params, names: list[str] | None) -> list[str]:
    configured = [n for n, m in params.methods.items()
                  if m.retriever.name not in ("none", "golden") and not m.requirements.llm]
    if names:
        unknown = sorted(set(names) - set(configured))
        if unknown:
            raise SystemExit(f"--methods {unknown}: not LLM-free methods of retrieve.methods "
                             f"({', '.join(configured)})")
        return [n for n in configured if n in names]
    return configured


def run_timed(chain: str, raw, steps: list[list[str]]) -> tuple[dict, list[float]]:
    """Run the project's chain ``chain`` in memory step by step, each step up to its outputs
    from what the earlier steps made: every dataset, and each step's seconds."""
    from kgp_kedro.pipelines.chains import build_pipelines
    from kgp_kedro.pipelines.in_memory import run_in_memory

    pipeline = build_pipelines(raw)[chain]
    data, seconds, done = {}, [], None
    for outputs in steps:
        part = pipeline.filter(to_outputs=outputs)
        todo = part if done is None else part - done
        start = time.perf_counter()
        if todo.nodes:
            data.update(run_in_memory(todo, raw, inputs=data))
        seconds.append(time.perf_counter() - start)
        done = part if done is None else done + part
    return data, seconds


def without_feature_caches(raw: dict) -> dict:
    """A copy of the parameters with the index-time caches off (every ``cache_dir`` under
    ``passages``, ``embed``, ``kg`` and ``retrieve``: sentence splits, vectors, the linker's
    mentions, built graphs), so index time is a build from scratch, not a read of what an
    earlier run left in ``data/``."""
    def off(block):
        if isinstance(block, dict):
            return {k: None if k == "cache_dir" else off(v) for k, v in block.items()}
        return [off(v) for v in block] if isinstance(block, list) else block

    one = copy.deepcopy(raw)
    one.update({section: off(one[section]) for section in ("passages", "embed", "kg", "retrieve")
                if section in one})
    return one


def prepare_source(raw, params, source: dict, pooled: bool, needs_graph: bool) -> dict:
    """Questions, passages, embeddings and (when needed) the KG of one source, from the
    project's chains run in memory, with the seconds the encoding (``encode_s``) and the KG
    build (``graph_s``) took: index-time work of the methods that read them."""
    one = without_feature_caches(raw)
    one["ingest"]["sources"] = [source]
    encoder = params.retrieve.embeddings
    embeddings = f"passage_embeddings_{encoder}"
    if pooled:
        steps = [["pooled_questions", "pooled_passages"], [embeddings]]
        data, seconds = run_timed("pooled", one, steps + ([["kg_edges_pooled"]]
                                                          if needs_graph else []))
        return {"questions": data["pooled_questions"], "passages": data["pooled_passages"],
                # scored against each question's own supporting passages, as retrieval_quality
                # scores retrieved_pooled_<method>
                "scored": (data["questions"], data["passages"]), "embeddings": data[embeddings], "nodes": data.get("kg_nodes_pooled"),
                "edges": data.get("kg_edges_pooled"), "graph": "pooled",
                "setting": params.pooled_graph.settings[0][0], "ann": raw["pooled"]["ann"],
                "scope": "pooled", "encode_s": seconds[1],
                "graph_s": seconds[2] if needs_graph else 0.0}
    graph = params.retrieve.graph.variant
    steps = [["questions", "passages"], [embeddings]]
    data, seconds = run_timed("kg" if needs_graph else "embed", one,
                              steps + ([[f"kg_edges_{graph}"]] if needs_graph else []))
    return {"questions": data["questions"], "passages": data["passages"],
            "scored": (data["questions"], data["passages"]),
            "embeddings": data[embeddings], "nodes": data.get(f"kg_nodes_{graph}"),
            "edges": data.get(f"kg_edges_{graph}"), "graph": graph,
            "setting": params.graph_setting, "ann": None, "scope": "per_question",
            "encode_s": seconds[1], "graph_s": seconds[2] if needs_graph else 0.0}


def index_seconds(params, name: str, data: dict, wall: float, query_ms: float,
                  questions: int) -> float:
    """The method's index-time seconds: encoding the passages (when it reads their vectors),
    building the KG (when it walks one), and whatever of its own run is not answering
    questions (its wall time less its per-question time: a graph or an index it builds per
    collection)."""
    needs = params.methods[name].requirements
    return ((data["encode_s"] if needs.embeddings else 0.0)
            + (data["graph_s"] if needs.graph else 0.0)
            + max(0.0, wall - questions * query_ms / 1000))


def run_method(raw, params, name: str, data: dict) -> tuple[pd.DataFrame, float]:
    """``retrieved_<name>`` from the retrieve stage's node, given what the method requires."""
    from kgp_kedro.pipelines.retrieval import retrieve_passages

    needs = params.methods[name].requirements
    encoder = params.retrieve.embeddings
    extra = {}
    if needs.graph:
        extra.update(nodes=data["nodes"], edges=data["edges"])
    if needs.embeddings:
        extra.update(embeddings=data["embeddings"], encoder=raw["embed"]["encoders"][encoder])
    start = time.perf_counter()
    table = retrieve_passages(data["questions"], data["passages"],
                              raw["retrieve"]["methods"][name], raw["retrieve"]["budget"], name,
                              data["setting"], ann=data["ann"], scope=data["scope"], **extra)
    return table, time.perf_counter() - start


def summary_rows(params, data: dict, tables: list[pd.DataFrame],
                 walls: dict[str, float]) -> list[dict]:
    from kgp_kedro.evaluation.retrieval import score_retrieval

    _, summary = score_retrieval(*data["scored"], KS, *tables)
    rows = []
    for method, group in summary.groupby("method", sort=False):
        doc = group[group["unit"] == "document"].set_index("k")
        passage = group[group["unit"] == "passage"].set_index("k")
        rows.append({"method": method, "R@2": doc.loc[2, "recall"], "R@5": doc.loc[5, "recall"],
                     "SP-EM@30": passage.loc[30, "sp_em"], "ms": doc.loc[2, "latency_ms"],
                     "calls": doc.loc[2, "calls"], "wall_s": walls[method],
                     "n": int(doc.loc[2, "n_questions"]), "passages": len(data["passages"]),
                     "index_s": index_seconds(params, method, data, walls[method],
                                              doc.loc[2, "latency_ms"],
                                              int(doc.loc[2, "n_questions"]))})
    return rows


def measurement_rows(table: pd.DataFrame, setting: str) -> pd.DataFrame:
    """The run's rows as a retrieval measurement (``results/retrieval/*.csv``'s columns), with
    where they were measured."""
    from kgp_kedro.reporting.measurements import provenance

    return table.rename(columns={"n": "questions", "R@2": "recall_at_2", "R@5": "recall_at_5",
                                 "SP-EM@30": "sp_em_at_30", "ms": "ms_per_question",
                                 "calls": "calls_per_question"}).assign(
        **provenance(setting, ROOT))


def record(rows: pd.DataFrame, name: str) -> None:
    """The rows into the committed ``results/retrieval/<name>.csv``."""
    from kgp_kedro.reporting.measurements import record_measurement
    from kgp_kedro.reporting.retrieval_results import (RETRIEVAL_COLUMNS, RETRIEVAL_KEY,
                                                       RETRIEVAL_OPTIONAL)

    path = ROOT / "results" / "retrieval" / f"{name}.csv"
    record_measurement(rows, path, RETRIEVAL_COLUMNS, RETRIEVAL_KEY, RETRIEVAL_OPTIONAL)
    print(f"recorded in {path.relative_to(ROOT)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=["base", "paper"], default="base")
    parser.add_argument("--pooled", action="store_true", help="the pooled setting")
    parser.add_argument("--limit", type=int, default=30, help="questions per source")
    parser.add_argument("--methods", nargs="+", help="a subset of retrieve.methods")
    parser.add_argument("--sources", nargs="+", help="a subset of ingest.sources (datasets)")
    parser.add_argument("--split", choices=["dev", "train"], default="dev",
                        help="train: the bundled train files (for choosing settings)")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument("--record", metavar="NAME",
                        help="add the rows to the committed results/retrieval/NAME.csv "
                             "(then: python -m kgp_kedro.reporting.results)")
    args = parser.parse_args()
    os.chdir(ROOT)
    if args.env == "paper":
        os.environ["KEDRO_ENV"] = "paper"
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    from kgp_kedro.pipelines.parameter_tree import validate_parameters
    from kgp_kedro.pipelines.parameters import project_parameters

    raw = project_parameters()
    params = validate_parameters(raw)
    methods = chosen_methods(params, args.methods)
    needs_graph = any(params.methods[m].requirements.graph for m in methods)
    setting = f"env {args.env}, {'pooled' if args.pooled else 'per-question collections'}"
    print(f"{cpu_model()}; {load_line()}")
    print(f"{setting}; split {args.split}; first {args.limit} questions a source; budget "
          f"{raw['retrieve']['budget']}; methods: {', '.join(methods)}", flush=True)
    results = []
    for source in raw["ingest"]["sources"]:
        if args.sources and source["dataset"] not in args.sources:
            continue
        source = {**source, "limit": args.limit}
        if args.split == "train":
            source["path"] = train_file(source["dataset"])
        start = time.perf_counter()
        data = prepare_source(raw, params, source, args.pooled, needs_graph)
        passages = data["passages"]
        print(f"\n{source['dataset']} ({source['path']}): {len(data['questions'])} questions, "
              f"{len(passages) / passages['collection_id'].nunique():.0f} passages a collection; "
              f"data ready in {time.perf_counter() - start:.0f} s; {load_line()}", flush=True)
        walls = {}
        for name in methods:
            table, walls[name] = run_method(raw, params, name, data)
            if table.empty:
                print(f"  {name}: skipped", flush=True)
                continue
            row = summary_rows(params, data, [table], walls)[0]
            print(f"  {name:26s} R@2 {row['R@2']:.3f}  R@5 {row['R@5']:.3f}  "
                  f"SP-EM@30 {row['SP-EM@30']:.3f}  {row['ms']:8.1f} ms/q  "
                  f"{row['calls']:.2f} calls/q  index {row['index_s']:.1f} s for "
                  f"{row['passages']} passages  (wall {row['wall_s']:.1f} s)", flush=True)
            results.append({"source": source["dataset"], **row})
        print(f"  ({load_line()})", flush=True)
    if not results:
        return
    from kgp_kedro.reporting.retrieval_results import render_retrieval_tables

    rows = measurement_rows(pd.DataFrame(results),
                            f"{setting}; split {args.split}; first {args.limit} questions a "
                            f"source; budget {raw['retrieve']['budget']}")
    if args.record:
        record(rows, args.record)
    print("\n" + render_retrieval_tables([(args.record or "this run", rows)]))


if __name__ == "__main__":
    main()
