"""The errors raised for malformed input files and bad source parameters."""
from __future__ import annotations

from pathlib import Path

from kgp_kedro.config.base import ParameterError  # noqa: F401 - the one parameter error


class DatasetFormatError(ValueError):
    """A dataset file does not have the expected native format.

    The message names the file and the record (index and id where known), so a user can
    open the file at the faulty place.
    """

    def __init__(self, path: str | Path, record: str, reason: str) -> None:
        self.path = str(path)
        self.record = record
        self.reason = reason
        super().__init__(f"{self.path}: {record}: {reason}")
