"""The parameters that shape the pipelines (KG variants, retrieval methods, encoders), taken
from the running session so that ``kedro run --env X`` and ``--params`` change what runs
exactly as they change what the nodes read.

:class:`~kgp_kedro.hooks.ValidateParameters` validates the session's parameters when its
context is created, before any node runs, and activates them here; ``register_pipelines`` then
shapes the pipelines from them. Outside a session (``kedro registry list``) the project's
configuration is read with the project's config loader settings and ``KEDRO_ENV``.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kedro.config import OmegaConfigLoader

from kgp_kedro.config.project import Parameters, complete_parameters, validate_parameters

_active: tuple[Any, Parameters] | None = None


def activate(raw: Mapping[str, Any]) -> bool:
    """Validate ``raw`` and make it the parameters pipelines are shaped from; whether they
    differ from the ones active before."""
    global _active
    if _active is not None and _active[0] == raw:
        return False
    _active = (raw, validate_parameters(raw))
    return True


def active() -> Parameters:
    if _active is None:
        activate(project_parameters())
    assert _active is not None
    return _active[1]


def project_parameters() -> dict[str, Any]:
    """The project's raw parameter tree (conf/base + the run env, ``KEDRO_ENV`` or local)."""
    from kedro.framework.project import settings
    from kedro.utils import find_kedro_project

    project = find_kedro_project(Path.cwd())
    if project is None:
        raise FileNotFoundError(f"{Path.cwd()} is not inside a Kedro project: run Kedro from the "
                                "project (its pyproject.toml has [tool.kedro])")
    loader = settings.CONFIG_LOADER_CLASS(conf_source=str(Path(project) / settings.CONF_SOURCE),
                                          env=os.environ.get("KEDRO_ENV"),
                                          **settings.CONFIG_LOADER_ARGS)
    return loader["parameters"]


class ConfigLoader(OmegaConfigLoader):
    """Kedro's OmegaConfigLoader whose ``parameters`` carry every default of the typed
    parameters (validated first), so ``params:<key>`` exists for every key a node reads."""

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        if key == "parameters":
            return complete_parameters(value)
        return value
