""""The same tables" where bit-exact floats are not promised: every discrete value (ids, edges,
ranks, answers, the columns, their dtypes and order) exactly, floats within a stated tolerance.

Encoder floats are not bit-exact across processes on every CPU: an fp32 matrix product moves a
vector's last bits with the number of PyTorch threads (measured on this project's AMD EPYC:
up to 1.0e-7 for 1 % of MiniLM vectors between 1 and 2 threads; on an Intel Xeon 40 % of the
printed vectors moved), and a Dask worker runs 1 thread where the calling process may run
several. Each test states its tolerance: a few orders above that noise, far below any real
change."""
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


def float_columns(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns
            if pd.api.types.is_float_dtype(table[c]) or _float_rows(table[c])]


def assert_same_table(actual: pd.DataFrame, expected: pd.DataFrame, name: str, rtol: float,
                      atol: float) -> None:
    """``actual`` equals ``expected``: columns, index and every non-float value exactly; float
    columns, and columns of float sequences (each row's length exactly), within ``rtol`` /
    ``atol``, NaN where NaN, their dtypes exactly."""
    assert list(actual.columns) == list(expected.columns), name
    floats = float_columns(expected)
    pd.testing.assert_frame_equal(actual.drop(columns=floats), expected.drop(columns=floats),
                                  check_exact=True, obj=name)
    for column in floats:
        got, want = actual[column], expected[column]
        assert got.dtype == want.dtype, f"{name}.{column}: {got.dtype} != {want.dtype}"
        if _float_rows(want):   # each row's length exactly, then every value
            assert _float_rows(got), f"{name}.{column}: not a column of float sequences"
            assert [len(v) for v in got] == [len(v) for v in want], f"{name}.{column}: lengths"
            assert {np.asarray(v).dtype for v in got if len(v)} == {
                np.asarray(v).dtype for v in want if len(v)}, f"{name}.{column}: dtypes"
            got, want = (np.concatenate([np.asarray(v, dtype=float) for v in rows])
                         for rows in (got, want))
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol,
                                   err_msg=f"{name}.{column}")
