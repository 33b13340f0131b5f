"""Trained models cached by what made them: the digest of the training examples, the training
parameters and the base model's files, so an unchanged re-run loads the model instead of
training it again. A cached model is a model folder ``<cache_dir>/<kind>-<digest>`` (sentence-transformers or transformers)
written under a temporary name and renamed when complete (a killed run leaves no half-written
model behind)."""
from __future__ import annotations

import hashlib
import json
import logging
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from kgp_kedro.models.cache import path_fingerprint

logger = logging.getLogger(__name__)

COMPLETE = "modules.json"   # written by SentenceTransformer.save, last of the config files


def training_digest(examples: Iterable[Any], params: Mapping[str, Any], base_model_path: str
                    ) -> str:
    """sha256 (hex, 20 characters) over the parameters, the base model's files and every
    example (a dataclass's fields, or a tuple's items, as sorted-key JSON, streamed: no copy
    of the examples)."""
    digest = hashlib.sha256()
    digest.update(json.dumps(dict(params), sort_keys=True, default=str).encode())
    digest.update(path_fingerprint(base_model_path).encode())
    for example in examples:
        digest.update(json.dumps(asdict(example) if is_dataclass(example) else example,
                                 sort_keys=True).encode())
        digest.update(b"\n")
    return digest.hexdigest()[:20]


def cached_model(cache_dir: str | Path, kind: str, digest: str, train: Callable[[], Any],
                 load: Callable[[str], Any], complete: str = COMPLETE) -> tuple[Any, bool]:
    """``(model, cached)``: the model saved under ``<cache_dir>/<kind>-<digest>`` (its file
    ``complete`` there) loaded with ``load`` when it is there, else ``train()``'s model, saved
    there first (``model.save(path)``)."""
    folder = Path(cache_dir) / f"{kind}-{digest}"
    if (folder / complete).exists():
        logger.info("%s: unchanged training data and parameters (%s): loading %s, not training",
                    kind, digest, folder)
        return load(str(folder)), True
    model = train()
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    model.save(str(partial))
    partial.rename(folder)
    return model, False
