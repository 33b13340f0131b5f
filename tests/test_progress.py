"""The long loops' log lines: done / total, rate, time left, at most every interval."""
from __future__ import annotations

import logging

from kgp_kedro.plumbing.progress import Progress, duration, track


class FakeClock:
    """A fake monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_durations_read_as_hours_minutes_seconds():
    assert [duration(s) for s in (0, 12.4, 258, 3720)] == ["0s", "12s", "4m 18s", "1h 02m"]


def test_a_line_every_interval_with_rate_and_time_left(caplog):
    clock = FakeClock()
    log = logging.getLogger("kgp_kedro.test_progress")
    with caplog.at_level(logging.INFO, logger=log.name):
        with Progress("encode", 100, interval=30, log=log, clock=clock) as progress:
            clock.now += 10
            progress.update(20)       # 10 s in: below the interval, nothing logged
            clock.now += 30
            progress.update(20)       # 40 done in 40 s: 1/s, 60 left -> 1 min
            clock.now += 5
            progress.update(10)       # 5 s after the last line: nothing
            clock.now += 55
            progress.update(50)       # all done: the closing line says it
    lines = [r.getMessage() for r in caplog.records if r.name == log.name]
    assert lines == ["encode: 40/100 (40%), 1/s, about 1m 00s left",
                     "encode: 100/100 done in 1m 40s"]


def test_a_short_loop_logs_nothing(caplog):
    with caplog.at_level(logging.INFO, logger="kgp_kedro.plumbing.progress"):
        assert list(track(range(5), "short")) == [0, 1, 2, 3, 4]
    # only the progress logger's records: caplog also holds other loggers' lines, e.g. the
    # session dask cluster's scheduler cancelling an earlier test's keys at any moment
    assert [r for r in caplog.records if r.name == "kgp_kedro.plumbing.progress"] == []
