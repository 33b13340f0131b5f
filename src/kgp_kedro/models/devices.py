"""Device selection shared by every tensor computation."""
from __future__ import annotations


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
