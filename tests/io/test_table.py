"""TableDataset: the kedro-viz preview of a table with list-valued cells (a question's
answers) is JSON, where pandas.ParquetDataset's hands over numpy arrays."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from kedro_datasets.pandas import ParquetDataset

from kgp_kedro.corpus.sources import read_source_with_skipped
from kgp_kedro.corpus.schema import QUESTION_COLUMNS
from kgp_kedro.io.table import TableDataset
from tests.conftest import ROOT


@pytest.fixture
def questions():
    read = read_source_with_skipped(
        "hotpotqa", str(ROOT / "data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json"),
        "hotpotqa", 3, param_key="ingest.sources[0]")
    return pd.DataFrame(read.questions, columns=QUESTION_COLUMNS)


def test_the_preview_of_a_table_with_list_cells_is_json(tmp_path, questions):
    path = str(tmp_path / "questions.parquet")
    TableDataset(filepath=path).save(questions)
    with pytest.raises(TypeError):   # what kedro-viz got before: numpy arrays in the cells
        json.dumps(ParquetDataset(filepath=path).preview(nrows=2))
    preview = TableDataset(filepath=path).preview(nrows=2)
    json.dumps(preview)
    assert preview["columns"] == list(questions.columns)
    row = dict(zip(preview["columns"], preview["data"][0]))
    assert row["question"] == questions["question"].iloc[0]
    assert row["answers"] == list(questions["answers"].iloc[0])


def test_a_versioned_save_draws_one_version(tmp_path, questions, monkeypatch):
    """A versioned save draws one timestamp (Kedro would wrap the inherited ``save`` twice and
    draw two, warning that save and load versions differ when the clock ticks between them),
    and the version it saved is the one loaded back."""
    import kedro.io.core as kedro_io
    from kedro.io.core import Version

    drawn = []
    real = kedro_io.generate_timestamp
    monkeypatch.setattr(kedro_io, "generate_timestamp", lambda: drawn.append(1) or real())
    table = TableDataset(filepath=str(tmp_path / "questions.parquet"), version=Version(None, None))
    table.save(questions)
    assert len(drawn) == 1
    assert table.resolve_load_version() == table.resolve_save_version()
    pd.testing.assert_frame_equal(table.load(), questions)
