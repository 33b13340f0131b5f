"""``read.demonstrations``: short-answer examples drawn from the bundled train files' last
questions, never from the first ones a reader study chooses on."""
from __future__ import annotations

import json

from kgp_kedro.config.sections import Source
from kgp_kedro.reading.demonstrations import (MAX_ANSWER_WORDS, answer_steps,
                                              train_demonstrations, with_demonstrations)

TRAIN = [Source(dataset="hotpotqa", path="data/01_raw/hotpotqa/hotpot_train_v1.1_sample100.json"),
         Source(dataset="musique",
                path="data/01_raw/musique/musique_ans_v1.0_train_sample100.jsonl"),
         Source(dataset="2wikimultihopqa", path="data/01_raw/2wikimultihopqa/train_sample500.json")]


def _raw_questions():
    hotpot = json.load(open(TRAIN[0].path))
    musique = [json.loads(line) for line in open(TRAIN[1].path)]
    wiki = json.load(open(TRAIN[2].path))
    return hotpot, musique, wiki


def test_one_demonstration_a_source_in_turn_from_each_file_end():
    hotpot, musique, wiki = _raw_questions()
    drawn = train_demonstrations(TRAIN, 4)
    assert len(drawn) == 4
    # round robin: HotpotQA, MuSiQue, 2Wiki, then HotpotQA again
    ends = []
    for rows, answer_key in ((hotpot, "answer"), (musique, "answer"), (wiki, "answer")):
        short = [r for r in reversed(rows)
                 if 1 <= len(r[answer_key].split()) <= MAX_ANSWER_WORDS]
        ends.append(short)
    assert drawn[0] == (ends[0][0]["question"].strip(), ends[0][0]["answer"], "")
    assert drawn[1][1] == ends[1][0]["answer"]
    assert drawn[2] == (ends[2][0]["question"].strip(), ends[2][0]["answer"], "")
    taken = {a.lower() for _, a, _ in drawn[:3]}
    assert drawn[3][1] == next(r["answer"] for r in ends[0][1:] if r["answer"].lower() not in taken)
    # none of them is among the first 30 questions of its file (a study's choosing set)
    first = {r["question"].strip() for rows in (hotpot[:30], musique[:30], wiki[:30]) for r in rows}
    assert not first & {q for q, _, _ in drawn}


def test_none_asked_none_read():
    assert train_demonstrations(TRAIN, 0) == []
    assert with_demonstrations("Be short.", []) == "Be short."


def test_the_demonstrations_follow_the_system_message():
    text = with_demonstrations("Be short.", [("Who wrote Hamlet?", "William Shakespeare", "")])
    assert text == ("Be short.\n\nExamples of questions and their answers:\n\n"
                    "Q: Who wrote Hamlet?\nA: William Shakespeare")
    assert with_demonstrations(None, [("Q1?", "A1", "")]).startswith("Examples of questions")


def test_the_steps_are_the_train_files_own_decompositions():
    """MuSiQue's sub-questions with the earlier answers put in for #k, 2Wiki's evidence
    triples; the last record of each bundled train file, written out by hand."""
    _, musique, wiki = _raw_questions()
    last = musique[-1]   # "When did the state where Pocahontas Mounds is located become ..."
    assert [h["answer"] for h in last["question_decomposition"]] == ["Mississippi",
                                                                      "Dec. 10, 1817"]
    assert answer_steps("musique", json.dumps(last)) == (
        "Which state is Pocahontas Mounds located? → Mississippi; "
        "when did Mississippi become part of the united states → Dec. 10, 1817")
    assert answer_steps("2wikimultihopqa", json.dumps(wiki[-1])) == (
        "El oficio más antiguo del mundo — director — Luis Alcoriza; "
        "Oklahoma Renegades — director — Nate Watt; "
        "Luis Alcoriza — date of birth — September 5, 1918; "
        "Nate Watt — date of birth — April 6, 1889")
    relation = {"question_decomposition": [
        {"question": "Green >> performer", "answer": "Steve Hillage"},
        {"question": "#1 >> spouse", "answer": "Miquette Giraudy"}]}
    assert answer_steps("musique", json.dumps(relation)) == (
        "Green — performer → Steve Hillage; Steve Hillage — spouse → Miquette Giraudy")
    assert answer_steps("hotpotqa", json.dumps({"supporting_facts": []})) == ""


def test_steps_demonstrations_come_from_the_files_that_decompose_and_show_their_steps():
    drawn = train_demonstrations(TRAIN, 3, steps=True)
    _, musique, wiki = _raw_questions()
    # HotpotQA gives no decomposition: MuSiQue, 2Wiki, then MuSiQue again, from the files' ends
    assert [h for _, _, h in drawn] and all(h for _, _, h in drawn)
    assert drawn[0][0] == next(r["question"].strip() for r in reversed(musique)
                               if 1 <= len(r["answer"].split()) <= MAX_ANSWER_WORDS)
    assert drawn[1][0] in {r["question"].strip() for r in wiki}
    assert drawn[2][0] in {r["question"].strip() for r in musique}
    text = with_demonstrations(None, drawn[:1])
    assert text.endswith(f"Q: {drawn[0][0]}\nSteps: {drawn[0][2]}\nA: {drawn[0][1]}")
