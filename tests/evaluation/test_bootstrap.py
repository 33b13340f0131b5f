"""The percentile bootstrap over questions (F1 and F1 / Golden F1), checked against simple
loops written here, and its use in Table 1 and the QA figure."""
import numpy as np
import pandas as pd
import pytest

from kgp_kedro.evaluation.bootstrap import (mean_interval, percentile_interval, ratio_interval,
                                            resample_indices, resampled_means)
from kgp_kedro.evaluation.qa_scores import summarise_scores
from kgp_kedro.reporting.qa_tables import comparison_table, plot_qa_comparison, score_intervals


def _quantile(sorted_values, q):
    """Linear interpolation between order statistics (numpy's default), by hand."""
    position = q * (len(sorted_values) - 1)
    below = int(position)
    above = min(below + 1, len(sorted_values) - 1)
    return sorted_values[below] + (position - below) * (sorted_values[above] - sorted_values[below])


def _reference(values, n_resamples, seed, statistic):
    """One resample at a time, one index at a time, with the same seeded generator."""
    rng = np.random.default_rng(seed)
    stats = []
    for _ in range(n_resamples):
        drawn = [int(rng.integers(0, len(values))) for _ in range(len(values))]
        stats.append(statistic(drawn))
    stats = sorted(stats)
    return _quantile(stats, 0.025), _quantile(stats, 0.975)


def test_all_equal_scores_give_a_zero_width_interval():
    assert mean_interval([0.4] * 7, n_resamples=200, seed=3) == pytest.approx((0.4, 0.4))
    assert mean_interval([1.0], n_resamples=50) == (1.0, 1.0)   # one question: nothing varies


def test_no_questions_give_no_interval():
    low, high = mean_interval([])
    assert np.isnan(low) and np.isnan(high)


def test_a_two_valued_sample_matches_a_seeded_loop():
    values = [0.0, 1.0, 1.0, 0.0, 1.0]
    expected = _reference(values, 400, 11, lambda idx: sum(values[i] for i in idx) / len(idx))
    assert mean_interval(values, n_resamples=400, seed=11) == pytest.approx(expected)
    # the mean of 5 draws is a multiple of 1/5; 3/5 lies inside, the bounds inside [0, 1]
    low, high = expected
    assert 0.0 <= low < 0.6 < high <= 1.0


def test_the_interval_is_seeded_and_narrows_with_more_questions():
    values = [0.0, 1.0] * 5
    assert mean_interval(values, seed=5) == mean_interval(values, seed=5)
    wide = np.subtract(*mean_interval(values, seed=5)[::-1])
    narrow = np.subtract(*mean_interval(values * 20, seed=5)[::-1])
    assert narrow < wide


def test_resampled_means_count_each_drawn_question():
    indices = np.array([[0, 0, 2], [1, 2, 2]])
    values = np.array([[0.0, 1.0], [0.5, np.nan], [1.0, 1.0]])   # method 2 lacks question 1
    means = resampled_means(values, indices)
    # resample 0: questions 0, 0, 2 -> (0 + 0 + 1) / 3 and (1 + 1 + 1) / 3
    # resample 1: questions 1, 2, 2 -> (0.5 + 1 + 1) / 3, and method 2 (1 + 1) / 2 (no NaN)
    assert means == pytest.approx(np.array([[1 / 3, 1.0], [2.5 / 3, 1.0]]))
    assert resample_indices(4, 3, seed=0).shape == (3, 4)


def test_the_ratio_is_paired_on_the_same_resampled_questions():
    golden = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0]
    # a method that scores exactly half of Golden on every question: on every paired resample
    # its ratio is 0.5, so the interval has zero width; unpaired draws would spread it
    assert ratio_interval([g / 2 for g in golden], golden, n_resamples=300, seed=2) == \
        pytest.approx((0.5, 0.5))
    assert ratio_interval(golden, golden, n_resamples=300, seed=2) == pytest.approx((1.0, 1.0))
    rng = np.random.default_rng(2)
    unpaired = [np.mean(rng.choice(golden, 6)) / np.mean(rng.choice(golden, 6)) for _ in range(300)]
    assert np.percentile(unpaired, 97.5) - np.percentile(unpaired, 2.5) > 0.5


def test_the_ratio_matches_a_seeded_loop():
    method = [0.0, 1.0, 0.5, 1.0]
    golden = [1.0, 1.0, 0.5, 0.5]

    def ratio(idx):
        return sum(method[i] for i in idx) / sum(golden[i] for i in idx)
    expected = _reference(method, 500, 4, ratio)
    assert ratio_interval(method, golden, n_resamples=500, seed=4) == pytest.approx(expected)


def test_the_ratio_is_undefined_when_golden_scores_zero_on_a_resample():
    # Golden F1 is 0 on question 1; a resample drawing it twice (1 in 4) has a zero denominator
    low, high = ratio_interval([1.0, 1.0], [1.0, 0.0], n_resamples=100, seed=0)
    assert np.isnan(low) and np.isnan(high)
    with pytest.raises(ValueError, match="differ in length"):
        ratio_interval([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="confidence"):
        percentile_interval(np.zeros(3), confidence=1.0)


# --- in the report: Table 1's interval columns and the figure's error bars -------------------

F1 = {"golden": [1.0, 0.0, 1.0, 0.5], "bm25": [0.5, 0.0, 0.5, 0.25], "none": [0.0, 0.0, 1.0, 0.0]}


def _scores():
    rows = []
    for source, n in (("hotpotqa", 4), ("musique", 3)):
        for method, f1 in F1.items():
            for i in range(n):
                # question ids listed out of order: the resamples follow the sorted ids
                j = (i * (n - 1)) % n       # 0, 3, 2, 1 and 0, 2, 1
                qid, value = f"{source}-q{j}", f1[j]
                rows.append({"source": source, "question_id": qid, "method": method, "qtype": "x",
                             "em": value, "f1": value, "acc": np.nan, "hits1": value,
                             "failed": False, "context_sp_recall": 1.0, "n_contexts": 1,
                             "prompt_tokens": 10, "completion_tokens": 1,
                             "reader_latency_ms": 1.0})
    return pd.DataFrame(rows)


def test_score_intervals_resample_each_sources_questions_for_every_method():
    intervals = score_intervals(_scores(), n_resamples=200, seed=9).set_index(
        ["source", "method"])
    for method, f1 in F1.items():
        expected = mean_interval(f1, n_resamples=200, seed=9)
        row = intervals.loc[("hotpotqa", method)]
        assert (row["f1_low"], row["f1_high"]) == pytest.approx(expected)
        expected = ratio_interval(f1, F1["golden"], n_resamples=200, seed=9)
        assert row["f1_vs_golden_low"] == pytest.approx(expected[0], nan_ok=True)
        assert row["f1_vs_golden_high"] == pytest.approx(expected[1], nan_ok=True)
    # bm25 is half of Golden on every question: paired, its ratio interval is [0.5, 0.5]
    assert intervals.loc[("hotpotqa", "bm25"), ["f1_vs_golden_low", "f1_vs_golden_high"]
                         ].tolist() == pytest.approx([0.5, 0.5])
    assert intervals.loc[("musique", "golden"), "questions"] == 3
    # a method's interval does not depend on which other methods were scored
    alone = score_intervals(_scores().query("method == 'none'"), n_resamples=200, seed=9)
    assert alone["f1_low"].tolist() == intervals.xs("none", level="method")["f1_low"].tolist()
    assert alone["f1_vs_golden_low"].isna().all()           # no Golden row: no ratio


def test_table1_has_the_intervals_and_the_question_counts():
    scores = _scores()
    summary = summarise_scores(scores)
    intervals = score_intervals(scores, n_resamples=200, seed=9)
    table = comparison_table(summary, ["none", "golden", "bm25"], intervals=intervals
                             ).set_index("method")
    assert list(table.columns[:10]) == [
        "hotpotqa/acc", "hotpotqa/hits1", "hotpotqa/em", "hotpotqa/f1", "hotpotqa/f1_low",
        "hotpotqa/f1_high", "hotpotqa/f1_vs_golden", "hotpotqa/f1_vs_golden_low",
        "hotpotqa/f1_vs_golden_high", "hotpotqa/questions"]
    assert table["hotpotqa/acc"].isna().all()               # no judge ran
    assert table.loc["bm25", "hotpotqa/f1"] == pytest.approx(100 * 1.25 / 4)
    low, high = mean_interval(F1["bm25"], n_resamples=200, seed=9)
    assert table.loc["bm25", ["hotpotqa/f1_low", "hotpotqa/f1_high"]].tolist() == \
        pytest.approx([100 * low, 100 * high])               # in percent, as the F1 column
    assert table.loc["bm25", "hotpotqa/f1_vs_golden"] == pytest.approx(0.5)
    assert table["hotpotqa/questions"].tolist() == [4, 4, 4]
    assert table["musique/questions"].tolist() == [3, 3, 3]
    assert table["questions"].tolist() == [7, 7, 7]
    # without per-question scores the interval columns are there, empty
    bare = comparison_table(summary, ["none", "golden"])
    assert bare["hotpotqa/f1_low"].isna().all() and "hotpotqa/f1_vs_golden_high" in bare


def test_the_figure_has_error_bars_and_says_how_many_questions():
    scores = _scores()
    table = comparison_table(summarise_scores(scores), ["none", "golden", "bm25"],
                             intervals=score_intervals(scores, n_resamples=200, seed=9))
    fig = plot_qa_comparison(table, "f1")
    assert [a.text for a in fig.layout.annotations] == ["HotpotQA (n = 4 questions)",
                                                        "MuSiQue (n = 3 questions)"]
    bars = fig.data[0]
    assert list(bars.x) == ["none", "golden", "bm25"]
    high = table["hotpotqa/f1_high"] - table["hotpotqa/f1"]
    low = table["hotpotqa/f1"] - table["hotpotqa/f1_low"]
    assert list(bars.error_y.array) == pytest.approx(high.tolist())
    assert list(bars.error_y.arrayminus) == pytest.approx(low.tolist())
    assert "bootstrap interval" in fig.layout.title.text
    # Hits@1 has no interval: bars without error bars, still with the question counts
    fig = plot_qa_comparison(table, "hits1")
    assert fig.data[0].error_y.array is None and "Hits@1" in fig.layout.title.text
    assert "4 questions" in fig.data[0].hovertext[0]


def test_the_musique_rows_rest_on_its_own_three_questions():
    intervals = score_intervals(_scores(), n_resamples=200, seed=9).set_index(
        ["source", "method"])
    expected = mean_interval(F1["none"][:3], n_resamples=200, seed=9)
    row = intervals.loc[("musique", "none")]
    assert (row["f1_low"], row["f1_high"]) == pytest.approx(expected)
