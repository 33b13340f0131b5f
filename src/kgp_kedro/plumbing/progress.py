"""Progress of the long loops (encoding, entity linking, KG building, retrieval, reading) in the
log, beside the tqdm bar: items done / total, rate and estimated time left.

A bar shows only on a terminal (tqdm's ``disable=None``); a run sent to a file, a scheduler or
a cluster's worker logs keeps these lines instead. A loop shorter than ``interval`` seconds
logs nothing, so a small run stays quiet; a longer one logs a line every ``interval`` seconds
and a last one when it ends.
"""
from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")

logger = logging.getLogger(__name__)

INTERVAL_SECONDS = 30.0


def duration(seconds: float) -> str:
    """``seconds`` as ``1h 02m``, ``4m 18s`` or ``12s``."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


class Progress:
    """A tqdm bar over ``total`` items that also logs, through ``logging``, at most every
    ``interval`` seconds: ``<desc>: 120/1000 (12%), 3.4/s, about 4m 18s left``.

    ``update`` may be called from several threads (an LLM backend's concurrent calls).
    ``clock`` is the time source (seconds, monotonic); tests pass a fake one."""

    def __init__(self, desc: str, total: int, interval: float = INTERVAL_SECONDS,
                 log: logging.Logger = logger,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.desc, self.total, self.interval = desc, int(total), interval
        self.done = 0
        self._log, self._clock = log, clock
        self._start = self._last = clock()
        self._logged = False
        self._lock = threading.Lock()
        self._bar = tqdm(total=self.total, desc=desc, leave=False, disable=None)

    def update(self, n: int = 1) -> None:
        with self._lock:
            self.done += n
            self._bar.update(n)
            now = self._clock()
            if now - self._last < self.interval or self.done >= self.total:
                return   # not yet; or the end, which close() says
            self._last = now
            self._logged = True
        self._log.info("%s", self.status(now))

    def status(self, now: float | None = None) -> str:
        """The progress line: done / total, percent, rate, estimated time left."""
        elapsed = (self._clock() if now is None else now) - self._start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        line = f"{self.desc}: {self.done}/{self.total}"
        if self.total:
            line += f" ({100 * self.done / self.total:.0f}%)"
        line += f", {rate:.3g}/s"
        if rate > 0 and self.done < self.total:
            line += f", about {duration((self.total - self.done) / rate)} left"
        return line

    def close(self) -> None:
        self._bar.close()
        if self._logged:   # a loop long enough to have logged also says when it ended
            elapsed = self._clock() - self._start
            self._log.info("%s: %d/%d done in %s", self.desc, self.done, self.total,
                           duration(elapsed))

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def track(items: Iterable[T], desc: str, total: int | None = None,
          interval: float = INTERVAL_SECONDS, log: logging.Logger = logger) -> Iterator[T]:
    """``items``, one by one, with a :class:`Progress` (``total``: ``len(items)`` when not
    given) logging to ``log``."""
    if total is None:
        total = len(items)  # type: ignore[arg-type]
    with Progress(desc, total, interval, log) as progress:
        for item in items:
            yield item
            progress.update()
