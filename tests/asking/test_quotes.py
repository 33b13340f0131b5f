"""What an ask prompt quotes (issue 49): a passage after the heading above it
(``ask.quote_form: headed``, a heading not quoted alone) and the passages of the best-ranked
files only (``ask.max_documents``), on real 2Wiki train records rendered as real PDFs and read
back; and the analyst benchmark's score of whether a prompt quoted the gold answer; the
expectations computed by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from kgp_kedro.asking import locate_passages
from kgp_kedro.asking.answers import quote_order, quoted_text
from kgp_kedro.asking.benchmark import (chained, latin, make_folder, render_pdf, same_date,
                                        score)
from kgp_kedro.corpus import split_passages
from kgp_kedro.corpus.sources import read_source_with_skipped

TRAIN = Path(__file__).resolve().parents[2] / "data/01_raw/2wikimultihopqa/train_sample500.json"
RECORDS = [r for r in json.loads(TRAIN.read_text()) if chained(r)]


def _paragraphs(record: dict, n: int) -> list[tuple[str, str]]:
    return [(latin(t), latin(" ".join(s.strip() for s in sentences)))
            for t, sentences in record["context"][:n]]


@pytest.fixture(scope="module")
def passages(tmp_path_factory) -> pd.DataFrame:
    """Two PDFs: a.pdf, the first eligible record's first 2 paragraphs and its facts table;
    b.pdf, the second record's first 2 paragraphs."""
    folder = tmp_path_factory.mktemp("docs")
    render_pdf(folder / "a.pdf", _paragraphs(RECORDS[0], 2), RECORDS[0]["evidences"])
    render_pdf(folder / "b.pdf", _paragraphs(RECORDS[1], 2), [])
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    read = read_source_with_skipped("documents", folder, "docs")
    return split_passages(pd.DataFrame(read.documents)).sort_values(["doc_id", "order"])


def test_a_headed_quote_names_the_heading_above_it_and_a_table_keeps_its_facts(passages):
    places = locate_passages(passages)
    a = passages[passages["doc_id"] == "docs/a.pdf"]
    title, text = _paragraphs(RECORDS[0], 1)[0]
    heading = a[a["kind"] == "heading"].iloc[0]
    body = a[a["kind"] == "passage"].iloc[0]
    assert heading["text"] == title and text.startswith(body["text"][:40])
    place = places[body["passage_id"]]
    assert quoted_text(place, "facts", "headed") == f"{title}: {body['text']}"
    assert quoted_text(place, "facts", "passage") == body["text"]
    table = places[a[a["kind"] == "table"]["passage_id"].iloc[0]]
    assert quoted_text(table, "facts", "headed") == quoted_text(table, "facts", "passage")
    assert quoted_text(table, "facts", "headed").startswith("Table Facts (subject")
    with pytest.raises(ValueError, match="ask.quote_form"):
        quoted_text(place, "facts", "titled")


def test_headed_quotes_leave_headings_out_and_max_documents_keeps_the_best_files(passages):
    places = locate_passages(passages)
    a = passages[passages["doc_id"] == "docs/a.pdf"]["passage_id"].tolist()
    b = passages[passages["doc_id"] == "docs/b.pdf"]["passage_id"].tolist()
    ranked = [b[1], a[0], a[1], b[0], *a[2:], *b[2:]]   # b's body first, then a's heading
    headings = {p for p in ranked if places[p].kind == "heading"}
    assert places[a[0]].kind == "heading" and places[b[0]].kind == "heading"
    assert quote_order(ranked, places, None, "passage") == ranked
    assert quote_order(ranked, places, None, "headed") == [p for p in ranked
                                                           if p not in headings]
    assert quote_order(ranked, places, 1, "passage") == [b[1], b[0], *b[2:]]
    assert quote_order(ranked, places, 2, "headed") == [p for p in ranked
                                                        if p not in headings]


def test_the_benchmark_scores_whether_the_gold_answer_was_quoted(tmp_path):
    questions = make_folder(tmp_path / "bench", json.loads(TRAIN.read_text()), 1)
    text, table, _ = questions
    answers = pd.DataFrame([
        # the text question's answer quoted and given; the table question's not quoted
        {"question_id": text["id"], "answer": f"It is {text['answer']} [1].",
         "mark": "supported", "context_ids": ["p1", "p2"], "retrieval_ms": 100.0,
         "latency_ms": 900.0},
        {"question_id": table["id"], "answer": "Not found in your documents.",
         "mark": "not found", "context_ids": ["p2"], "retrieval_ms": 100.0,
         "latency_ms": 1900.0}])
    quotes = {"p1": f"Born on {text['answer']}, in town.", "p2": "Nothing of it."}
    scored = score(answers, questions, quotes)
    assert scored["quoted"].tolist() == [True, False]
    assert scored["correct"].tolist() == [1.0, 0.0]
    assert scored["abstained"].tolist() == [False, True]
    assert scored["seconds"].tolist() == [1.0, 2.0]
    assert scored["correct_dates"].tolist() == [1.0, 0.0]


@pytest.mark.parametrize("answer, gold, same", [
    # the fourth folder's gold answers, and the reader's words for them
    ("Tina Arena was born on November 1, 1967 [11].", "1 November 1967", 1.0),
    ("Wu Ma died on February 4, 2014 [11].", "4 February 2014", 1.0),
    ("He was born on 22 March 1971.", "March 22, 1971", 1.0),
    ("He died in Paris in 1868 [2].", "13 November 1868", 0.0),       # the year alone
    ("He was born on 2 November 1967.", "1 November 1967", 0.0),      # another day
    ("It was released in 1998.", "1998", 0.0),                        # no full date asked
    ("Born in Glasgow.", "Glasgow", 0.0),
])
def test_a_full_date_counts_in_any_written_form(answer, gold, same):
    assert same_date(answer, gold) == same


def test_distinct_quotes_leave_a_word_for_word_repeat_out(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    shared = _paragraphs(RECORDS[0], 1)   # the same paragraph in both files
    render_pdf(folder / "a.pdf", shared + _paragraphs(RECORDS[1], 1), [])
    render_pdf(folder / "b.pdf", shared, [])
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    read = read_source_with_skipped("documents", folder, "docs")
    passages = split_passages(pd.DataFrame(read.documents)).sort_values(["doc_id", "order"])
    places = locate_passages(passages)
    a = passages[passages["doc_id"] == "docs/a.pdf"]["passage_id"].tolist()
    b = passages[passages["doc_id"] == "docs/b.pdf"]["passage_id"].tolist()
    assert [places[p].text for p in b] == [places[p].text for p in a[:len(b)]]
    ranked = [b[-1], *a]   # b's copy of the shared paragraph's last passage ranked first
    assert quote_order(ranked, places, None, "passage", "facts", True) == [
        b[-1], *[p for p in a if places[p].text != places[b[-1]].text]]
    # headed, the same text under the same heading is still a repeat; max_documents 1 then
    # keeps b's passages alone
    assert quote_order(ranked, places, 1, "headed", "facts", True) == [b[-1]]
    assert quote_order(ranked, places, None, "passage", "facts", False) == ranked
