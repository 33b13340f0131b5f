"""A parquet table whose kedro-viz preview shows list-valued cells (a question's answers, a
passage's entities): pandas hands them over as numpy arrays, which kedro-viz cannot serialise,
so ``pandas.ParquetDataset``'s preview of such a table fails."""
from __future__ import annotations

from typing import Any

import numpy as np
from kedro_datasets._typing import TablePreview
from kedro_datasets.pandas import ParquetDataset


def plain(value: Any) -> Any:
    """``value`` as JSON-ready Python: arrays as lists, numpy scalars as Python scalars."""
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


class TableDataset(ParquetDataset):
    """``pandas.ParquetDataset`` with a preview kedro-viz can show for any column type."""

    def preview(self, nrows: int = 5) -> TablePreview:
        split = super().preview(nrows)
        split["data"] = [[plain(v) for v in row] for row in split["data"]]
        return split


# Kedro wraps ``save`` again for a subclass that inherits a wrapped one (its versioned wrapper
# is not marked as one), so a save would draw two timestamps and, when the clock ticks between
# them, warn that its save and load versions differ: the parent's once-wrapped ``save`` instead.
TableDataset.save = ParquetDataset.save  # type: ignore[method-assign]
