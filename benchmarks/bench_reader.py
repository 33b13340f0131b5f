"""Reader benchmark: EM / F1 / Acc of embedded LLM candidates with Golden and with no context on
bundled questions, with the paper's prompt alone and with read.system_prompt, reader latency
per question, and prompt / generation tokens per second.

    .venv/bin/python benchmarks/bench_reader.py [--questions 10] [--models NAME_OR_PATH ...]

A model is a packaged model name (kgp_kedro.llm.PACKAGED_MODELS) or a GGUF path. Calls go
through no cache, so every figure is a real generation.
"""
from __future__ import annotations

import argparse
import os
import time
from itertools import product
from pathlib import Path

import copy

import pandas as pd

from kgp_kedro.pipelines.parameter_tree import validate_parameters
from kgp_kedro.evaluation.qa_scores import score_answers, summarise_scores
from kgp_kedro.llm import PACKAGED_MODELS, LLMClient
from kgp_kedro.llm.backends import LocalBackend
from kgp_kedro.pipelines.in_memory import run_chain
from kgp_kedro.pipelines.parameters import project_parameters
from kgp_kedro.reading import read_answers

ROOT = Path(__file__).resolve().parents[1]


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=10, help="questions per source")
    parser.add_argument("--models", nargs="+", default=list(PACKAGED_MODELS))
    args = parser.parse_args()
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
