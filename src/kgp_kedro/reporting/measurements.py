"""Committed measurements (``results/<kind>/<name>.csv``): tables a benchmark script or a run
computed, each row with where it was measured (:data:`PROVENANCE_COLUMNS`: the run's setting in
words, CPU, load average, date, git commit). A later recording replaces the rows with the same key and
keeps the others, so one file can grow piece by piece (e.g. source by source); the file is
written whole and renamed (an interrupted write leaves the previous one)."""
from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from kgp_kedro.plumbing.atomic import write_atomic

PROVENANCE_COLUMNS = ["run", "cpu", "load", "date", "git_commit"]


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``; the platform's processor elsewhere)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def load_line() -> str:
    """The 1-, 5- and 15-minute load averages and the CPU count, for a benchmark's printout."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def provenance(run: str, root: Path) -> dict[str, str | None]:
    """Where a measurement is being taken: ``run`` (its setting in words), the CPU, the 1- and 5-minute load
    averages, today's date and the git commit of ``root`` (None outside a checkout)."""
    one, five, _ = os.getloadavg()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=root, check=False).stdout.strip() or None
    except OSError:
        commit = None
    return {"run": run, "cpu": cpu_model(),
            "load": f"{one:.1f}/{five:.1f} on {os.cpu_count()} CPUs",
            "date": dt.date.today().isoformat(), "git_commit": commit}


def read_measurement(path: Path, columns: Sequence[str],
                     optional: Sequence[str] = ()) -> pd.DataFrame:
    """One committed measurement (empty with ``columns`` when the file does not exist); the
    ``optional`` columns, added to a kind after some of its files were recorded, are empty
    where a file lacks them."""
    if not Path(path).exists():
        return pd.DataFrame(columns=list(columns))
    table = pd.read_csv(path, keep_default_na=False, na_values=[""])
    for column in optional:
        if column not in table.columns:
            table[column] = float("nan")
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise ValueError(f"{path}: not this kind of measurement, columns missing: "
                         f"{', '.join(missing)}")
    return table[list(columns)]


def record_measurement(rows: pd.DataFrame, path: Path, columns: Sequence[str],
                       key: Sequence[str], optional: Sequence[str] = ()) -> pd.DataFrame:
    """Add ``rows`` to the measurement at ``path``, replacing the rows with the same ``key``
    values (an ``optional`` column ``rows`` lack is left empty). Returns the whole table, rows
    in the order first recorded."""
    old = read_measurement(path, columns, optional)
    new = rows.assign(**{c: float("nan") for c in optional if c not in rows.columns}
                      )[list(columns)]
    kept = old[~old.set_index(list(key)).index.isin(new.set_index(list(key)).index)]
    table = pd.concat([kept, new], ignore_index=True) if len(kept) else new.reset_index(drop=True)
    write_atomic(Path(path), table.to_csv(index=False, lineterminator="\n").encode("utf-8"))
    return table


def measured_where(table: pd.DataFrame, by: str = "source") -> str:
    """One line: where each ``by`` group of a measurement was measured (every distinct CPU,
    load, date and commit of its rows)."""
    def where(group: pd.DataFrame) -> str:
        places = group[["cpu", "load", "date", "git_commit"]].astype(str).drop_duplicates()
        return " and ".join(f"{c}, load {load}, {d}, commit {g}"
                            for c, load, d, g in places.itertuples(index=False))
    return "Measured: " + "; ".join(f"{value}: {where(g)}"
                                    for value, g in table.groupby(by, sort=False)) + "."
