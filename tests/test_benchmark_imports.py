"""The benchmark and maintenance scripts are not run by the suite (they take minutes to hours),
so a module they import that moved would only show when someone runs them: every name they
import from the project must exist."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted([*(ROOT / "benchmarks").glob("*.py"), *(ROOT / "scripts").glob("*.py")])


def _project_imports(path: Path) -> list[tuple[int, str, str]]:
    return [(node.lineno, node.module, alias.name)
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("kgp_kedro")
            for alias in node.names]


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_project_name_a_script_imports_exists(path):
    missing = []
    for line, module, name in _project_imports(path):
        found = importlib.import_module(module)
        if not hasattr(found, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ModuleNotFoundError:
                missing.append(f"line {line}: {module}.{name}")
    assert not missing, f"{path.name} imports what the project no longer has: {missing}"
