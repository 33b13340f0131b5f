"""Pooled corpora of 10k, 30k and 100k passages: wall time and peak RSS of each stage (encode,
faiss index, KNN graph, entity graph, LLM-free traversal per question), and the growth
exponent between sizes (``log(t2 / t1) / log(n2 / n1)``: 1 is linear).

The corpus is the distinct passages of every bundled file, dev and train, of every source
(sentence passages of ``conf/base``: 50,085), in one pool; the questions are the bundled dev
questions. A size beyond the real passages is filled with copies of them, each marked: id
``<passage_id>#copy<i>``, text ``<text> [copy <i>]``. The entity graph takes the real passages
first; the vector stages (faiss, KNN graph, traversal) take the passages encoded so far
(``--encode`` caps them), and a copy's vector is its original's moved by a little noise
(cosine ~0.99: near-duplicates, not ties). Every row says how many of its passages are real.

Each (stage, size) runs in its own process, so its peak RSS is its own (``ru_maxrss``);
artifacts go to ``--work``. The encoder runs once over the pool's texts (the real passages,
then the marked copies' texts up to ``--encode``), in blocks saved as they are done (a killed
run resumes), its time and RSS read as it passes each size.

    .venv/bin/python benchmarks/bench_scale.py [--sizes 10000 30000 100000]
        [--stages encode faiss knn entity traverse] [--encode 100000] [--questions 50]
        [--work data/09_bench]

Prints one row per stage and size (wall and process-CPU s, peak RSS MB; for ``traverse`` wall
and CPU ms per question) with the load average, then the growth exponents.
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FILES = {"hotpotqa": ["data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json",
                      "data/01_raw/hotpotqa/hotpot_train_v1.1_sample100.json"],
         "musique": ["data/01_raw/musique/musique_ans_v1.0_dev_sample181.jsonl",
                     "data/01_raw/musique/musique_ans_v1.0_train_sample100.jsonl"],
         "2wikimultihopqa": ["data/01_raw/2wikimultihopqa/dev_sample103.json",
                             "data/01_raw/2wikimultihopqa/train_sample500.json"]}
STAGES = ["encode", "faiss", "knn", "entity", "traverse"]
BLOCK = 2000


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def real_pool(work: Path):
    """The distinct passages of every bundled file (one pool) and the dev questions, cached."""
    import pandas as pd

    passages_file, questions_file = work / "pool_passages.parquet", work / "pool_questions.parquet"
    if passages_file.exists():
        return pd.read_parquet(passages_file), pd.read_parquet(questions_file)
    from kgp_kedro.pipelines.in_memory import run_chain
    from kgp_kedro.pipelines.parameters import project_parameters

    raw = copy.deepcopy(project_parameters())
    raw["ingest"]["sources"] = [{"dataset": d, "path": p, "limit": None, "name": Path(p).stem}
                                for d, paths in FILES.items() for p in paths]
    data = run_chain("passages", raw)
    passages = (data["passages"].drop_duplicates("passage_id")
                .assign(collection_id="pool", is_supporting=False).reset_index(drop=True))
    questions = data["questions"]
    dev = questions[questions["source"].str.contains("dev")].assign(collection_id="pool")
    passages.to_parquet(passages_file)
    dev.to_parquet(questions_file)
    return passages, dev


def with_copies(real, size: int):
    """``real`` then its marked copies (``#copy<i>``, `` [copy <i>]``), cut at ``size``."""
    import pandas as pd

    n_copies = max(0, math.ceil(size / len(real)) - 1)
    parts = [real] + [real.assign(passage_id=real["passage_id"] + f"#copy{i}",
                                  text=real["text"] + f" [copy {i}]")
                      for i in range(1, n_copies + 1)]
    return pd.concat(parts, ignore_index=True).head(size), n_copies


def pool_of(size: int, work: Path):
    """The first ``size`` passages (real, then marked copies), the questions, the real count."""
    real, questions = real_pool(work)
    return with_copies(real, size)[0], questions, min(size, len(real))


def encode(work: Path, sizes: list[int], most: int) -> list[dict]:
    """MiniLM (``embed.encoders.minilm``, CPU) over the pool's texts, the real passages then
    their marked copies (`` [copy <i>]``: encoding one is the same work as a real passage), in
    blocks of 2,000 (each block saved as it is done: a killed run resumes), up to ``most``
    passages; the wall time and peak RSS read as it passes each size (encoding is per batch,
    so the time at 10k of a longer pass is a 10k pass's). The vector stages read the real
    passages' vectors only (:func:`vector_pool`)."""
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.models import load_encoder

    real = real_pool(work)[0]
    texts = with_copies(real, most)[0]["text"].tolist()
    folder = work / "embedding_blocks"
    folder.mkdir(exist_ok=True)
    encoder = load_encoder(EncoderParams(device="cpu"))
    rows, timed, start = [], 0, time.perf_counter()
    for first in range(0, len(texts), BLOCK):
        block = folder / f"{first:07d}.npy"
        if block.exists():
            continue
        np.save(folder / "partial.npy", encoder.encode(texts[first:first + BLOCK]).astype(np.float32))
        os.replace(folder / "partial.npy", block)
        timed += len(texts[first:first + BLOCK])
        print(f"encoded {first + BLOCK} passages ({timed / (time.perf_counter() - start):.1f}/s "
              f"here, load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
        if timed in sizes:
            rows.append({"stage": "encode", "passages": timed, "real": min(timed, len(real)),
                         "seconds": time.perf_counter() - start, "peak_rss_mb": peak_mb()})
    return rows


def encoded(work: Path, most: int) -> np.ndarray:
    """The real passages' vectors encoded so far (in pool order), ``most`` at most (the
    copies' blocks beyond them are left out)."""
    most = min(most, len(real_pool(work)[0]))
    blocks = sorted((work / "embedding_blocks").glob("[0-9]*.npy"))[:math.ceil(most / BLOCK)]
    return (np.concatenate([np.load(b) for b in blocks])[:most] if blocks
            else np.zeros((0, 384)))


def vector_pool(size: int, work: Path, most: int):
    """``size`` passages with vectors: the encoded real ones, then marked copies of them
    whose vectors are the original's moved by a little noise (renormalised; cosine ~0.99 to
    it), so that copies are near-duplicates, not ties. Returns the passages, the vectors, the
    dev questions and how many passages are real."""
    real, questions = real_pool(work)
    vectors = encoded(work, most)[:most]
    if len(vectors) == 0:
        raise SystemExit("no passage encoded yet: run the encode stage first")
    pool, n_copies = with_copies(real.head(len(vectors)), size)
    rng, matrices = np.random.default_rng(0), [vectors]
    for _ in range(n_copies):
        moved = vectors + rng.normal(0, 0.1 / np.sqrt(vectors.shape[1]), vectors.shape)
        matrices.append(moved / np.linalg.norm(moved, axis=1, keepdims=True))
    x = np.concatenate(matrices)[:size].astype(np.float32)
    return pool, x, questions, min(size, len(vectors))


def stage(name: str, size: int, work: Path, n_questions: int, sizes: list[int],
          most: int) -> dict | list[dict]:
    """Run one stage at one size in this process; its figures (``encode``: one row a size)."""
    ann = {"kind": "hnsw", "m": 32, "ef_construction": 64, "ef_search": 128}   # pooled.ann
    if name == "encode":
        return encode(work, sizes, most)
    if name == "entity":
        pool, questions, n_real = pool_of(size, work)
    else:
        pool, x, questions, n_real = vector_pool(size, work, most)
    out = {"stage": name, "passages": size, "real": n_real}
    start, cpu = time.perf_counter(), time.process_time()
    if name == "faiss":
        from kgp_kedro.search.ann import VectorIndex

        index = VectorIndex(x / np.linalg.norm(x, axis=1, keepdims=True), **ann)
        out["index"] = index.kind
        out["seconds"] = time.perf_counter() - start
    elif name == "knn":
        from kgp_kedro.graphs.builders.knn import build_knn_graph

        edges = build_knn_graph(x, 10, "cosine", ann=ann)
        out["seconds"] = time.perf_counter() - start
        np.savez(work / f"knn_{size}.npz", src=edges.src, dst=edges.dst, weight=edges.weight)
        out["edges"] = len(edges)
    elif name == "entity":
        from kgp_kedro.pipelines.parameter_tree import parse_variant
        from kgp_kedro.corpus.collection import Collection

        variant = parse_variant("tagme", {"builder": "entity", "same_document": True, "linker": {
            "backend": "offline", "cache_dir": str(work / "entity_cache")}}, "bench.entity")
        known = previous_sizes(work)
        features = variant.make_builder().featurize(pool)
        out["ner_seconds"] = time.perf_counter() - start
        out["ner_new"] = max(0, size - known)
        start = time.perf_counter()
        graph = variant.make_builder(features).build(Collection.from_passages("pool", pool),
                                                     variant.settings[0][1])
        out["seconds"] = time.perf_counter() - start
        out["edges"] = len(graph.edges)
        (work / "entity_tagged.txt").write_text(str(max(size, known)))
    elif name == "traverse":
        out.update(traverse(pool, questions.head(n_questions), size, work, ann))
    out["cpu_seconds"] = time.process_time() - cpu
    out["peak_rss_mb"] = peak_mb()
    return out


def traverse(pool, questions, size: int, work: Path, ann: dict) -> dict:
    """KGP with the TF-IDF agent (the pooled setting's LLM-free KGP: 10 TF-IDF seeds, 3
    neighbours each, a budget of 30) over the size's KNN graph, one question at a time: wall
    and process-CPU ms per question. Building the collection (its graph, its TF-IDF index) is
    index time, timed apart, as the retrieve stage does."""
    from kgp_kedro.pipelines.parameter_tree import parse_method
    from kgp_kedro.graphs.build import GraphTables
    from kgp_kedro.graphs.model import Edges, Graph, Nodes
    from kgp_kedro.retrievers import Resources
    from kgp_kedro.retrievers.run import CollectionSource

    saved = np.load(work / f"knn_{size}.npz")
    graph = Graph(Nodes.of_passages(pool["passage_id"].tolist(), pool["text"].tolist()),
                  Edges.uniform(saved["src"], saved["dst"], saved["weight"],
                                [""] * len(saved["src"]), "knn", directed=True))
    spec = parse_method("kgp_tfidf", {"method": "kgp", "agent": {"kind": "tfidf"}}, "bench")
    retriever = spec.retriever(spec.params, Resources(30))
    start = time.perf_counter()
    collection = CollectionSource(pool, GraphTables(*graph.tables("pool", "k=10")), "k=10",
                                  None, ann).get("pool")
    retriever.prepare([collection])
    retriever.retrieve(questions["question"].iloc[0], collection)   # first call: lazy indexes
    index_seconds = time.perf_counter() - start
    walls, cpus = [], []
    for question in questions["question"]:
        wall, cpu = time.perf_counter(), time.process_time()
        retriever.retrieve(question, collection)
        walls.append(1000 * (time.perf_counter() - wall))
        cpus.append(1000 * (time.process_time() - cpu))
    return {"seconds": index_seconds, "questions": len(walls),
            "ms_per_question": float(np.mean(walls)), "ms_p95": float(np.percentile(walls, 95)),
            "cpu_ms_per_question": float(np.mean(cpus))}


def previous_sizes(work: Path) -> int:
    """The passages the entity stage has NER-tagged into its cache before (a prefix)."""
    done = work / "entity_tagged.txt"
    return int(done.read_text()) if done.exists() else 0


def exponents(rows: list[dict], key: str) -> dict[str, float]:
    by = {}
    for r in rows:
        by.setdefault(r["stage"], []).append((r["passages"], r[key]))
    out = {}
    for name, points in by.items():
        points.sort()
        if len(points) >= 2 and points[0][1] > 0 and points[-1][1] > 0:
            (n1, t1), (n2, t2) = points[0], points[-1]
            out[name] = math.log(t2 / t1) / math.log(n2 / n1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 30_000, 100_000])
    parser.add_argument("--stages", nargs="+", choices=STAGES, default=STAGES)
    parser.add_argument("--questions", type=int, default=50, help="dev questions traversed")
    parser.add_argument("--work", type=Path, default=ROOT / "data" / "09_bench")
    parser.add_argument("--encode", type=int, default=100_000,
                        help="real passages to encode, and to take of those encoded, at most "
                             "(the rest of a size: copies)")
    parser.add_argument("--one", nargs=2, metavar=("STAGE", "SIZE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.chdir(ROOT)
    args.work.mkdir(parents=True, exist_ok=True)
    if args.one:
        print(json.dumps(stage(args.one[0], int(args.one[1]), args.work, args.questions,
                               args.sizes, args.encode)))
        return
    passages, questions = real_pool(args.work)
    print(f"pool: {len(passages)} real distinct passages (bundled dev + train files), "
          f"{len(questions)} dev questions; beyond that, marked copies", flush=True)
    rows = []
    runs = ([("encode", max(args.sizes))] if "encode" in args.stages else []) + [
        (name, size) for size in sorted(args.sizes) for name in args.stages if name != "encode"]
    for name, size in runs:
        done = subprocess.run([sys.executable, __file__, "--one", name, str(size), "--work",
                               str(args.work), "--questions", str(args.questions),
                               "--sizes", *map(str, args.sizes), "--encode", str(args.encode)],
                              stdout=subprocess.PIPE, text=True)
        if done.returncode != 0:
            print(f"{name} at {size}: failed (exit {done.returncode})", flush=True)
            continue
        found = json.loads(done.stdout.strip().splitlines()[-1])
        for row in found if isinstance(found, list) else [found]:
            rows.append(row)
            extra = (f"  {row['ms_per_question']:.1f} ms/question (p95 {row['ms_p95']:.1f}, CPU "
                     f"{row['cpu_ms_per_question']:.1f}; {row['questions']} questions)"
                     if name == "traverse" else
                     f"  graph build only; NER before it {row['ner_seconds']:.1f} s for "
                     f"{row['ner_new']} passages not yet tagged" if name == "entity" else "")
            print(f"{name:9s} {row['passages']:>7d} passages ({row['real']} real): "
                  f"{row['seconds']:8.1f} s (CPU {row.get('cpu_seconds', float('nan')):.1f} s)  peak RSS {row['peak_rss_mb']:7.0f} MB{extra}  "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    for row in rows:   # the traversal's time is its time per question
        traversal = row["stage"] == "traverse"
        row["time"] = row["ms_per_question"] if traversal else row["seconds"]
        row["cpu"] = row["cpu_ms_per_question"] if traversal else row.get("cpu_seconds", 0.0)
    print("growth exponent, time (smallest to largest size):",
          {k: round(v, 2) for k, v in exponents(rows, "time").items()})
    print("growth exponent, process CPU time:",
          {k: round(v, 2) for k, v in exponents(rows, "cpu").items()})
    print("growth exponent, peak RSS:",
          {k: round(v, 2) for k, v in exponents(rows, "peak_rss_mb").items()})


if __name__ == "__main__":
    main()
