"""kgp_kedro.plumbing.parallel: the same results from a plain loop and from a real 2-process Dask
cluster, the work really done on the workers, an item's error raised as itself."""
from __future__ import annotations

import os

import pytest

from kgp_kedro.plumbing import parallel


def scaled(item: int, factor: int) -> tuple[int, int]:
    """``item * factor`` and the process that computed it."""
    return item * factor, os.getpid()


def lengths(chunk, offset: int) -> list[int]:
    return [len(text) + offset for text in chunk]


def refuse_three(item: int) -> int:
    if item == 3:
        raise ValueError(f"item {item} refused")
    return item


def test_without_a_client_a_plain_loop_in_this_process():
    assert parallel.active_client() is None
    assert parallel.map(scaled, [1, 2, 3], 10) == [(10, os.getpid()), (20, os.getpid()),
                                                   (30, os.getpid())]


def test_on_the_cluster_the_same_results_computed_by_the_workers(dask_client):
    items = list(range(12))
    with dask_client.as_current():
        assert parallel.active_client() is dask_client
        spread = parallel.map(scaled, items, 10)
    assert [value for value, _ in spread] == [10 * i for i in items]
    workers = set(dask_client.run(os.getpid).values())
    assert {pid for _, pid in spread} <= workers and os.getpid() not in workers
    assert len({pid for _, pid in spread}) == 2   # both workers took items


def test_chunks_do_not_depend_on_the_cluster(dask_client):
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    assert parallel.chunks(texts, 2) == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    alone = parallel.map_chunks(lengths, texts, 2, 100)
    with dask_client.as_current():
        spread = parallel.map_chunks(lengths, texts, 2, 100)
    assert alone == spread == [101, 102, 103, 104, 105]
    with pytest.raises(ValueError, match="chunk size must be positive"):
        parallel.chunks(texts, 0)


def test_an_items_error_is_raised_as_itself(dask_client):
    with pytest.raises(ValueError, match="item 3 refused"):
        parallel.map(refuse_three, [1, 2, 3])
    with dask_client.as_current(), pytest.raises(ValueError, match="item 3 refused"):
        parallel.map(refuse_three, [1, 2, 3, 4])
