"""Model access behind narrow interfaces: devices and sentence encoders."""
from kgp_kedro.models.devices import resolve_device
from kgp_kedro.models.encoders import SentenceEncoder, resolve_model_path

__all__ = ["SentenceEncoder", "resolve_device", "resolve_model_path"]
