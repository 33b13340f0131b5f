"""The KG variants named in ``conf/<env>/parameters_kg.yml`` (``kg.variants``).

Pipelines are built before parameters reach any node, so the variant names are read here with
the project's config loader, as Kedro's docs do for pipelines shaped by configuration. Adding a
variant is a YAML block under ``kg.variants``, with a ``builder`` of :data:`BUILDERS`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kedro.config import OmegaConfigLoader
from kedro.framework.project import settings
from kedro.utils import find_kedro_project

BUILDERS = ("tfidf", "knn", "entity")


def load_kg_variants(conf_source: str | Path | None = None) -> dict[str, dict[str, Any]]:
    """``{variant name: its parameters}`` from the project's configuration.

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
    variants = loader["parameters"].get("kg", {}).get("variants", {})
    if not variants:
        raise ValueError(f"no KG variants configured under kg.variants in {conf}")
    for name, spec in variants.items():
        if spec.get("builder") not in BUILDERS:
            raise ValueError(f"kg.variants.{name}.builder must be one of {BUILDERS}, "
                             f"got {spec.get('builder')!r}")
    return dict(variants)
