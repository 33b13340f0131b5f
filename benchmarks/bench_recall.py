"""Retrieval quality benchmark (issue 19's table): for every configured LLM-free retrieval method
(``retrieve.methods``, so methods added later appear on their own; ``none``, ``golden`` and
the LLM-driven methods are left out), per source: document recall@2 / @5, passage SP-EM@30, ms
and model calls per question.

    .venv/bin/python benchmarks/bench_recall.py [--env base|paper] [--pooled] [--limit 30]
        [--methods bm25 dpr entity_walk] [--sources hotpotqa musique 2wikimultihopqa]
        [--split dev|train]

``--env hipporag``: HippoRAG 2's setting (conf/hipporag, issue 66): one corpus a source of
every context paragraph of its loaded questions (``title\ntext``, deduplicated on both), scored
by passage recall@2 / @5 over the gold paragraphs as HippoRAG 2 defines it
(:mod:`kgp_kedro.evaluation.hipporag`; SP-EM@30: every gold paragraph in the top 30 passages);
``--encoder mpnet`` the dense methods' and the KNN KG's encoder (an ``embed.encoders`` entry).
Its rows add the cost columns: peak resident memory of the process during the method's
index-time work and questions (MB), and LLM tokens at index time (0: no method here calls an
LLM to index). With ``--record NAME`` it also writes the ranked passages of every question
(``results/retrieval/NAME.retrieved.csv.gz``) and each question's gold paragraphs
(``NAME.gold.csv.gz``); ``--check NAME`` scores them again, with no corpus, encoder or model
loaded, and fails when a figure of ``NAME.csv`` differs. KGP-MDR's encoder is trained first (the
train stage on the train files, cached in data/06_models; its seconds are printed, not counted
in the index time).

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
import sys
import threading
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


def rss_mb() -> float:
    """The process's resident memory now, in MB (``/proc/self/status``; NaN elsewhere)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class PeakRss:
    """The process's peak resident memory (MB) while the block runs, sampled every 20 ms."""

    def __enter__(self) -> "PeakRss":
        self.peak, self._stop = rss_mb(), threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())


def train_models(raw, params, methods: list[str]) -> dict[str, str]:
    """``trained_<name>`` -> the model folder, for every ``trained:<name>`` the chosen
    methods name: the train stage's bi-encoder (trained on the train files, or loaded from
    ``train.cache_dir`` when the same examples trained it before)."""
    from kgp_kedro.pipelines.train.nodes import read_train_sources, train_bi_encoder

    names = list(dict.fromkeys(t for m in methods for t in params.methods[m].requirements.trained))
    if not names:
        return {}
    start = time.perf_counter()
    questions, passages = read_train_sources(raw["train"], raw["passages"])
    folders = {}
    for name in names:
        if params.train.kind_of(name) != "encoder":
            raise SystemExit(f"trained:{name}: only trained encoders run here")
        _, report = train_bi_encoder(questions, passages, raw["train"], name)
        row = report.iloc[0]
        folders[f"trained_{name}"] = str(Path(raw["train"]["cache_dir"])
                                         / f"{name}-{row['digest']}")
        print(f"trained:{name}: {'loaded from its cache' if row['cached'] else 'trained'} "
              f"({row['examples']} examples; {time.perf_counter() - start:.0f} s; not in "
              f"index s)", flush=True)
    return folders


def prepare_hipporag(raw, params, source: dict, needs_graph: bool) -> dict:
    """HippoRAG 2's corpus of one source (:func:`kgp_kedro.evaluation.hipporag.paragraph_corpus`
    of the ingest stage's documents), its embeddings (every cache off) and, when needed, the
    pooled KNN KG over it, each timed and its peak memory taken."""
    from kgp_kedro.evaluation.hipporag import paragraph_corpus
    from kgp_kedro.pipelines.embed.nodes import embed
    from kgp_kedro.pipelines.pooled.nodes import build_pooled_graph

    one = without_feature_caches(raw)
    one["ingest"]["sources"] = [source]
    data, _ = run_timed("embed", one, [["questions", "documents"]])
    questions, corpus, gold = paragraph_corpus(data["questions"], data["documents"])
    encoder = one["embed"]["encoders"][params.retrieve.embeddings]
    with PeakRss() as encode_peak:
        start = time.perf_counter()
        embeddings = embed(corpus, encoder)
        encode_s = time.perf_counter() - start
    nodes = edges = None
    graph_s, graph_peak = 0.0, float("nan")
    if needs_graph:
        with PeakRss() as peak:
            start = time.perf_counter()
            nodes, edges = build_pooled_graph(corpus, embeddings, one["pooled"]["graph"],
                                              one["pooled"]["ann"], encoder)
            graph_s = time.perf_counter() - start
        graph_peak = peak.peak
    return {"questions": questions, "passages": corpus, "gold": gold,
            "embeddings": embeddings, "nodes": nodes, "edges": edges, "graph": "pooled",
            "setting": params.pooled_graph.settings[0][0], "ann": raw["pooled"]["ann"],
            "scope": "pooled", "encode_s": encode_s, "graph_s": graph_s,
            "encode_peak": encode_peak.peak, "graph_peak": graph_peak}


def hipporag_row(params, name: str, data: dict, table: pd.DataFrame, wall: float,
                 peak: float) -> dict:
    """One method's row in HippoRAG 2's setting: passage recall@2 / @5, SP-EM@30 (every gold
    paragraph in the top 30 passages), ms and model calls per question, index seconds and the
    cost columns."""
    from kgp_kedro.evaluation.hipporag import score_passage_recall

    scores = score_passage_recall(data["questions"], data["gold"], table, (2, 5, 30))
    timing = table.drop_duplicates("question_id").set_index("question_id")
    asked = timing.loc[timing.index.isin(scores["question_id"])]
    ms, n = float(asked["latency_ms"].mean()), len(scores)
    needs = params.methods[name].requirements
    peaks = [peak, data["encode_peak"] if needs.embeddings else float("nan"),
             data["graph_peak"] if needs.graph else float("nan")]
    return {"method": name, "R@2": scores["recall_at_2"].mean(),
            "R@5": scores["recall_at_5"].mean(),
            "SP-EM@30": float((scores["recall_at_30"] == 1.0).mean()), "ms": ms,
            "calls": float(asked["calls"].mean()), "wall_s": wall, "n": n,
            "passages": len(data["passages"]),
            # the KNN KG is built from the passages' vectors: its encoding is index work too
            "index_s": index_seconds(params, name, data, wall, ms, n)
            + (data["encode_s"] if needs.graph and not needs.embeddings else 0.0),
            "peak_rss_mb": max(p for p in peaks if p == p),
            "index_llm_tokens": 0 if not needs.llm else float("nan")}


def ranked_rows(table: pd.DataFrame, source: str, method: str, depth: int = 30) -> pd.DataFrame:
    """The ranked contexts of a retrieve table as recorded: a row per question and rank, its
    passages (a path's, ``a > b``), to the first ``depth`` distinct passages."""
    from kgp_kedro.evaluation.hipporag import distinct_passages
    from kgp_kedro.evaluation.retrieval import PATH_SEPARATOR, ranked_contexts

    rows = []
    for qid, contexts in ranked_contexts(table).items():
        for rank, path in enumerate(contexts, 1):
            if len(distinct_passages(contexts[:rank - 1])) >= depth:
                break
            rows.append({"source": source, "method": method, "question_id": qid,
                         "rank": rank, "passages": PATH_SEPARATOR.join(path)})
    return pd.DataFrame(rows, columns=["source", "method", "question_id", "rank", "passages"])


def gold_rows(data: dict, source: str) -> pd.DataFrame:
    from kgp_kedro.evaluation.hipporag import gold_passages

    gold = gold_passages(data["gold"])
    questions = data["questions"]
    return pd.DataFrame([{"source": source, "question_id": q, "gold": " | ".join(gold[c])}
                         for q, c in zip(questions["question_id"],
                                         questions["own_collection_id"]) if gold.get(c)],
                        columns=["source", "question_id", "gold"])


def record_retrievals(name: str, ranked: list[pd.DataFrame], gold: list[pd.DataFrame]) -> None:
    """Add the run's ranked passages and gold paragraphs to ``results/retrieval/NAME.
    retrieved.csv.gz`` / ``NAME.gold.csv.gz``, replacing the rows of the sources (and methods)
    it measured again."""
    from kgp_kedro.plumbing.atomic import write_atomic

    for suffix, parts, key in (("retrieved", ranked, ["source", "method"]),
                               ("gold", gold, ["source"])):
        path = ROOT / "results" / "retrieval" / f"{name}.{suffix}.csv.gz"
        new = pd.concat(parts, ignore_index=True)
        if path.exists():
            old = pd.read_csv(path, dtype=str, keep_default_na=False)
            old = old[~old.set_index(key).index.isin(new.set_index(key).index)]
            new = pd.concat([old, new.astype(str)], ignore_index=True)
        import gzip

        body = new.to_csv(index=False, lineterminator="\n").encode("utf-8")
        write_atomic(path, gzip.compress(body, mtime=0))
        print(f"recorded in {path.relative_to(ROOT)}", flush=True)


def check_recorded(name: str) -> int:
    """Score ``NAME.retrieved.csv.gz`` against ``NAME.gold.csv.gz`` again (no corpus, encoder
    or model) and compare each source and method with ``NAME.csv``: 0 when every recall@2 /
    @5 and SP-EM@30 matches, else 1, naming the rows that differ."""
    from kgp_kedro.evaluation.hipporag import passage_recall_table
    from kgp_kedro.evaluation.retrieval import PATH_SEPARATOR

    base = ROOT / "results" / "retrieval"
    rows = pd.read_csv(base / f"{name}.csv")
    ranked = pd.read_csv(base / f"{name}.retrieved.csv.gz", dtype=str, keep_default_na=False)
    gold = pd.read_csv(base / f"{name}.gold.csv.gz", dtype=str, keep_default_na=False)
    differ = 0
    for row in rows.itertuples(index=False):
        g = gold[gold["source"] == row.source]
        questions = pd.DataFrame({"source": row.source, "question_id": g["question_id"],
                                  "collection_id": g["question_id"]})
        golds = {q: ids.split(" | ") for q, ids in zip(g["question_id"], g["gold"])}
        mine = ranked[(ranked["source"] == row.source) & (ranked["method"] == row.method)]
        mine = mine.assign(rank=mine["rank"].astype(int)).sort_values(["question_id", "rank"])
        contexts: dict[str, list[tuple[str, ...]]] = {}
        for qid, path in zip(mine["question_id"], mine["passages"]):
            contexts.setdefault(qid, []).append(tuple(path.split(PATH_SEPARATOR)))
        scores = passage_recall_table(questions, golds, contexts, (2, 5, 30))
        again = {"recall_at_2": scores["recall_at_2"].mean(),
                 "recall_at_5": scores["recall_at_5"].mean(),
                 "sp_em_at_30": float((scores["recall_at_30"] == 1.0).mean()),
                 "questions": len(scores)}
        bad = {k: (getattr(row, k), v) for k, v in again.items()
               if abs(float(getattr(row, k)) - float(v)) > 1e-9}
        print(f"{row.source:16s} {row.method:10s} R@2 {again['recall_at_2']:.3f}  R@5 "
              f"{again['recall_at_5']:.3f}  SP-EM@30 {again['sp_em_at_30']:.3f}  "
              f"({again['questions']} questions): "
              + ("as recorded" if not bad else f"DIFFERS {bad}"), flush=True)
        differ += bool(bad)
    print(f"{name}: {len(rows) - differ} of {len(rows)} rows as recorded, from the recorded "
          f"retrievals alone")
    return 1 if differ else 0


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


def run_method(raw, params, name: str, data: dict,
               trained: dict[str, str] | None = None) -> tuple[pd.DataFrame, float]:
    """``retrieved_<name>`` from the retrieve stage's node, given what the method requires
    (``trained``: ``trained_<name>`` -> the train stage's model folder)."""
    from kgp_kedro.pipelines.retrieval import retrieve_passages

    needs = params.methods[name].requirements
    encoder = params.retrieve.embeddings
    extra = {f"trained_{t}": (trained or {})[f"trained_{t}"] for t in needs.trained
             if f"trained_{t}" in (trained or {})}
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

    for column in ("unit", "encoder", "peak_rss_mb", "index_llm_tokens"):
        if column not in table.columns:
            table = table.assign(**{column: None})
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
    parser.add_argument("--env", choices=["base", "paper", "hipporag"], default="base",
                        help="hipporag: HippoRAG 2's corpus and passage recall (conf/hipporag)")
    parser.add_argument("--encoder", help="the embed.encoders entry of the dense methods and "
                        "the KNN KG (default retrieve.embeddings)")
    parser.add_argument("--check", metavar="NAME",
                        help="score results/retrieval/NAME's recorded retrievals again (no "
                             "model) and compare with NAME.csv (--env hipporag recordings)")
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
    if args.check:
        sys.exit(check_recorded(args.check))
    hipporag = args.env == "hipporag"
    if args.env in ("paper", "hipporag"):
        os.environ["KEDRO_ENV"] = args.env
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    from kedro.framework.startup import bootstrap_project

    from kgp_kedro.pipelines.parameter_tree import validate_parameters
    from kgp_kedro.pipelines.parameters import project_parameters

    bootstrap_project(ROOT)   # the project's config loader: an env's menus are selections
    raw = project_parameters()
    if args.encoder:
        if args.encoder not in raw["embed"]["encoders"]:
            raise SystemExit(f"--encoder {args.encoder}: not an embed.encoders entry "
                             f"({', '.join(raw['embed']['encoders'])})")
        raw["retrieve"]["embeddings"] = args.encoder
        raw["pooled"]["graph"]["embeddings"] = args.encoder
    if hipporag:   # the entity walk's mentions linked from scratch too (index time)
        for block in raw["retrieve"]["methods"].values():
            if block.get("method") == "entity_walk":
                block["linker"] = {**block.get("linker", {}), "cache_dir": None}
    params = validate_parameters(raw)
    methods = chosen_methods(params, args.methods)
    needs_graph = any(params.methods[m].requirements.graph for m in methods)
    encoder_name = params.retrieve.embeddings
    setting = (f"env hipporag: HippoRAG 2's corpus (every context paragraph, title+text "
               f"deduplicated), passage recall; encoder {encoder_name}" if hipporag else
               f"env {args.env}, {'pooled' if args.pooled else 'per-question collections'}")
    print(f"{cpu_model()}; {load_line()}")
    print(f"{setting}; split {args.split}; first {args.limit} questions a source; budget "
          f"{raw['retrieve']['budget']}; methods: {', '.join(methods)}", flush=True)
    run = (f"{setting}; split {args.split}; first {args.limit} questions a source; budget "
           f"{raw['retrieve']['budget']}")
    results, ranked, golds = [], [], []
    trained = train_models(raw, params, methods) if hipporag else {}
    for source in raw["ingest"]["sources"]:
        if args.sources and source["dataset"] not in args.sources:
            continue
        source = {**source, "limit": args.limit}
        if args.split == "train":
            source["path"] = train_file(source["dataset"])
        start = time.perf_counter()
        if hipporag:
            data = prepare_hipporag(raw, params, source, needs_graph)
            golds.append(gold_rows(data, source["dataset"]))
            print(f"\n{source['dataset']}: {len(data['passages'])} passages encoded by "
                  f"{encoder_name} in {data['encode_s']:.1f} s "
                  f"({len(data['passages']) / data['encode_s']:.1f} passages/s, model load "
                  f"included), KNN KG in {data['graph_s']:.1f} s; {load_line()}", flush=True)
        else:
            data = prepare_source(raw, params, source, args.pooled, needs_graph)
        passages = data["passages"]
        print(f"\n{source['dataset']} ({source['path']}): {len(data['questions'])} questions, "
              f"{len(passages) / passages['collection_id'].nunique():.0f} passages a collection; "
              f"data ready in {time.perf_counter() - start:.0f} s; {load_line()}", flush=True)
        walls = {}
        for name in methods:
            with PeakRss() as peak:
                table, walls[name] = run_method(raw, params, name, data, trained)
            if table.empty:
                print(f"  {name}: skipped", flush=True)
                continue
            if hipporag:
                row = hipporag_row(params, name, data, table, walls[name], peak.peak)
                row.update(unit="passage", encoder=encoder_name)
                ranked.append(ranked_rows(table, source["dataset"], name))
            else:
                row = summary_rows(params, data, [table], walls)[0]
            print(f"  {name:26s} R@2 {row['R@2']:.3f}  R@5 {row['R@5']:.3f}  "
                  f"SP-EM@30 {row['SP-EM@30']:.3f}  {row['ms']:8.1f} ms/q  "
                  f"{row['calls']:.2f} calls/q  index {row['index_s']:.1f} s for "
                  f"{row['passages']} passages  (wall {row['wall_s']:.1f} s)"
                  + (f"  peak {row['peak_rss_mb']:,.0f} MB" if hipporag else ""), flush=True)
            results.append({"source": source["dataset"], **row})
        print(f"  ({load_line()})", flush=True)
        done = [r for r in results if r["source"] == source["dataset"]]
        if args.record and done:   # source by source: a run stopped later keeps these rows
            record(measurement_rows(pd.DataFrame(done), run), args.record)
            if hipporag:
                record_retrievals(args.record, [r for r in ranked
                                                if r["source"].eq(source["dataset"]).all()],
                                  golds[-1:])
    if not results:
        return
    from kgp_kedro.reporting.retrieval_results import render_retrieval_tables

    rows = measurement_rows(pd.DataFrame(results), run)
    print("\n" + render_retrieval_tables([(args.record or "this run", rows)]))


if __name__ == "__main__":
    main()
