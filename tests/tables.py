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


def _vectors(column: pd.Series) -> bool:
    """A column of float arrays (an embedding per row)."""
    return (column.dtype == object and len(column) > 0
            and all(isinstance(v, np.ndarray) and v.dtype.kind == "f" for v in column))


def float_columns(table: pd.DataFrame) -> list[str]:
    return [c for c in table.columns
            if pd.api.types.is_float_dtype(table[c]) or _vectors(table[c])]


def assert_same_table(actual: pd.DataFrame, expected: pd.DataFrame, name: str, rtol: float,
                      atol: float) -> None:
    """``actual`` equals ``expected``: columns, index and every non-float value exactly, float
    columns (and columns of float vectors) within ``rtol`` / ``atol``, their dtypes exactly."""
    assert list(actual.columns) == list(expected.columns), name
    floats = float_columns(expected)
    pd.testing.assert_frame_equal(actual.drop(columns=floats), expected.drop(columns=floats),
                                  check_exact=True, obj=name)
    for column in floats:
        got, want = actual[column], expected[column]
        assert got.dtype == want.dtype, f"{name}.{column}: {got.dtype} != {want.dtype}"
        if _vectors(want):
            assert _vectors(got), f"{name}.{column}: not a column of float vectors"
            assert [v.dtype for v in got] == [v.dtype for v in want], f"{name}.{column}"
            got, want = np.stack(got.to_numpy()), np.stack(want.to_numpy())
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol,
                                   err_msg=f"{name}.{column}")
