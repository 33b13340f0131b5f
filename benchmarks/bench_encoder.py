"""Encoder precision benchmark: passages/s of the sentence encoder in fp32 and bf16, as it
encodes (each text alone on one PyTorch thread, as many at once as there are threads: a vector
that does not depend on its batch or the thread count) against batches of up to 64
texts of one token length on every thread (what it did before, and does on a GPU, whose vectors
move with the batch and the threads), and how far bf16 moves
the embeddings (cosine to the fp32 vector; share of each passage's
top-10 cosine neighbours that stay the same, within its pipeline collection and over all).

    .venv/bin/python benchmarks/bench_encoder.py [--passages 2000] [--rounds 3]

Passages are the sentence passages of the first HotpotQA questions' collections, made as the
pipeline makes them (``conf/base/parameters_ingest.yml``). Rounds interleave the settings so
load from other jobs falls on all of them alike; figures are the median round, printed with the
load average, not asserted (they are machine dependent). ``auto`` is what ``dtype: auto`` picks
on this machine.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from kgp_kedro.corpus import build_collections, read_source, split_passages
from kgp_kedro.models.encoders import (SentenceEncoder, cpu_supports_bf16, resolve_dtype,
                                       same_length_batches)

ROOT = Path(__file__).resolve().parents[1]
HOTPOT = "data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json"


def _params(name: str) -> dict:
    return yaml.safe_load((ROOT / "conf" / "base" / f"parameters_{name}.yml").read_text())


def real_passages(n: int) -> pd.DataFrame:
    """``collection_id``, ``text`` of about ``n`` distinct passages: whole pipeline collections
    (a question's context + its seeded negatives) of the first HotpotQA questions."""
    ingest = _params("ingest").get("ingest", {})
    questions, documents = read_source("hotpotqa", ROOT / HOTPOT, "hotpotqa")
    questions, documents = pd.DataFrame(questions), pd.DataFrame(documents)
    documents = build_collections(questions, documents, ingest.get("negatives_per_question", 20),
                                  seed=ingest.get("seed", 42))
    passages = split_passages(documents)
    kept, seen = [], set()
    for _, group in passages.groupby("collection_id", sort=False):
        kept.append(group[["collection_id", "text"]])
        seen.update(group["text"])
        if len(seen) >= n:
            break
    return pd.concat(kept, ignore_index=True)


def top_k(vectors: np.ndarray, k: int) -> np.ndarray:
    """Indices of each row's ``k`` most cosine-similar other rows (rows are unit vectors)."""
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    return np.argpartition(-sims, k, axis=1)[:, :k]


def neighbour_overlap(a: np.ndarray, b: np.ndarray, k: int = 10) -> float:
    """Mean share of each row's top-``k`` neighbours under ``a`` that are also its top-``k``
    under ``b``."""
    na, nb = top_k(a, k), top_k(b, k)
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(na, nb)]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=2000, help="distinct passages to encode")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--model", default="all-MiniLM-L6-v2",
                        help="a sentence-transformers name or local path (default: the knn_st KG's)")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    os.chdir(ROOT)
    import torch

    model = args.model
    passages = real_passages(args.passages)
    texts = passages["text"].drop_duplicates().tolist()
    print(f"machine: {os.cpu_count()} CPUs, torch {torch.__version__} ({torch.get_num_threads()} "
          f"threads, CPU capability {torch.backends.cpu.get_cpu_capability()}, native bf16: "
          f"{cpu_supports_bf16()}); dtype auto -> {resolve_dtype('auto', args.device)} on "
          f"{args.device}")
    print(f"{model}: {len(texts)} distinct passages from "
          f"{passages['collection_id'].nunique()} HotpotQA collections; "
          f"load average {os.getloadavg()[0]:.2f} at start")

    encoders = {dtype: SentenceEncoder(model, device=args.device, dtype=dtype)
                for dtype in ("float32", "bfloat16")}
    for encoder in encoders.values():  # warm-up: first-call allocations, oneDNN kernel choice
        encoder.encode(texts[:64])
    ways = {"alone": lambda encoder: encoder.encode(texts),
            "batch64": lambda encoder: [   # not the encoder's way on a CPU (its GPU way): the cost
                encoder._vectors([texts[i] for i in rows])
                for rows in same_length_batches(encoder.token_lengths(texts), 64)]}
    rates: dict[tuple[str, str], list[float]] = {}
    cpu_rates: dict[tuple[str, str], list[float]] = {}  # per CPU-second: less hit by other jobs
    vectors: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for way, encode in ways.items():
            for dtype, encoder in encoders.items():
                start, cpu_start = time.perf_counter(), time.process_time()
                out = encode(encoder)
                if way == "alone":
                    vectors[dtype] = out
                rates.setdefault((dtype, way), []).append(
                    len(texts) / (time.perf_counter() - start))
                cpu_rates.setdefault((dtype, way), []).append(
                    len(texts) / (time.process_time() - cpu_start))
    for title, table in ((f"passages/s, wall clock ({torch.get_num_threads()} threads)", rates),
                         ("passages per CPU-second (all threads)", cpu_rates)):
        print(f"\n{title}: median of {args.rounds} rounds (min-max)")
        print(f"{'way':>8} {'fp32':>16} {'bf16':>16} {'speed-up':>9}")
        for way in ways:
            fp32, bf16 = (table[(d, way)] for d in ("float32", "bfloat16"))
            print(f"{way:>8} {statistics.median(fp32):>6.0f} ({min(fp32):.0f}-{max(fp32):.0f})"
                  f" {statistics.median(bf16):>6.0f} ({min(bf16):.0f}-{max(bf16):.0f})"
                  f" {statistics.median(bf16) / statistics.median(fp32):>8.2f}x")

    a, b = vectors["float32"], vectors["bfloat16"]
    assert a.dtype == b.dtype == np.float32
    cosine = (a * b).sum(axis=1)
    index = {text: i for i, text in enumerate(texts)}
    per_collection = []
    for _, group in passages.groupby("collection_id", sort=False):
        rows = [index[t] for t in dict.fromkeys(group["text"])]
        if len(rows) > 10:
            per_collection.append((len(rows), neighbour_overlap(a[rows], b[rows])))
    weights, overlaps = zip(*per_collection)
    print(f"\nbf16 vs fp32 (as the encoder encodes): cosine to the fp32 vector mean "
          f"{cosine.mean():.5f}, min {cosine.min():.5f}")
    print(f"top-10 cosine neighbours kept: {np.average(overlaps, weights=weights):.3f} within "
          f"each collection (the knn_st graph; {len(overlaps)} collections, worst "
          f"{min(overlaps):.3f}), {neighbour_overlap(a, b):.3f} over all {len(texts)} passages")
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
