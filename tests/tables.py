""""The same tables", bit for bit: every value, the columns, their dtypes and order, with NaN
equal to NaN inside a column of float sequences too (an entity mention's "no score"), which
``pandas.testing.assert_frame_equal`` compares as Python lists (where ``nan != nan``)."""
from __future__ import annotations

import numpy as np
import pandas as pd


def _float_rows(column: pd.Series) -> bool:
    """A column whose rows are sequences of floats (an embedding, a list of mention scores
    with NaN for "none"), of any lengths."""
    if column.dtype != object or len(column) == 0:
        return False
    rows = [np.asarray(v) if isinstance(v, (list, tuple, np.ndarray)) else None for v in column]
    return (all(r is not None and r.ndim == 1 for r in rows)
            and any(len(r) for r in rows)
            and all(r.dtype.kind == "f" for r in rows if len(r)))


def assert_same_table(actual: pd.DataFrame, expected: pd.DataFrame, name: str) -> None:
    """``actual`` equals ``expected`` exactly: columns, index, dtypes and every value; a
    column of float sequences row by row (each row's length, dtype and bits, NaN where NaN)."""
    assert list(actual.columns) == list(expected.columns), name
    sequences = [c for c in expected.columns if _float_rows(expected[c])]
    pd.testing.assert_frame_equal(actual.drop(columns=sequences),
                                  expected.drop(columns=sequences), check_exact=True, obj=name)
    for column in sequences:
        got, want = actual[column], expected[column]
        assert _float_rows(got), f"{name}.{column}: not a column of float sequences"
        assert len(got) == len(want), f"{name}.{column}: rows"
        for i, (g, w) in enumerate(zip(got, want)):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape, f"{name}.{column}[{i}]"
            assert np.array_equal(g, w, equal_nan=True), f"{name}.{column}[{i}]: {g} != {w}"
