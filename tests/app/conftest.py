"""The ask app's browser test's fixtures: the system's headless Chromium (CI's ``make
install-static`` installs ``chromium-headless-shell``; Playwright drives it, offline, through
``executable_path``: Playwright's own browser download needs the internet) and a Voilà server of
the app's notebook in a project copy."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

APP_NOTEBOOK = "notebooks/ask_app.ipynb"
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")
SERVER_START_S = 60   # Voilà's server up (not the notebook: it runs when the page is opened)


@pytest.fixture(scope="session")
def chromium() -> str:
    """The path of the system's Chromium; the test is skipped where none is installed."""
    for name in BROWSERS:
        if path := shutil.which(name):
            return path
    pytest.skip(f"no Chromium found ({', '.join(BROWSERS)}): `make install-static` installs "
                "chromium-headless-shell")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serve_app(project: Path, log: Path) -> Iterator[str]:
    """``voila notebooks/ask_app.ipynb`` in ``project`` (as ``make app`` serves it) on a free
    local port: its URL while the server runs, its output in ``log``."""
    port = _free_port()
    env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1")
    env.pop("KEDRO_ENV", None)
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "voila", APP_NOTEBOOK, "--no-browser", f"--port={port}",
             "--Voila.ip=127.0.0.1", "--show_tracebacks=True"],
            cwd=project, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"voila did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.2)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
