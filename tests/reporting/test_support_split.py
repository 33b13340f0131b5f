"""``kgp`` against DPR split by the supporting passages their prompts hold, computed by hand on
five questions, and the tables' block that shows it."""
import numpy as np
import pandas as pd
import pytest

from kgp_kedro.evaluation.qa_scores import SCORE_COLUMNS
from kgp_kedro.reporting.results import render_tables
from kgp_kedro.reporting.support_split import support_split


def _answers() -> pd.DataFrame:
    """(question, method, F1, share of the supporting passages in the prompt): q1 only kgp's
    prompt holds them all, q2 and q3 both, q4 neither (kgp the larger share), q5 only DPR's;
    Golden answered q1-q5 (q5 with its share unknown: its F1 still counts); q6 was read by kgp
    alone."""
    rows = [("q1", "kgp", 1.0, 1.0), ("q1", "dpr", 0.0, 0.5), ("q1", "golden", 1.0, 1.0),
            ("q2", "kgp", 0.5, 1.0), ("q2", "dpr", 1.0, 1.0), ("q2", "golden", 1.0, 1.0),
            ("q3", "kgp", 0.0, 1.0), ("q3", "dpr", 0.5, 1.0), ("q3", "golden", 0.0, 1.0),
            ("q4", "kgp", 0.0, 0.5), ("q4", "dpr", 0.0, 0.0), ("q4", "golden", 0.5, 1.0),
            ("q5", "kgp", 0.25, 0.5), ("q5", "dpr", 1.0, 1.0), ("q5", "golden", 0.75, np.nan),
            ("q6", "kgp", 1.0, 1.0)]
    frame = pd.DataFrame(rows, columns=["question_id", "method", "f1", "context_sp_recall"])
    return frame.assign(source="hotpotqa")


def test_each_group_is_its_questions_means_and_paired_difference():
    split = support_split(_answers()).set_index("group")
    expected = {   # group: (questions, Golden F1, kgp F1, DPR F1, kgp - DPR)
        "only `kgp`'s prompt holds every supporting passage": (1, 1.0, 1.0, 0.0, 1.0),
        "both hold every supporting passage": (2, 0.5, 0.25, 0.75, -0.5),
        "neither": (1, 0.5, 0.0, 0.0, 0.0),
        "only DPR's": (1, 0.75, 0.25, 1.0, -0.75),
        "`kgp`'s prompt holds a larger share": (2, 0.75, 0.5, 0.0, 0.5),
        "the same share": (2, 0.5, 0.25, 0.75, -0.5),
        "a smaller share": (1, 0.75, 0.25, 1.0, -0.75),
    }
    assert list(split.index) == list(expected)
    for group, (n, golden, kgp, dpr, diff) in expected.items():
        row = split.loc[group]
        assert row["questions"] == n
        assert row[["golden_f1", "kgp_f1", "dpr_f1", "kgp_minus_dpr"]].tolist() == \
            pytest.approx([golden, kgp, dpr, diff], nan_ok=True)


def test_each_groups_difference_comes_with_its_paired_interval():
    """A group whose questions differ alike has that difference as both ends; the larger-share
    group's differences are +1 (q1) and 0 (q4), so a resample's mean is 0, 0.5 or 1, each end
    drawn a quarter of the time: the 95 % interval is [0, 1]."""
    split = support_split(_answers()).set_index("group")
    both = split.loc["both hold every supporting passage"]
    assert (both["kgp_minus_dpr_low"], both["kgp_minus_dpr_high"]) == \
        pytest.approx((-0.5, -0.5))
    larger = split.loc["`kgp`'s prompt holds a larger share"]
    assert (larger["kgp_minus_dpr_low"], larger["kgp_minus_dpr_high"]) == \
        pytest.approx((0.0, 1.0))


def test_each_group_counts_the_questions_either_method_answers_better():
    """Same share: q2 and q3 (DPR better on both); larger share: q1 (kgp better) and q4 (alike)."""
    split = support_split(_answers()).set_index("group")
    assert split.loc["the same share", ["kgp_better", "dpr_better"]].tolist() == [0, 2]
    assert split.loc["`kgp`'s prompt holds a larger share",
                     ["kgp_better", "dpr_better"]].tolist() == [1, 0]


def test_the_tables_show_the_split_only_where_kgp_and_dpr_were_both_read():
    answers = _answers().assign(failed=False, prompt_tokens=100, completion_tokens=4,
                                llm_calls=1, reader_latency_ms=1000.0, n_contexts=2,
                                ran_as=lambda f: f["method"], qtype="bridge", n_hops=2)
    answers = answers.reindex(columns=list(dict.fromkeys([*answers, *SCORE_COLUMNS])))
    shown = render_tables(answers, "toy")
    assert "#### `kgp` against DPR by the supporting passages their prompts hold" in shown
    assert "| only `kgp`'s prompt holds every supporting passage | 1 | 100.0 | 100.0 | 0.0 " \
           "| +100.0 [+100.0, +100.0] | 1 / 0 |" in shown
    assert "against DPR by the supporting" not in render_tables(
        answers[answers["method"] != "dpr"], "toy")
