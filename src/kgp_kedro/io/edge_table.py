"""``kg_edges_<variant>``: a chunked Parquet edge table, loaded as an
:class:`~kgp_kedro.graphs.edge_table.EdgeTable` that reads one collection and setting at a
time (bounded memory on paper-size runs; ``EdgeTable.to_pandas()`` gives the whole table)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
from kedro.io.core import DatasetError, get_filepath_str

from kgp_kedro.io.table import TableDataset
from kgp_kedro.graphs.edge_table import EdgeTable, chunks_of


class EdgeTableDataset(TableDataset):
    """Saves a DataFrame or an :class:`EdgeTable` (a KG build's spilled file, copied chunk by
    chunk) as one row group per collection and setting; loads an :class:`EdgeTable`."""

    def load(self) -> EdgeTable:  # type: ignore[override]
        load_path = get_filepath_str(self._get_load_path(), self._protocol)
        if self._protocol == "file":
            return EdgeTable(load_path)
        return EdgeTable(self._fs.open(load_path, **self._fs_open_args_load))

    def save(self, data: pd.DataFrame | EdgeTable) -> None:  # type: ignore[override]
        save_path = get_filepath_str(self._get_save_path(), self._protocol)
        if Path(save_path).is_dir():
            raise DatasetError(f"Saving {type(self).__name__} to a directory is not supported.")
        chunks = data.chunks() if isinstance(data, EdgeTable) else chunks_of(data)
        with self._fs.open(save_path, **self._fs_open_args_save) as fs_file:
            EdgeTable.write(chunks, fs_file)
        self._invalidate_cache()
