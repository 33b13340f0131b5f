"""A plotly figure saved as interactive HTML and, beside it in the same version folder, as
static images (SVG, PNG) that show in any viewer.

Static images are drawn by kaleido, which drives a Chrome or Chromium it finds on the machine
(``apt-get install chromium-headless-shell`` on Debian/Ubuntu, ``make install-static``; or a
browser named by the ``BROWSER_PATH`` environment variable). Without one the HTML is saved alone
and the run log says once how to get the images; nothing else changes.
"""
from __future__ import annotations

import atexit
import functools
import logging
import os
import shutil
from pathlib import PurePosixPath
from typing import Any

from kedro.io.core import get_filepath_str
from kedro_datasets.plotly import HTMLDataset

logger = logging.getLogger(__name__)

FORMATS = ("svg", "png", "pdf")
# what choreographer (kaleido's browser driver) looks for on PATH, headless shell first
BROWSERS = ("chromium-headless-shell", "chrome-headless-shell", "chromium", "chromium-browser",
            "google-chrome", "google-chrome-stable", "chrome")


@functools.cache
def find_browser() -> str | None:
    """The browser kaleido will drive: ``BROWSER_PATH`` if set, else the first of
    :data:`BROWSERS` on PATH; ``None`` when there is none."""
    named = os.environ.get("BROWSER_PATH")
    if named:
        return named if os.path.exists(named) else None
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


@functools.cache
def _say_once_there_is_no_browser() -> None:
    logger.info("Figures are saved as HTML only: static SVG/PNG copies need a Chrome or Chromium "
                "(apt-get install chromium-headless-shell, or `make install-static`; or set "
                "BROWSER_PATH)")


@functools.cache
def _kaleido(browser: str):
    """kaleido with one browser kept open for the whole run (the first figure starts it, ~5 s;
    each further image takes ~0.5 s), closed when the process exits."""
    os.environ.setdefault("BROWSER_PATH", browser)
    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    atexit.register(kaleido.stop_sync_server, silence_warnings=True)
    return kaleido


class FigureDataset(HTMLDataset):
    """``plotly.HTMLDataset`` plus static copies: ``static_formats`` (e.g. ``[svg, png]``)
    are written next to the HTML file, with its stem (``qa_figure.html`` ->
    ``qa_figure.svg``), in the same version folder when versioned."""

    def __init__(self, *, static_formats: list[str] | None = None,
                 static_scale: float = 2.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        formats = list(static_formats or [])
        unknown = [f for f in formats if f not in FORMATS]
        if unknown:
            raise ValueError(f"FigureDataset({kwargs.get('filepath')}): static_formats "
                             f"{unknown} are not among {', '.join(FORMATS)}")
        self._static_formats = formats
        self._static_scale = static_scale

    def _describe(self) -> dict[str, Any]:
        return {**super()._describe(), "static_formats": self._static_formats}

    def save(self, data) -> None:
        save_path = get_filepath_str(self._get_save_path(), self._protocol)
        with self._fs.open(save_path, **self._fs_open_args_save) as fs_file:
            data.write_html(fs_file, **self._save_args)
        if self._static_formats:
            self._save_static(data, save_path)
        self._invalidate_cache()

    def static_paths(self, html_path: str) -> list[str]:
        """Where the static copies of the figure saved at ``html_path`` go."""
        path = PurePosixPath(html_path)
        return [str(path.with_suffix(f".{fmt}")) for fmt in self._static_formats]

    def _save_static(self, data, html_path: str) -> None:
        browser = find_browser()
        if browser is None:
            _say_once_there_is_no_browser()
            return
        kaleido = _kaleido(browser)
        for fmt, path in zip(self._static_formats, self.static_paths(html_path)):
            image = kaleido.calc_fig_sync(data, opts={"format": fmt, "scale": self._static_scale})
            with self._fs.open(path, mode="wb") as fs_file:
                fs_file.write(image)
