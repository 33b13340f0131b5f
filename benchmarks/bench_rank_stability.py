"""How many retrieved lists the encoder's float noise changes: the dense (``dpr``), MDR
(``mdr``: pairs ranked by the product of two dense scores) and entity walk (``kgp``: PPR mass)
retrievals of bundled questions, encoded in fp32 and in bf16 on 1, 2 and 3 PyTorch threads, each
compared with its dtype's reference (1 thread) and with fp32's, as lists (ids in rank order) and
as sets (the ids retrieved). Within a dtype nothing should change (the encoder encodes each text
alone on one thread); bf16 against fp32 does.

    .venv/bin/python benchmarks/bench_rank_stability.py [--questions 10] [--negatives 4]

Questions: the first ``--questions`` of each bundled source (HotpotQA, MuSiQue, 2Wiki), their
collections made as the pipeline makes them with ``--negatives`` negative documents each; the
methods are conf/base's ``dpr``, ``mdr`` and ``kgp``, budget 30. Figures are counts on this CPU (printed
with the load average and whether it computes bf16 natively); another CPU can give others.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import pandas as pd
import yaml

from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.corpus import build_collections, read_source, split_passages
from kgp_kedro.models import load_encoder
from kgp_kedro.models.devices import torch_threads
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.models.encoders import cpu_supports_bf16
from kgp_kedro.retrievers import Resources
from kgp_kedro.retrievers.run import CollectionSource, run_retriever

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"hotpotqa": "data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json",
           "musique": "data/01_raw/musique/musique_ans_v1.0_dev_sample181.jsonl",
           "2wikimultihopqa": "data/01_raw/2wikimultihopqa/dev_sample103.json"}
METHODS = ("dpr", "mdr", "kgp")
THREADS = (1, 2, 3)   # PyTorch threads
REFERENCE = 1   # a dtype's reference run


def bundled(n_questions: int, negatives: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first questions of each source and their collections' passages."""
    questions, documents = [], []
    for dataset, path in SOURCES.items():
        q, d = read_source(dataset, ROOT / path, dataset, n_questions)
        questions.append(pd.DataFrame(q))
        documents.append(pd.DataFrame(d))
    questions = pd.concat(questions, ignore_index=True)
    documents = pd.concat(documents, ignore_index=True)
    return questions, split_passages(build_collections(questions, documents, negatives, seed=42))


def retrieve(encoder, questions, passages, linker_cache: str) -> dict[str, dict[str, list]]:
    """Per method, each question's retrieved passage ids in rank order."""
    unique = passages.drop_duplicates("passage_id")
    lookup = EmbeddingLookup(pd.DataFrame({
        "passage_id": unique["passage_id"].tolist(),
        "embedding": list(encoder.encode(unique["text"].tolist()))}), encoder.name)
    methods = yaml.safe_load((ROOT / "conf/base/parameters_retrieve.yml").read_text())[
        "retrieve"]["methods"]
    lists = {}
    for name in METHODS:
        raw = dict(methods[name])
        if raw["method"] == "entity_walk":
            raw["linker"] = {"cache_dir": linker_cache}
        spec = parse_method(name, raw, f"retrieve.methods.{name}")
        retriever = spec.retriever(spec.params, Resources(30, encoder))
        table = run_retriever(retriever, questions, CollectionSource(passages, None, None, lookup),
                              name)
        lists[name] = {q: g.sort_values("rank")["passage_id"].tolist()
                       for q, g in table.groupby("question_id")}
    return lists


def changed(a: dict[str, list], b: dict[str, list]) -> tuple[int, int]:
    """Questions whose list (order) and whose set of ids differ between ``a`` and ``b``."""
    return (sum(a[q] != b[q] for q in a), sum(set(a[q]) != set(b[q]) for q in a))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10, help="questions per source")
    parser.add_argument("--negatives", type=int, default=4, help="negative documents a question")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    os.chdir(ROOT)
    questions, passages = bundled(args.questions, args.negatives)
    print(f"{len(questions)} questions, {passages['passage_id'].nunique()} passages; "
          f"native bf16 on this CPU: {cpu_supports_bf16()}; load {os.getloadavg()[0]:.2f}")
    runs = {}
    with tempfile.TemporaryDirectory() as linker_cache:
        for dtype in ("float32", "bfloat16"):
            encoder = load_encoder(EncoderParams(device="cpu", dtype=dtype))
            for threads in THREADS:
                with torch_threads(threads):
                    runs[dtype, threads] = retrieve(encoder, questions, passages, linker_cache)
    n = len(questions)
    print(f"\nlists (rank order) / sets changed, of {n} questions a method")
    print(f"{'dtype':9} {'threads':>7}  " + "  ".join(
        f"{m + ' vs own dtype':>17}  {m + ' vs fp32':>13}" for m in METHODS))
    for (dtype, threads), lists in runs.items():
        own, fp32 = runs[dtype, REFERENCE], runs["float32", REFERENCE]
        cells = []
        for m in METHODS:
            cells.append("{:>8} / {:<6}".format(*changed(lists[m], own[m])))
            cells.append("{:>6} / {:<4}".format(*changed(lists[m], fp32[m])))
        print(f"{dtype:9} {threads:>7}  " + "  ".join(
            f"{a:>17}  {b:>13}" for a, b in zip(cells[::2], cells[1::2])))
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
