"""kgp_kedro.plumbing.memory: freed heap memory handed back to the system (the KNN build's growth)."""
import subprocess
import sys

import pytest

from kgp_kedro.plumbing.memory import _malloc_trim

# a fresh interpreter, so the heap is this script's alone: 100 MiB freed in the middle of the
# heap (under a block still held) stays resident until the allocator is told to trim
SCRIPT = """
import os
from kgp_kedro.plumbing.memory import release_free_memory
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
start = rss()
blocks = [b"x" * 65536 for _ in range(1600)]
held = b"y" * 65536
del blocks
kept = rss()
returned = release_free_memory()
print(returned, (kept - start) / 2**20, (kept - rss()) / 2**20)
"""


@pytest.mark.skipif(_malloc_trim() is None or sys.platform != "linux",
                    reason="malloc_trim is glibc's (Linux)")
def test_freed_heap_memory_is_returned_only_when_released():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         check=True).stdout.split()
    returned, kept_mib, released_mib = out[0] == "True", float(out[1]), float(out[2])
    assert kept_mib > 80       # freed, but still resident: what grew per collection
    assert returned
    assert released_mib > 80   # handed back
