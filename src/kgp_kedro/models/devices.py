"""Device selection and thread count shared by every tensor computation."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


def resolve_device(device: str = "auto") -> str:
    """``'auto'`` picks ``cuda`` when a GPU is visible, then ``mps``, else ``cpu``.

    Any explicit torch device string (``'cpu'``, ``'cuda:1'``) is returned unchanged after a
    check that it is available, so a misconfigured GPU fails loudly instead of silently slow.
    """
    import torch

    if device == "auto":
        if torch.cuda.is_available():
            return "cuda"
        if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
            return "mps"
        return "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RuntimeError(f"device {device!r} requested but no CUDA GPU is available")
    return device


@contextmanager
def torch_threads(threads: int | None) -> Iterator[None]:
    """PyTorch's intra-op threads set to ``threads`` inside the block and restored after
    (``None``: left as they are). A backward pass sums its gradients in an order that follows
    the thread count, so training under a fixed count gives the same weights whatever
    ``OMP_NUM_THREADS`` or the number of cores (on one kind of CPU)."""
    import torch

    if threads is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)
