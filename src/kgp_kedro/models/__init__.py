"""Model access behind narrow interfaces: devices, sentence encoders, passage embeddings."""
from kgp_kedro.models.devices import resolve_device
from kgp_kedro.models.loading import load_encoder, load_seq2seq

__all__ = ["load_encoder", "load_seq2seq", "resolve_device"]
