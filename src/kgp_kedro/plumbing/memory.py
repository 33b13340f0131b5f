"""Handing freed heap memory back to the system between the items of a long loop.

glibc's allocator keeps memory a program freed for its next allocations, and raises its
threshold for mapping large blocks each time one is freed, so a loop whose items each allocate
and free a few large arrays (one collection's ``n x n`` similarity and sort tensors) holds a
little more after every item: the paper env's KNN build grew ~7 MB a collection, 3 to 7 GB over
584 collections, with nothing of it live. ``malloc_trim`` returns the free pages of every arena
to the system; the loop then holds what it uses."""
from __future__ import annotations

import ctypes
import functools


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim`` from the C library this process already runs on (no library
    search, no subprocess); ``None`` elsewhere."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):   # not glibc (musl, macOS): nothing to trim
        return None


def release_free_memory() -> bool:
    """Return the allocator's free pages to the system (glibc's ``malloc_trim(0)``); whether
    any was returned. Elsewhere than glibc it does nothing and returns ``False``."""
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
