"""A table's row subjects as entities of the entity walk (``table_subjects``, issue 49): a
real 2Wiki train record's facts table rendered in a real PDF with the record's other
paragraphs, read back, and walked; the film "On Top of the World", which the offline linker
does not recognise, is reached through the table's first cell only with the option on."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from benchmarks.analyst_folders import _paragraphs, render_pdf
from kgp_kedro.corpus import split_passages
from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.graphs.entity_passage import row_subjects
from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.retrievers import Resources
from kgp_kedro.retrievers.run import CollectionSource

TRAIN = Path(__file__).resolve().parents[2] / "data/01_raw/2wikimultihopqa/train_sample500.json"
QUESTION = "What nationality is the director of film On Top Of The World (Film)?"


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """The record's table-kind PDF (its supporting paragraphs left out, its evidence as a
    facts table), read back into passages."""
    record = next(r for r in json.loads(TRAIN.read_text()) if r["question"] == QUESTION)
    docs = tmp_path_factory.mktemp("docs")
    render_pdf(docs / "a.pdf", _paragraphs(record, "table"), record["evidences"])
    (docs / "questions.jsonl").write_text(json.dumps({"id": "q", "question": QUESTION}) + "\n")
    read = read_source_with_skipped("documents", docs, "docs")
    passages = split_passages(pd.DataFrame(read.documents))
    return passages, str(tmp_path_factory.mktemp("mentions"))


def test_row_subjects_are_the_first_cells_of_a_table_of_three_columns_or_more():
    table = ("| subject | relation | object |\n| --- | --- | --- |\n"
             "| On Top of the World | director | Redd Davis |\n"
             "| Redd Davis | country of citizenship | Canadian |")
    assert row_subjects(table) == {"on top of the world", "redd davis"}
    assert row_subjects("| relation | value |\n| --- | --- |\n| father | Bolko II |") == set()
    assert row_subjects("On Top of the World is a 1936 British comedy film.") == set()


def test_the_walk_reaches_the_table_through_its_subject_only_with_the_option(folder):
    passages, cache = folder
    table_id = passages.loc[passages["kind"] == "table", "passage_id"].item()
    assert "| On Top of the World | director | Redd Davis |" in \
        passages.set_index("passage_id").loc[table_id, "text"]
    collection = CollectionSource(passages).get(passages["collection_id"].iloc[0])
    found, first = {}, {}
    for on in (False, True):
        spec = parse_method("ew", {"method": "entity_walk", "seeds_from": "tfidf",
                                   "passage_weight": 0.0, "table_subjects": on,
                                   "linker": {"cache_dir": cache}}, "retrieve.methods.ew")
        retriever = spec.retriever(spec.params, Resources(30))
        graph = retriever.scorer.graph(collection)
        found[on] = {graph.entities[e] for e in graph.question_entities(QUESTION)}
        first[on] = retriever.retrieve(QUESTION, collection)[0].passage_id
    # the linker knows no "On Top of the World": without the option no entity of the graph
    # is the film, and the table is not the walk's first passage
    assert "on top of the world" not in found[False] and first[False] != table_id
    assert "on top of the world" in found[True] and first[True] == table_id
