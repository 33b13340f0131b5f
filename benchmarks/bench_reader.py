"""Reader benchmark: which embedded model reads, and how fast a call is.

Models (the default): EM / F1 / Acc of embedded LLM candidates with Golden and with no context
on bundled questions, with the paper's prompt alone and with read.system_prompt, reader
latency per question, and prompt / generation tokens per second. A model is a packaged model
name (kgp_kedro.llm.PACKAGED_MODELS) or a GGUF path. Calls go through no cache, so every figure
is a real generation.

    .venv/bin/python benchmarks/bench_reader.py [--questions 10] [--models NAME_OR_PATH ...]

``--speed``: seconds a reader call at the small-reader benchmark's context size (issue 34's
speed goal): the chosen reader's system message (the bare-answer instruction and 3 train
demonstrations), then a user prompt of about ``--tokens`` tokens (bundled HotpotQA train
documents, whole, as many as fit, and the question), answered through
:class:`LocalBackend.chat` twice over the same prompts: with the system turn evaluated for
every call (a reset before each) and with it kept in the KV cache between calls (the backend's
way). Prints the CPU, llama.cpp's build (the instruction sets it was compiled for) and the load
before and after.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_reader.py --speed \
        [--model qwen2.5-coder-1.5b-instruct-q4_k_m] [--threads 2] [--prompts 4] [--tokens 520]
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import time
from itertools import product
from pathlib import Path

import pandas as pd
from kedro.framework.startup import bootstrap_project

from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.evaluation.qa_scores import score_answers, summarise_scores
from kgp_kedro.llm import PACKAGED_MODELS, LLMClient
from kgp_kedro.llm.backends import LocalBackend
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.reading import read_answers
from kgp_kedro.reading.demonstrations import train_demonstrations, with_demonstrations
from kgp_kedro.reporting.measurements import cpu_model, load_line

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "data" / "01_raw" / "hotpotqa" / "hotpot_train_v1.1_sample100.json"


def golden_contexts(passages: pd.DataFrame, questions: pd.DataFrame) -> pd.DataFrame:
    """A retrieved table holding each question's supporting passages (the Golden method)."""
    gold = passages[passages["is_supporting"]].merge(questions[["collection_id", "question_id"]])
    gold["rank"] = gold.groupby("question_id").cumcount()
    return gold.assign(path=gold["passage_id"])[["question_id", "rank", "passage_id", "path"]]


def generation_speed(client: LLMClient) -> float:
    """Generated tokens per second on a short prompt with a long answer."""
    start = time.perf_counter()
    reply = client.complete([{"role": "user", "content": "Write a long story about a ship."}],
                            max_tokens=128)
    return reply.completion_tokens / (time.perf_counter() - start)


def call_speed(args: argparse.Namespace) -> None:
    """``--speed``: a call's seconds with the system turn evaluated every call and kept."""
    bootstrap_project(ROOT)
    import llama_cpp

    project = validate_parameters(project_parameters())
    system = with_demonstrations(project.read.system_prompt,
                                 train_demonstrations(project.train.sources, 3))
    backend = LocalBackend(model=args.model, n_threads=args.threads)
    # train questions from the file's middle: neither the reader study's first questions nor
    # the demonstrations (drawn from the end)
    records = json.loads(TRAIN.read_text())[20:20 + args.prompts]
    prompts = []
    for record in records:
        documents = []
        for title, sentences in record["context"]:
            documents.append(f"{title}: {' '.join(sentences)}")
            user = ("Given the following documents, answer the question.\n"
                    + "\n".join(documents) + f"\nQuestion: {record['question']}\nAnswer:")
            if backend.count_tokens(user) > args.tokens:
                break
        prompts.append([{"role": "system", "content": system},
                        {"role": "user", "content": user}])
    print(f"{cpu_model()}; {load_line()}")
    print(f"llama.cpp: {llama_cpp.llama_print_system_info().decode().strip()}")
    print(f"{args.model}, {args.threads} threads, system turn "
          f"{len(backend._system_turn(prompts[0]))} tokens", flush=True)
    backend.chat(prompts[-1], 0.0, 16, 0)  # warm-up: weights paged in
    for kept in (False, True):
        seconds, tokens = [], []
        for messages in prompts:
            if not kept:
                backend.llm.reset()
            start = time.perf_counter()
            _, prompt_tokens, _ = backend.chat(messages, 0.0, 32, 0)
            seconds.append(time.perf_counter() - start)
            tokens.append(prompt_tokens)
        print(f"system turn {'kept' if kept else 'evaluated every call'}: "
              f"{sum(seconds) / len(seconds):.2f} s a call, prompts of "
              f"{sum(tokens) / len(tokens):.0f} tokens; {load_line()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10, help="questions per source")
    parser.add_argument("--models", nargs="+", default=list(PACKAGED_MODELS))
    parser.add_argument("--speed", action="store_true",
                        help="a call's seconds at the small-reader benchmark's context size")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct-q4_k_m",
                        help="--speed: the model")
    parser.add_argument("--threads", type=int, default=2, help="--speed: llama.cpp threads")
    parser.add_argument("--prompts", type=int, default=4, help="--speed: prompts timed")
    parser.add_argument("--tokens", type=int, default=520,
                        help="--speed: user prompt size, about")
    args = parser.parse_args()
    if args.speed:
        call_speed(args)
        return
    os.chdir(ROOT)
    raw = project_parameters()
    project = validate_parameters(raw)
    params, read = project.llm.model_dump(), project.read
    system = read.system_prompt
    data = []
    for source in raw["ingest"]["sources"]:
        one = copy.deepcopy(raw)   # each question's own documents, split as the pipeline does
        one["ingest"].update(sources=[{**source, "limit": args.questions}],
                             negatives_per_question=0)
        out = run_chain("passages", one)
        data.append((out["questions"], out["passages"]))
    print(f"{os.cpu_count()} CPUs; {args.questions} questions per source; "
          f"max_tokens {params['sampling']['max_tokens']}")
    for model in args.models:
        is_path = Path(model).is_file()
        try:
            backend = LocalBackend(model="custom" if is_path else model,
                                   model_path=model if is_path else None,
                                   cache_dir=params["local"]["cache_dir"],
                                   n_ctx=params["local"]["n_ctx"])
        except (FileNotFoundError, ValueError) as missing:
            print(f"\n{model}: skipped ({missing})")
            continue
        client = LLMClient(backend, None, **params["sampling"])
        print(f"\n{backend.model}: {generation_speed(client):.1f} generated tokens/s")
        for (prompt, system_prompt), setting in product((("paper", None), ("system", system)),
                                                        ("golden", "none")):
            scores = []
            for questions, passages in data:
                retrieved = (golden_contexts(passages, questions) if setting == "golden"
                             else pd.DataFrame(columns=["question_id", "rank", "passage_id", "path"]))
                answers = read_answers(questions, retrieved, passages, client, setting,
                                       read.style(setting), read.margin_tokens, system_prompt)
                scores.append(score_answers(questions, answers, passages, setting))
            scores = pd.concat(scores)
            summary = summarise_scores(scores)
            for row in summary.itertuples():
                speed = (row.prompt_tokens + row.completion_tokens) / row.reader_latency_ms * 1000
                print(f"  {prompt:6s} {setting:6s} {row.source:16s} EM {100 * row.em:5.1f}  F1 "
                      f"{100 * row.f1:5.1f}  Hits@1 {100 * row.hits1:5.1f}  "
                      f"{row.reader_latency_ms / 1000:5.2f} s/question  "
                      f"{row.prompt_tokens:6.0f} prompt tokens  {speed:5.0f} tokens/s  "
                      f"failed {row.failed}")


if __name__ == "__main__":
    main()
