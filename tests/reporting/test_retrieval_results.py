"""The committed retrieval measurements: a re-measured source replaces its rows and keeps the
others, and the generated table shows each source's numbers and where they were measured."""
from __future__ import annotations

import pandas as pd

from kgp_kedro.reporting.measurements import read_measurement, record_measurement
from kgp_kedro.reporting.results import regenerate
from kgp_kedro.reporting.retrieval_results import RETRIEVAL_COLUMNS, RETRIEVAL_KEY


def _rows(source: str, recalls: dict[str, float], load: str) -> pd.DataFrame:
    return pd.DataFrame([{"source": source, "method": m, "questions": 3, "recall_at_2": r / 2,
                          "recall_at_5": r, "sp_em_at_30": r / 4, "ms_per_question": 2.0,
                          "calls_per_question": 0.0, "wall_s": 1.0, "run": "env paper",
                          "cpu": "a CPU", "load": load, "date": "2026-11-25",
                          "git_commit": "abc1234"} for m, r in recalls.items()],
                        columns=RETRIEVAL_COLUMNS)


def test_a_remeasured_source_replaces_its_rows_and_the_table_shows_them(tmp_path):
    path = tmp_path / "retrieval" / "paper.csv"
    for rows in (_rows("musique", {"bm25": 0.4, "kgp": 0.6}, "1.0/1.0"),
                 _rows("hotpotqa", {"bm25": 0.5, "kgp": 0.7}, "2.0/2.0"),
                 _rows("musique", {"kgp": 0.8}, "3.0/3.0")):
        record_measurement(rows, path, RETRIEVAL_COLUMNS, RETRIEVAL_KEY)
    table = read_measurement(path, RETRIEVAL_COLUMNS)
    assert table[["source", "method"]].values.tolist() == [
        ["musique", "bm25"], ["hotpotqa", "bm25"], ["hotpotqa", "kgp"], ["musique", "kgp"]]
    assert table.set_index(["source", "method"]).loc[("musique", "kgp"), "recall_at_5"] == 0.8
    assert regenerate(tmp_path) == [tmp_path / "retrieval" / "tables.md"]
    text = (tmp_path / "retrieval" / "tables.md").read_text()
    assert "| bm25 | 0.200 / 0.400 / 0.100 (3) | 0.250 / 0.500 / 0.125 (3) |" in text
    assert "| kgp | 0.400 / 0.800 / 0.200 (3) | 0.350 / 0.700 / 0.175 (3) |" in text
    assert ("musique: a CPU, load 1.0/1.0, 2026-11-25, commit abc1234 and a CPU, load 3.0/3.0"
            in text)   # every place a source's rows were measured
    assert regenerate(tmp_path, check=True) == []


def test_a_kg_quality_measurement_renders_figure_5s_rows(tmp_path):
    from kgp_kedro.reporting.kg_quality_results import KG_QUALITY_COLUMNS, KG_QUALITY_KEY

    rows = pd.DataFrame([{"source": "hotpotqa", "variant": "tfidf", "setting": "n_kw=1",
                          "avg_neighbors": 5.62, "sf_em": 0.74, "precision": 0.093,
                          "recall": 0.879, "avg_passages": 125.8, "n_questions": 60,
                          "run": "make run", "cpu": "a CPU", "load": "1.0/1.0",
                          "date": "2026-11-25", "git_commit": "abc1234"}])
    record_measurement(rows, tmp_path / "kg_quality" / "default.csv", KG_QUALITY_COLUMNS,
                       KG_QUALITY_KEY)
    regenerate(tmp_path)
    text = (tmp_path / "kg_quality" / "tables.md").read_text()
    assert "| hotpotqa | tfidf | n_kw=1 | 60 | 126 | 5.6 | 0.740 | 0.093 | 0.879 |" in text


def test_index_time_per_1000_passages_sits_beside_ms_per_question(tmp_path):
    """All sources' index seconds over all their passages; a file recorded before the two
    columns existed reads with them empty and shows "–"."""
    from kgp_kedro.reporting.retrieval_results import RETRIEVAL_OPTIONAL

    rows = pd.concat([_rows("hotpotqa", {"dpr": 0.5}, "1.0/1.0").assign(passages=3000,
                                                                         index_s=6.0),
                      _rows("musique", {"dpr": 0.4}, "1.0/1.0").assign(passages=1000,
                                                                        index_s=2.0)])
    record_measurement(rows, tmp_path / "retrieval" / "new.csv", RETRIEVAL_COLUMNS,
                       RETRIEVAL_KEY, RETRIEVAL_OPTIONAL)
    old = _rows("hotpotqa", {"dpr": 0.5}, "1.0/1.0").drop(columns=list(RETRIEVAL_OPTIONAL))
    old.to_csv(tmp_path / "retrieval" / "old.csv", index=False)
    regenerate(tmp_path)
    text = (tmp_path / "retrieval" / "tables.md").read_text()
    new_part, old_part = text.split("#### new")[1], text.split("#### old")[1].split("####")[0]
    assert "| index s / 1,000 passages | ms / question |" in text
    assert "| dpr | 0.250 / 0.500 / 0.125 (3) | 0.200 / 0.400 / 0.100 (3) | 2.0 | 2.0 | 0.00 |" \
        in new_part                      # (6 + 2) s over 4,000 passages, per 1,000
    assert "| dpr | 0.250 / 0.500 / 0.125 (3) | – | 2.0 | 0.00 |" in old_part
    assert "filled when the measurement is run again" in old_part
