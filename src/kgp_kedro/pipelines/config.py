"""Parameters that shape pipelines: KG variants (``kg.variants``) and retrieval methods
(``retrieve.methods``).

Pipelines are built before parameters reach any node, so these are read here with the
project's config loader, as Kedro's docs do for pipelines shaped by configuration. Adding a KG
variant or a retrieval method is a YAML block, not code.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kedro.config import OmegaConfigLoader
from kedro.framework.project import settings
from kedro.utils import find_kedro_project

BUILDERS = ("tfidf", "knn", "entity")


def load_parameters(conf_source: str | Path | None = None) -> dict[str, Any]:
    """The project's parameters.

    The project is the Kedro project holding the working directory (so a notebook in
    ``notebooks/`` finds it too); the run environment comes from ``KEDRO_ENV`` (default
    ``local``, over ``base``).
    """
    if conf_source is None:
        project = find_kedro_project(Path.cwd())
        if project is None:
            raise FileNotFoundError(f"{Path.cwd()} is not inside a Kedro project: run Kedro "
                                    "from the project (its pyproject.toml has [tool.kedro])")
        conf_source = Path(project) / settings.CONF_SOURCE
    conf = Path(conf_source)
    if not conf.is_dir():
        raise FileNotFoundError(f"no configuration folder at {conf}")
    loader = OmegaConfigLoader(conf_source=str(conf), base_env="base",
                               default_run_env="local", env=os.environ.get("KEDRO_ENV"))
    return loader["parameters"]


def load_kg_variants(conf_source: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """``{variant name: its parameters}``, each with a ``builder`` of :data:`BUILDERS`."""
    variants = load_parameters(conf_source).get("kg", {}).get("variants", {})
    if not variants:
        raise ValueError("no KG variants configured under kg.variants")
    for name, spec in variants.items():
        if spec.get("builder") not in BUILDERS:
            raise ValueError(f"kg.variants.{name}.builder must be one of {BUILDERS}, "
                             f"got {spec.get('builder')!r}")
    return dict(variants)


def load_retrieval_methods(conf_source: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """``{method name: its parameters}`` from ``retrieve.methods``."""
    methods = load_parameters(conf_source).get("retrieve", {}).get("methods", {})
    if not methods:
        raise ValueError("no retrieval methods configured under retrieve.methods")
    return dict(methods)
