"""Struct-EM (Table 1's Comp column) and the page / table hit rates, computed by hand on a
tiny folder's passages, and their place in the summary and in Table 1."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.corpus.schema import PASSAGE_COLUMNS, QUESTION_COLUMNS
from kgp_kedro.evaluation.qa_scores import score_answers, summarise_scores
from kgp_kedro.reading import READ_COLUMNS
from kgp_kedro.reporting.qa_tables import comparison_table

PASSAGES = pd.DataFrame([
    ["d", "d/all", "d/a.pdf#0", "d/a.pdf", "a", "Intro.", 0, 1, "passage", False],
    ["d", "d/all", "d/a.pdf#1", "d/a.pdf", "a", "| x |", 1, 1, "table", False],
    ["d", "d/all", "d/a.pdf#2", "d/a.pdf", "a", "More.", 2, 2, "passage", False],
    ["d", "d/all", "d/a.pdf#3", "d/a.pdf", "a", "| y |", 3, 2, "table", True],
], columns=PASSAGE_COLUMNS)


def _question(qid, answer, structure=None):
    meta = json.dumps({"supporting_docs": [], **({"structure": structure} if structure else {})})
    return {"source": "d", "dataset": "documents", "question_id": qid, "collection_id": "d/all",
            "question": f"{qid}?", "answer": answer, "answers": [answer], "qtype": None,
            "n_hops": None, "meta": meta}


def test_struct_em_and_hit_rates_by_hand():
    questions = pd.DataFrame([
        _question("page", "Paris", {"file": "a.pdf", "page": 2}),          # right page, wrong answer
        _question("table", "42", {"file": "a.pdf", "page": 2, "table": 2}),  # right table and answer
        _question("table1", "7", {"file": "a.pdf", "table": 1}),           # saw only table 2
        _question("content", "Rome"),                                     # not structural
    ], columns=QUESTION_COLUMNS)
    seen = {"page": ["d/a.pdf#2"], "table": ["d/a.pdf#3"], "table1": ["d/a.pdf#3"],
            "content": ["d/a.pdf#0"]}
    said = {"page": "Lyon", "table": "42", "table1": "7", "content": "Rome"}
    answers = pd.DataFrame([{"source": "d", "question_id": q, "method": "kgp", "answer": said[q],
                             "raw_response": said[q], "context_ids": seen[q], "n_contexts": 1,
                             "n_cut": 0, "cut_ids": [], "prompt_tokens": 1,
                             "completion_tokens": 1, "latency_ms": 1.0, "cached": False,
                             "error": None} for q in seen], columns=READ_COLUMNS)
    scores = score_answers(questions, answers, PASSAGES, "kgp").set_index("question_id")
    assert scores["struct_em"].tolist()[:3] == [0.0, 1.0, 1.0]
    assert np.isnan(scores.loc["content", "struct_em"])
    assert scores.loc["page", "page_hit"] == 1.0 and scores.loc["table", "page_hit"] == 1.0
    assert np.isnan(scores.loc["table1", "page_hit"])            # no gold page
    assert scores.loc["table", "table_hit"] == 1.0
    assert scores.loc["table1", "table_hit"] == 0.0               # table 1 is d/a.pdf#1
    assert np.isnan(scores.loc["page", "table_hit"])
    summary = summarise_scores(scores.reset_index())
    # Struct-EM: 2 of the 3 structural questions; EM counts the content one too: 3 of 4
    assert summary["struct_em"].item() == 2 / 3 and summary["em"].item() == 3 / 4
    assert summary["page_hit"].item() == 1.0 and summary["table_hit"].item() == 0.5
    table1 = comparison_table(summary)
    assert table1["d/struct_em"].item() == pytest.approx(200 / 3)
    assert table1["d/table_hit"].item() == 50.0
