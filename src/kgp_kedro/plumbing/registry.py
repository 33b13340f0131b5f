"""Registries keyed by the names used in YAML (``builder: tfidf``, ``method: bm25``,
``agent: {kind: encoder}``).

Each role (graph builders, retrievers, traversal agents) keeps one :class:`Registry`. A class
joins it with the ``@registry.register("name")`` decorator in its own module; every module of
the role's package is imported the first time the registry is read, so adding an algorithm is
adding one module (plus the YAML block that names it). Code outside the package registers the
same way, as long as its module is imported before the parameters are validated.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """``name -> class`` for one role; ``package`` is auto-imported on first read."""

    def __init__(self, role: str, package: str) -> None:
        self.role, self.package = role, package
        self._classes: dict[str, type[T]] = {}
        self._discovered = False

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        def decorate(cls: type[T]) -> type[T]:
            known = self._classes.get(name)
            if known is not None and known is not cls:
                raise ValueError(f"{self.role} {name!r} is registered twice: "
                                 f"{known.__module__}.{known.__qualname__} and "
                                 f"{cls.__module__}.{cls.__qualname__}")
            cls.name = name  # type: ignore[attr-defined]
            self._classes[name] = cls
            return cls
        return decorate

    def _discover(self) -> None:
        if self._discovered:
            return
        self._discovered = True
        package = importlib.import_module(self.package)
        for module in pkgutil.iter_modules(package.__path__):
            if not module.name.startswith("_"):
                importlib.import_module(f"{self.package}.{module.name}")

    def names(self) -> list[str]:
        self._discover()
        return sorted(self._classes)

    def get(self, name: str) -> type[T]:
        self._discover()
        if name not in self._classes:
            raise KeyError(f"unknown {self.role} {name!r}; known: {', '.join(self.names())}")
        return self._classes[name]

    def unregister(self, name: str) -> None:
        """Forget ``name`` (tests that register a toy class clean up with this)."""
        self._classes.pop(name, None)
