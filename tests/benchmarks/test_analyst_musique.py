"""The analyst benchmark's MuSiQue folders (issue 49): bundled MuSiQue train records made into
questions by ``benchmarks/analyst_musique.py``'s rules, and an answer scored against a
record's other accepted answers; the expectations read by hand from the records."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from benchmarks.analyst_folders import KINDS, make_folder
from benchmarks.analyst_musique import eligible, facts, plan
from kgp_kedro.evaluation.ask_scores import Gold, score
from kgp_kedro.evaluation.qa_metrics import normalize_answer

TRAIN = (Path(__file__).resolve().parents[2]
         / "data/01_raw/musique/musique_ans_v1.0_train_sample100.jsonl")
RECORDS = [json.loads(line) for line in TRAIN.read_text().splitlines() if line.strip()]
BY_ID = {r["id"]: r for r in RECORDS}


def _record(question_start: str) -> dict:
    return next(r for r in RECORDS if r["question"].startswith(question_start))


def test_hops_written_as_triples_become_two_chained_rows():
    assert facts(_record("What country was the author of Brand")) == [
        ["Brand", "author", "Henrik Ibsen"], ["Henrik Ibsen", "country of citizenship", "Norway"]]
    # "Humboldt Peak (#1 ) >> part of": the first hop's answer put for #1
    assert facts(_record("Humboldt Peak, in the state where Silverton")) == [
        ["Silverton", "located in the administrative territorial entity", "Colorado"],
        ["Humboldt Peak (Colorado)", "part of", "Sangre de Cristo Range"]]
    # hops written as questions ("What company published …?") give no table
    assert facts(_record("Who was the first president of the association which published")) == []


def test_three_hop_records_are_not_eligible():
    assert not eligible(next(r for r in RECORDS if len(r["question_decomposition"]) == 3))


def test_the_musique_folder_holds_each_kind_by_its_rules(tmp_path):
    items = plan(RECORDS, 2)
    assert [i["kind"] for i in items] == list(KINDS) * 2
    for item in items:
        record = BY_ID[item["id"]]
        supporting = {p["title"] for p in record["paragraphs"] if p["is_supporting"]}
        titles = {t for t, _ in item["paragraphs"]}
        text = " ".join(normalize_answer(t) for _, t in item["paragraphs"])
        assert item["answers"] == record["answer_aliases"]
        if item["kind"] == "text":
            assert supporting <= titles and len(item["paragraphs"]) == 20 and not item["facts"]
            assert f" {normalize_answer(item['answer'])} " in f" {text} "
        else:
            assert len(item["paragraphs"]) == 20 - len(supporting)
            assert f" {normalize_answer(item['answer'])} " not in f" {text} "
            assert item["facts"] == (facts(record) if item["kind"] == "table" else [])
    # the first table turn passes over the records whose hops are questions, and they stay
    # for the later turns: the first table question is the first record with triples
    first_table = next(r for r in RECORDS if eligible(r) and facts(r))
    assert items[1]["id"] == first_table["id"]
    questions = make_folder(tmp_path / "bench", RECORDS, 2, plan)
    assert [q["id"] for q in questions] == [i["id"] for i in items]
    assert all((tmp_path / "bench" / i["file"]).is_file() for i in items)


def test_an_answer_naming_another_accepted_answer_is_correct():
    record = _record("Who was the first president of the association which published")
    assert record["answer"] == "G. Stanley Hall" and record["answer_aliases"] == ["Stanley Hall"]
    answers = pd.DataFrame([{
        "question_id": record["id"], "mark": "supported",
        "answer": "Its first president was Stanley Hall [1].",
        "raw_response": "Its first president was Stanley Hall [1].",
        "citations": json.dumps([{"file": "a.pdf", "page": 1}]), "claims": "[]",
        "retrieval_ms": 0.0, "latency_ms": 0.0}])
    gold = Gold("text", [record["answer"], *record["answer_aliases"]], frozenset({"a.pdf"}))
    scored = score(answers, {record["id"]: gold}, "")
    assert scored["correct"].tolist() == [1.0] and scored["file_cited"].tolist() == [True]
    scored = score(answers, {record["id"]: Gold("text", [record["answer"]])}, "")
    assert scored["correct"].tolist() == [0.0] and scored["file_cited"].tolist() == [False]
