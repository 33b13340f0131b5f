"""``benchmarks/bench_ask_coverage.py``: the params it passes to the ask env, and its counts of
the gold evidence a prompt holds, on the dev set's real questions and quotes."""
from __future__ import annotations

import pytest

from benchmarks.bench_ask_coverage import coverage, nested
from benchmarks.make_real_docs import ROOT, gold_path, read_jsonl


def test_params_nest_like_kedros_and_read_yaml_values():
    assert nested(["ask.folder=/x/y", "ask.max_documents=null", "ask.contexts=12",
                   "retrieve.embeddings=mpnet", "embed.encoders.mpnet.batch_size=32"]) == {
        "ask": {"folder": "/x/y", "max_documents": None, "contexts": 12},
        "retrieve": {"embeddings": "mpnet"},
        "embed": {"encoders": {"mpnet": {"batch_size": 32}}}}


def test_coverage_counts_the_quotes_a_prompt_holds():
    questions = read_jsonl(ROOT / "dev" / "questions.jsonl")
    gold = {g["id"]: g for g in read_jsonl(gold_path("dev"))}
    # each prompt: the question, then its first evidence quote with other spacing and case
    shown = [(f"Quotes:\n[1] {' '.join(gold[q['id']]['evidence'][0]['quote'].upper().split())}"
              f"\n\nQuestion: {q['question']}", 10) if gold[q["id"]]["kind"] != "none"
             else (f"Question: {q['question']}", 4) for q in questions]
    counts = coverage("dev", shown)
    kinds = [gold[q["id"]]["kind"] for q in questions]
    one_quote = sum(1 for q in questions if len(gold[q["id"]]["evidence"]) == 1
                    and gold[q["id"]]["kind"] != "none")
    held, some = (sum(v for key, v in counts.items() if isinstance(key, tuple) and key[1] == how)
                  for how in ("all", "some"))
    assert held == one_quote > 0
    assert some == sum(1 for k in kinds if k != "none") - one_quote > 0   # two places: one of two
    assert counts["prompts"] == len(questions)
    assert counts["tokens"] == 10 * (len(kinds) - kinds.count("none")) + 4 * kinds.count("none")
    # a prompt without its quotes holds none of them
    bare = coverage("dev", [(f"Question: {q['question']}", 1) for q in questions])
    assert all(key[1] == "none" for key in bare if isinstance(key, tuple))


def test_coverage_refuses_prompts_out_of_the_questions_order():
    questions = read_jsonl(ROOT / "dev" / "questions.jsonl")
    shown = [(f"Question: {q['question']}", 1) for q in reversed(questions)]
    with pytest.raises(SystemExit, match="order"):
        coverage("dev", shown)
