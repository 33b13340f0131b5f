"""Seconds a reader call at the small-reader benchmark's context size (issue 34's speed goal):
the chosen reader's system message (the bare-answer instruction and 3 train demonstrations),
then a user prompt of about ``--tokens`` tokens (bundled HotpotQA train documents, whole, as
many as fit, and the question), answered through :class:`LocalBackend.chat` twice over the
same prompts: with the system turn evaluated for every call (a reset before each) and with it
kept in the KV cache between calls (the backend's way). Prints the CPU, llama.cpp's build
(the instruction sets it was compiled for) and the load before and after.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_reader_speed.py \
        [--model qwen2.5-coder-1.5b-instruct-q4_k_m] [--threads 2] [--prompts 4] [--tokens 520]
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kedro.framework.startup import bootstrap_project

from kgp_kedro.reporting.measurements import cpu_model, load_line

ROOT = Path(__file__).resolve().parents[1]
TRAIN = ROOT / "data" / "01_raw" / "hotpotqa" / "hotpot_train_v1.1_sample100.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct-q4_k_m")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--prompts", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=520, help="user prompt size, about")
    args = parser.parse_args()
    bootstrap_project(ROOT)
    import llama_cpp

    from kgp_kedro.pipelines.parameter_tree import validate_parameters
    from kgp_kedro.llm.backends import LocalBackend
    from kgp_kedro.pipelines.parameters import project_parameters
    from kgp_kedro.reading.demonstrations import train_demonstrations, with_demonstrations

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


if __name__ == "__main__":
    main()
