"""Data-parallel map over a Dask cluster when one is active, else a plain loop.

The heavy per-item work (reading files, encoding passage chunks, entity linking, one
collection's KG) goes through :func:`map`. Under :class:`kgp_kedro.runs.runner.DaskRunner`, or in a
notebook holding a ``distributed.Client``, the items are spread over the cluster's workers;
otherwise (``kedro run``'s default runner, tests, scripts) they run one after the other in this
process. The result is the same list either way: ``fn`` sees the same items, in chunks that
never depend on the number of workers, and the results come back in the items' order.

``distributed`` is imported only when it already is (someone made a client): a project
installed without the ``dask`` extra never imports it.
"""
from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any, TypeVar

from kgp_kedro.plumbing.progress import INTERVAL_SECONDS, Progress

T = TypeVar("T")
R = TypeVar("R")

logger = logging.getLogger(__name__)


def active_client() -> Any | None:
    """The ``distributed.Client`` work would go to: this worker's client when called inside
    a task on a Dask worker, the default client of this process otherwise; ``None`` when
    there is none (or ``distributed`` was never imported)."""
    distributed = sys.modules.get("distributed")
    if distributed is None:
        return None
    try:
        distributed.get_worker()
        return distributed.get_client()
    except ValueError:   # not on a worker
        pass
    try:
        return distributed.default_client()
    except ValueError:   # no client in this process
        return None


@contextmanager
def _cluster(client: Any):
    """``client``, seceded from the worker's thread pool when this code runs in a task (a
    task that waits on tasks it submitted must free its slot, or a busy cluster deadlocks)."""
    distributed = sys.modules["distributed"]
    try:
        distributed.get_worker()
    except ValueError:
        yield client
        return
    with distributed.worker_client() as worker_client:
        yield worker_client


def map(fn: Callable[..., R], items: Iterable[T], *shared: Any, desc: str = "items",
        interval: float = INTERVAL_SECONDS,
        progress: Progress | None = None) -> list[R]:   # noqa: A001 (the module's verb)
    """``[fn(item, *shared) for item in items]``, spread over the active Dask cluster's
    workers when there is one (:func:`active_client`) and there are at least two items.

    ``shared`` objects (a builder with its features, an encoder's parameters) are sent to the
    cluster once, not once per item. Progress (done / total, rate, time left) is logged
    every ``interval`` seconds under ``desc`` (:class:`~kgp_kedro.plumbing.progress.Progress`), or
    counted on the caller's ``progress`` (a longer loop that calls this in rounds) instead.
    An item that raises raises here, with the item's own exception."""
    items = list(items)
    client = active_client() if len(items) > 1 else None
    with (nullcontext(progress) if progress is not None
          else Progress(desc, len(items), interval, logger)) as progress:
        if client is None:
            results = []
            for item in items:
                results.append(fn(item, *shared))
                progress.update()
            return results
        distributed = sys.modules["distributed"]
        with _cluster(client) as cluster:
            # items and shared objects go to the workers as data, not inside the task graph
            # (a large graph is slow to send, and Dask warns about it)
            # (each object whole: a list scattered as such would become a list of futures)
            sent = [cluster.scatter([obj], broadcast=True, hash=False)[0] for obj in shared]
            scattered = cluster.scatter(items, hash=False)
            futures = cluster.map(fn, scattered, *[[s] * len(items) for s in sent], pure=False)
            try:
                for _ in distributed.as_completed(futures):
                    progress.update()
                return cluster.gather(futures)
            finally:
                cluster.cancel(futures)


def chunks(items: Sequence[T], size: int) -> list[Sequence[T]]:
    """``items`` in consecutive slices of ``size`` (the last one shorter)."""
    if size < 1:
        raise ValueError(f"chunk size must be positive, got {size}")
    return [items[i:i + size] for i in range(0, len(items), size)]


def map_chunks(fn: Callable[..., Sequence[R]], items: Sequence[T], size: int, *shared: Any,
               desc: str = "items") -> list[R]:
    """``fn`` over ``items`` ``size`` at a time (``fn(chunk, *shared)`` returns one result per
    item of its chunk), through :func:`map`; the results flattened in the items' order. The
    chunks depend on ``size`` only, so a cluster and a plain loop give ``fn`` the same
    batches."""
    parts = chunks(items, size)
    out: list[R] = []
    for part, result in zip(parts, map(fn, parts, *shared, desc=f"{desc} (chunks of {size})")):
        if len(result) != len(part):
            raise ValueError(f"{desc}: {len(result)} results for a chunk of {len(part)}")
        out.extend(result)
    return out

