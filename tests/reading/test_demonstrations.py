"""``read.demonstrations``: short-answer examples drawn from the bundled train files' last
questions, never from the first ones a reader study chooses on."""
from __future__ import annotations

import json

from kgp_kedro.config.sections import Source
from kgp_kedro.reading.demonstrations import (MAX_ANSWER_WORDS, train_demonstrations,
                                              with_demonstrations)

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
    assert drawn[0] == (ends[0][0]["question"].strip(), ends[0][0]["answer"])
    assert drawn[1][1] == ends[1][0]["answer"]
    assert drawn[2] == (ends[2][0]["question"].strip(), ends[2][0]["answer"])
    taken = {a.lower() for _, a in drawn[:3]}
    assert drawn[3][1] == next(r["answer"] for r in ends[0][1:] if r["answer"].lower() not in taken)
    # none of them is among the first 30 questions of its file (a study's choosing set)
    first = {r["question"].strip() for rows in (hotpot[:30], musique[:30], wiki[:30]) for r in rows}
    assert not first & {q for q, _ in drawn}


def test_none_asked_none_read():
    assert train_demonstrations(TRAIN, 0) == []
    assert with_demonstrations("Be short.", []) == "Be short."


def test_the_demonstrations_follow_the_system_message():
    text = with_demonstrations("Be short.", [("Who wrote Hamlet?", "William Shakespeare")])
    assert text == ("Be short.\n\nExamples of questions and their answers:\n\n"
                    "Q: Who wrote Hamlet?\nA: William Shakespeare")
    assert with_demonstrations(None, [("Q1?", "A1")]).startswith("Examples of questions")
