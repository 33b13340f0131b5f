"""A KG variant's edges as a chunked Parquet file, read one collection and setting at a time.

``kg_edges_<variant>`` of a paper-size run holds hundreds of millions of rows (the TF-IDF
sweep alone ~15.6M edges for 40 MuSiQue collections of 748 passages), so neither its build nor
its readers hold it whole: the build writes one Parquet row group per collection and setting
as it goes (:meth:`EdgeTable.write`), and a reader asks for the rows of the one collection and
setting it is working on (:meth:`EdgeTable.chunk`), reading only that row group. Memory then
grows with the largest collection, not with the number of questions.

The file is an ordinary Parquet file with the :data:`~kgp_kedro.graphs.model.EDGE_COLUMNS`
(``pandas.read_parquet`` reads it whole, as before); the row groups' ``(collection_id,
setting)`` are listed in its key-value metadata (:data:`CHUNKS_KEY`). A file without that list
(written before, as one table) is read whole and served from memory.
"""
from __future__ import annotations

import json
import os
import tempfile
import weakref
from collections.abc import Iterable, Iterator
from typing import IO, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from kgp_kedro.graphs.model import EDGE_COLUMNS

CHUNKS_KEY = b"kgp_kedro.edge_chunks"
_TEXT = ["collection_id", "setting", "src", "dst", "relation", "qualifiers", "evidence"]
SCHEMA = pa.schema([(c, pa.dictionary(pa.int32(), pa.string())) if c in _TEXT
                    else (c, pa.float64() if c == "weight" else pa.bool_())
                    for c in EDGE_COLUMNS])


def _arrow(chunk: pd.DataFrame) -> pa.Table:
    """One chunk of edge rows in :data:`SCHEMA` (text columns dictionary-encoded)."""
    arrays = []
    for field in SCHEMA:
        values = chunk[field.name]
        if field.name in _TEXT:
            cat = pd.Categorical(values) if not isinstance(values.dtype, pd.CategoricalDtype) \
                else values.array
            arrays.append(pa.DictionaryArray.from_arrays(
                pa.array(np.asarray(cat.codes, dtype=np.int32), mask=np.asarray(cat.codes) < 0),
                pa.array(np.asarray(cat.categories, dtype=object), type=pa.string())))
        else:
            arrays.append(pa.array(np.asarray(values, dtype=field.type.to_pandas_dtype())))
    return pa.Table.from_arrays(arrays, schema=SCHEMA)


def chunks_of(edges: pd.DataFrame) -> Iterator[pd.DataFrame]:
    """An edge table's rows per ``(collection_id, setting)``, in order of first appearance."""
    if edges.empty:
        return
    for _, chunk in edges.groupby(["collection_id", "setting"], sort=False, observed=True):
        yield chunk


class EdgeTable:
    """A ``kg_edges_*`` Parquet file served per collection and setting (see the module)."""

    def __init__(self, source: str | os.PathLike | IO[bytes]) -> None:
        self._file = pq.ParquetFile(source)
        self.path = source if isinstance(source, (str, os.PathLike)) else None
        listed = (self._file.metadata.metadata or {}).get(CHUNKS_KEY)
        self._whole: pd.DataFrame | None = None
        if listed is None:   # a file written as one table: served from memory
            self._whole = self._file.read().to_pandas()
            self._index = dict(self._whole.groupby(["collection_id", "setting"], sort=False,
                                                   observed=True).groups)
            self._whole_keys = list(self._index)
        else:
            keys = [tuple(k) for k in json.loads(listed)]
            self._index = {k: i for i, k in enumerate(keys)}
            self._whole_keys = keys
        self.settings = list(dict.fromkeys(s for _, s in self._whole_keys))
        self._owner: Any = None

    @classmethod
    def write(cls, chunks: Iterable[pd.DataFrame], sink: str | os.PathLike | IO[bytes]) -> int:
        """Write ``chunks`` (each the rows of one collection and setting) as one row group
        each; returns the rows written. An empty chunk writes nothing."""
        keys, rows = [], 0
        with pq.ParquetWriter(sink, SCHEMA) as writer:
            for chunk in chunks:
                if chunk.empty:
                    continue
                key = (str(chunk["collection_id"].iloc[0]), str(chunk["setting"].iloc[0]))
                if key in keys:
                    raise ValueError(f"edge chunk {key} written twice")
                writer.write_table(_arrow(chunk), row_group_size=max(len(chunk), 1))
                keys.append(key)
                rows += len(chunk)
            writer.add_key_value_metadata({CHUNKS_KEY: json.dumps(keys).encode()})
        return rows

    @classmethod
    def spill(cls, chunks: Iterable[pd.DataFrame]) -> "EdgeTable":
        """``chunks`` written to a temporary file (deleted with the returned table): what a
        KG build hands to the catalog, which copies it to the dataset's path."""
        handle, path = tempfile.mkstemp(prefix="kg_edges_", suffix=".parquet")
        os.close(handle)
        try:
            cls.write(chunks, path)
        except BaseException:
            os.unlink(path)
            raise
        table = cls(path)
        table._owner = weakref.finalize(table, _remove, path)
        return table

    def __deepcopy__(self, memo: dict) -> "EdgeTable":
        return self   # read-only: a memory dataset's copy shares the file

    def __reduce__(self):
        """Pickled as its path (a process runner's workers reopen the file); a spilled
        table's file lives as long as the table that made it."""
        if self.path is None:
            raise TypeError("an EdgeTable read from an open file cannot be pickled")
        return type(self), (self.path,)

    def __len__(self) -> int:
        return self._file.metadata.num_rows if self._whole is None else len(self._whole)

    def keys(self) -> list[tuple[str, str]]:
        """``(collection_id, setting)`` of every chunk, in file order."""
        return list(self._whole_keys)

    def chunk(self, collection_id: str, setting: str) -> pd.DataFrame:
        """The edge rows of one collection under one setting (none: an empty table)."""
        found = self._index.get((collection_id, setting))
        if found is None:
            return pd.DataFrame(columns=EDGE_COLUMNS)
        if self._whole is not None:
            return self._whole.loc[found]
        return self._file.read_row_group(found).to_pandas()

    def chunks(self) -> Iterator[pd.DataFrame]:
        for collection_id, setting in self._whole_keys:
            yield self.chunk(collection_id, setting)

    def to_pandas(self) -> pd.DataFrame:
        """Every row as one table (as ``pandas.read_parquet`` reads the file)."""
        return self._whole if self._whole is not None else self._file.read().to_pandas()


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
