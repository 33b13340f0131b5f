"""The CPUs this process may run on."""
from __future__ import annotations

import os


def usable_cpus() -> int:
    """How many CPUs this process may run on: its affinity mask where the OS has one (a
    ``taskset``, a container's cpuset, a test worker given its own cores), else every core.
    Thread pools sized to :func:`os.cpu_count` alone oversubscribe a process confined to fewer
    CPUs, and llama.cpp's threads, which busy-wait for each other, then slow down many times."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1
