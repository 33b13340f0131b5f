"""Model access behind narrow interfaces: devices, sentence encoders, passage embeddings."""
from kgp_kedro.models.devices import resolve_device
from kgp_kedro.models.generators import load_generator
from kgp_kedro.models.loading import load_encoder

__all__ = ["load_encoder", "load_generator", "resolve_device"]
