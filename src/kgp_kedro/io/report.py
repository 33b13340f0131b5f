"""A text report (Markdown, HTML) written where a reader finds it, saying where on save."""
from __future__ import annotations

import logging
from pathlib import Path

from kedro_datasets.text import TextDataset

logger = logging.getLogger(__name__)


class ReportDataset(TextDataset):
    """``text.TextDataset`` whose save logs the file written (its absolute path), so the run
    tells where its report is."""

    def save(self, data: str) -> None:
        super().save(data)
        logger.info("Report written: %s", Path(str(self._get_save_path())).resolve())
