"""The pip index `make` installs torch from when ``TORCH_INDEX`` is not given (``auto``).

Prints PyTorch's CPU index, https://download.pytorch.org/whl/cpu (the ~190 MB +cpu wheel), on a
Linux x86-64 machine without an NVIDIA GPU when that index answers within a few seconds; prints
nothing otherwise, so pip uses its configured index (on PyPI, Linux x86-64: the CUDA build,
~2.7 GB with its nvidia-* wheels; a machine whose pip index serves the +cpu wheel, as this
project's CI, keeps it). Says on stderr which it chose and why. Standard library only: it runs
before anything is installed.

    python scripts/torch_index.py
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys
import urllib.request

CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def nvidia_gpu() -> bool:
    """Whether ``nvidia-smi`` is on the PATH and lists a GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    try:
        listing = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return listing.returncode == 0 and "GPU" in listing.stdout


def reachable(url: str, timeout: float = 5.0) -> bool:
    """Whether ``url`` answers (any HTTP status below 400) within ``timeout`` seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status < 400
    except (OSError, ValueError):
        return False


def choose() -> tuple[str, str]:
    """``(index URL or "", reason)``."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return "", f"{sys.platform}/{platform.machine()}: torch from the configured pip index"
    if nvidia_gpu():
        return "", "an NVIDIA GPU: torch from the configured pip index (the CUDA build on PyPI)"
    if not reachable(f"{CPU_INDEX}/torch/"):
        return "", (f"no NVIDIA GPU, but {CPU_INDEX} does not answer: torch from the configured "
                    "pip index (set TORCH_INDEX to choose)")
    return CPU_INDEX, f"no NVIDIA GPU: the CPU build of torch from {CPU_INDEX}"


def main() -> None:
    index, reason = choose()
    print(f"torch index: {reason}", file=sys.stderr)
    print(index)


if __name__ == "__main__":
    main()
