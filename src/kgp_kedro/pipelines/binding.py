"""A node's function with some of its arguments bound (a method's or variant's name, a graph
setting), as the stages build one node per configured entry."""
from __future__ import annotations

from collections.abc import Callable
from functools import partial, update_wrapper
from typing import Any


def bound(func: Callable[..., Any], /, **arguments: Any) -> Callable[..., Any]:
    """``func`` with ``arguments`` bound, keeping ``func``'s name and docstring: Kedro names
    the node's function by them and kedro-viz shows its code."""
    return update_wrapper(partial(func, **arguments), func)
