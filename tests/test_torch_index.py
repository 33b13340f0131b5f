"""`make`'s torch build choice (scripts/torch_index.py, ``TORCH_INDEX=auto``): PyTorch's CPU index
on a machine without an NVIDIA GPU when that index answers, else pip's configured index (empty
output), so a machine that reaches only a package mirror (CI) still installs."""
from __future__ import annotations

import http.server
import os
import platform
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "torch_index.py"
sys.path.insert(0, str(SCRIPT.parent))
import torch_index  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform != "linux" or platform.machine() != "x86_64",
                                reason="the CPU index is chosen on Linux x86-64 only")


@pytest.fixture(autouse=True)
def no_proxy_for_localhost(monkeypatch):
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture(scope="module")
def local_index():
    """A local HTTP server standing in for the CPU index: answers 200 on every path."""
    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html></html>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _path_with(tmp_path: Path, gpus: str | None) -> str:
    """A PATH whose ``nvidia-smi`` (a fake shell script, when ``gpus`` is given) lists ``gpus``,
    and none otherwise."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if gpus is not None:
        fake = bin_dir / "nvidia-smi"
        fake.write_text(f"#!/bin/sh\necho '{gpus}'\n")
        fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return str(bin_dir)


def test_reachable_is_an_answering_server(local_index):
    assert torch_index.reachable(local_index + "/torch/")
    assert not torch_index.reachable(f"http://127.0.0.1:{_closed_port()}/torch/", timeout=2)
    assert not torch_index.reachable("not a url")


@pytest.mark.parametrize("gpus,answers,expected", [
    (None, True, "cpu index"),                  # no GPU, the index answers
    (None, False, ""),                          # no GPU, the index unreachable: configured index
    ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)", True, ""),   # a GPU: configured (CUDA) index
    ("No devices were found", True, "cpu index"),               # nvidia-smi without a GPU
])
def test_the_choice(tmp_path, monkeypatch, local_index, gpus, answers, expected):
    index = local_index if answers else f"http://127.0.0.1:{_closed_port()}"
    monkeypatch.setenv("PATH", _path_with(tmp_path, gpus))
    monkeypatch.setattr(torch_index, "CPU_INDEX", index)
    chosen, reason = torch_index.choose()
    assert chosen == (index if expected == "cpu index" else "")
    assert ("NVIDIA GPU" in reason) and (("does not answer" in reason) == (gpus is None and not answers))


def test_the_script_prints_the_index_alone_on_stdout(tmp_path):
    """What the Makefile reads: one line on stdout (empty: the configured index), the reason on
    stderr. Run with a PATH without nvidia-smi, against this machine's network."""
    done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PATH": _path_with(tmp_path, None)})
    assert done.returncode == 0
    assert done.stdout.strip() in ("", torch_index.CPU_INDEX)
    assert done.stderr.startswith("torch index: no NVIDIA GPU")
