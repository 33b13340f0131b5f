"""Citations of an ask answer: each passage located by file and page (PDF) or heading (a
format without pages) on real files, and a cited number that names no quote of the prompt
dropped (checked by hand)."""
from __future__ import annotations

import json

import pandas as pd

from kgp_kedro.asking import check_citations, locate_passages, source_label
from kgp_kedro.asking.answers import attribute
from kgp_kedro.corpus import split_passages
from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.ewek.composer import keep_citations
from tests.corpus.files import make_pdf, paragraphs


def test_a_passage_is_located_by_file_and_page_or_by_the_heading_above_it(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    texts = make_pdf(folder / "a.pdf")
    (folder / "notes.md").write_text(f"# Notes\n\nIntro.\n\n## Early life\n\n{texts[3][1]}\n")
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    read = read_source_with_skipped("documents", folder, "docs")
    passages = split_passages(pd.DataFrame(read.documents))
    places = locate_passages(passages)
    pdf = passages[passages["doc_id"] == "docs/a.pdf"]
    second_page = pdf[pdf["page"] == 2].iloc[0]
    assert source_label(places[second_page.passage_id]) == "a.pdf, p. 2"
    md = passages[passages["doc_id"] == "docs/notes.md"]
    body = md[md["text"].str.startswith(texts[3][1][:30])].iloc[0]
    assert source_label(places[body.passage_id]) == "notes.md, § Early life"
    assert places[body.passage_id].text == body.text


def test_a_citation_of_no_quote_is_dropped_and_counted():
    reply = "He was born in 1941 [1] and wrote operas [3, 7]; see also [9]."
    kept, dropped = check_citations(reply, 4)
    assert (kept, dropped) == ([1, 3], [7, 9])
    assert keep_citations(reply, set(kept)) == "He was born in 1941 [1] and wrote operas [3];" \
                                               " see also."


def test_an_answer_citing_nothing_is_attributed_to_the_quote_sharing_most_words():
    quotes = [text for _, text in paragraphs(3)]
    answer = " ".join(quotes[1].split()[:12])   # words of the second quote only
    assert attribute(answer, quotes) == 2
    assert attribute("Nothing in common here.", quotes) is None
