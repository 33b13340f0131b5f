"""What an ask prompt quotes: a passage after the heading above it, a table under its heading
as read, with its neighbours (``ask.passage_window``), no heading alone, and the passages of the best-ranked files only
(``ask.max_documents``), on real 2Wiki train records rendered as real PDFs and read back; the
expectations computed by hand."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.analyst_folders import chained, latin, render_pdf
from kgp_kedro.asking import locate_passages
from kgp_kedro.asking.answers import quote_order, quoted_text, windows
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


def test_a_quote_names_the_heading_above_it_and_its_window(
        passages):
    places = locate_passages(passages)
    a = passages[passages["doc_id"] == "docs/a.pdf"]
    title, text = _paragraphs(RECORDS[0], 1)[0]
    heading = a[a["kind"] == "heading"].iloc[0]
    body = a[a["kind"] == "passage"].iloc[0]
    assert heading["text"] == title and text.startswith(body["text"][:40])
    place = places[body["passage_id"]]
    assert quoted_text(place) == f"{title}: {body['text']}"
    table = places[a[a["kind"] == "table"]["passage_id"].iloc[0]]
    assert table.text.startswith("| subject | relation | object |")
    # as read: the table on the lines under the heading above it
    assert quoted_text(table) == f"{table.heading}:\n{table.text}"
    # with its window: the passages before and after it in its file (the file's first: none
    # before it; a heading is no neighbour), under its label
    around = windows(places, 1)[body["passage_id"]]
    assert len(around) == 2 and around[0] == place and around[1].file == "a.pdf"
    assert around[1].kind != "heading"
    assert quoted_text(place, around) == \
        f"{title}: " + " ".join(p.text for p in around)


def test_quotes_leave_headings_out_and_max_documents_keeps_the_best_files(passages):
    places = locate_passages(passages)
    a = passages[passages["doc_id"] == "docs/a.pdf"]["passage_id"].tolist()
    b = passages[passages["doc_id"] == "docs/b.pdf"]["passage_id"].tolist()
    ranked = [b[1], a[0], a[1], b[0], *a[2:], *b[2:]]   # b's body first, then a's heading
    headings = {p for p in ranked if places[p].kind == "heading"}
    assert places[a[0]].kind == "heading" and places[b[0]].kind == "heading"
    kept = [p for p in ranked if p not in headings]
    assert quote_order(ranked, places, None) == kept
    assert quote_order(ranked, places, 1) == [p for p in kept if p in b]
    assert quote_order(ranked, places, 2) == kept
