"""How much of the gold evidence the ask prompts hold, without the reader: for each run of
``--runs`` (``default``, or ``ask.*`` options as in ``bench_ask.py``) and each real-document set
of ``--set``, one ``kedro run --env ask`` over the set's own questions whose reader is replaced
by a fixed *not found* reply, so that the run costs the retrieval and the prompts alone (the
prompts are built by the ask stage itself, cut to the reader's window as in a real run).

Counted per run: the answerable questions whose prompt holds every gold evidence quote
(``all``), some of them (``some``) or none (``none``), per kind, and the prompts' mean tokens
(the configured reader's tokenizer). What a prompt does not hold the reader cannot answer from,
so a ranking or reading option can be screened here in seconds before the reader's runs judge
it (docs/ask.md). Only counts are printed: no question, quote or reply. Its runs write the ask
env's outputs (``data/ask``) as any ask run does: not beside a ``bench_ask.py`` run, which reads
them back.

Usage::

    python benchmarks/bench_ask_coverage.py --set dev holdout holdout2 \\
        --runs default "contexts=12;passage_window=0" [--params KEY=VALUE,...]

(``--params``: more kedro params, e.g. the walk's dense seeds from all-mpnet-base-v2 need both
encoders named: ``embed.encoders.minilm.model=all-MiniLM-L6-v2,embed.encoders.mpnet.model=
all-mpnet-base-v2,retrieve.embeddings=mpnet``; docs/ask.md has the full line used.)
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_ask import OFFLINE, REAL, _cpu, run_options  # noqa: E402
from benchmarks.make_real_docs import KINDS, SETS, gold_path, norm, read_jsonl  # noqa: E402
from kgp_kedro.llm import client as llm_client  # noqa: E402
from kgp_kedro.prompts.ask import NOT_ANSWERED  # noqa: E402

ANSWERABLE = tuple(k for k in KINDS if k != "none")


def nested(pairs: list[str]) -> dict[str, Any]:
    """``a.b=value`` pairs as kedro's ``--params`` reads them: nested keys, YAML values."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, value = pair.split("=", 1)
        *parents, last = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = yaml.safe_load(value)
    return out


class PromptsOnly:
    """``LLMClient.complete_many`` replaced, while in a ``with``, by one that keeps each
    prompt's last message and its tokens and replies *not found* without calling the model."""

    def __init__(self) -> None:
        self.prompts: list[tuple[str, int]] = []

    def __enter__(self) -> PromptsOnly:
        self._saved = llm_client.LLMClient.complete_many
        keep = self.prompts

        def complete_many(client, batch, max_tokens=None, desc="llm"):
            keep.extend((m[-1]["content"], client.count_tokens(m[-1]["content"])) for m in batch)
            return [llm_client.Completion(NOT_ANSWERED, 0, 0, 0.0) for _ in batch]

        llm_client.LLMClient.complete_many = complete_many
        return self

    def __exit__(self, *exc) -> None:
        llm_client.LLMClient.complete_many = self._saved


def prompts(name: str, params: list[str]) -> list[tuple[str, int]]:
    """The ask stage's prompts (last message, tokens) for set ``name``'s questions, in order."""
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project

    bootstrap_project(ROOT)
    runtime = nested([f"ask.folder={REAL / name}", *params])
    with PromptsOnly() as kept, KedroSession.create(project_path=ROOT, env="ask",
                                                    runtime_params=runtime) as session:
        session.run()
    return kept.prompts


def coverage(name: str, shown: list[tuple[str, int]]) -> Counter:
    """Counts over set ``name``: ``(kind, all|some|none)`` for its answerable questions, and
    ``tokens`` / ``prompts`` over all of them."""
    questions = read_jsonl(REAL / name / "questions.jsonl")
    gold = {g["id"]: g for g in read_jsonl(gold_path(name))}
    if len(shown) != len(questions):
        sys.exit(f"{name}: {len(shown)} prompts for {len(questions)} questions")
    counts: Counter = Counter()
    for question, (prompt, tokens) in zip(questions, shown):
        if question["question"] not in prompt:
            sys.exit(f"{name}: the prompts are not in the questions' order ({question['id']})")
        counts["tokens"] += tokens
        counts["prompts"] += 1
        g = gold[question["id"]]
        if g["kind"] == "none":
            continue
        text = norm(prompt)
        have = [norm(e["quote"]) in text for e in g["evidence"]]
        counts[(g["kind"], "all" if all(have) else "some" if any(have) else "none")] += 1
    return counts


def report(run: str, per_set: dict[str, Counter]) -> str:
    total = sum(per_set.values(), Counter())
    lines = []
    for name, c in [*per_set.items(), ("all", total)]:
        held = {k: c[(k, "all")] for k in ANSWERABLE}
        asked = {k: sum(c[(k, how)] for how in ("all", "some", "none")) for k in ANSWERABLE}
        lines.append(f"{run} | {name} | every quote held {sum(held.values())} of "
                     f"{sum(asked.values())} | "
                     + ", ".join(f"{k} {held[k]} of {asked[k]}" for k in ANSWERABLE)
                     + f" | some held {sum(c[(k, 'some')] for k in ANSWERABLE)}"
                     + f" | mean prompt tokens {c['tokens'] / max(1, c['prompts']):.0f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", nargs="+", choices=SETS, required=True)
    parser.add_argument("--runs", nargs="+", default=["default"])
    parser.add_argument("--params", default="", help="more kedro --params (a=b,c=d)")
    args = parser.parse_args()
    os.environ.update(OFFLINE)
    print(f"{_cpu()}, {os.cpu_count()} CPUs; no reader called")
    extra = [p for p in args.params.split(",") if p]
    for run in args.runs:
        options = [f"ask.{k}={v}" for k, v in run_options(run).items()]
        per_set = {name: coverage(name, prompts(name, extra + options)) for name in args.set}
        print(report(run, per_set), flush=True)


if __name__ == "__main__":
    main()
