"""A stage imports no other stage: every module of ``pipelines/<stage>/`` is read as Python
(its AST, so imports inside functions count too) and none may name another stage's package;
shared pieces live in the library or in ``pipelines/``' top-level modules."""
from __future__ import annotations

import ast
from pathlib import Path

import kgp_kedro.pipelines

PIPELINES = Path(kgp_kedro.pipelines.__file__).parent
STAGES = sorted(p.name for p in PIPELINES.iterdir() if (p / "__init__.py").exists())


def imported_modules(path: Path, package: str) -> set[str]:
    """The absolute names of the modules ``path`` (a module of ``package``) imports, relative
    imports resolved; ``from x import y`` counts as both ``x`` and ``x.y``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def stage_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] == ["kgp_kedro", "pipelines"] and len(parts) > 2 and parts[2] in STAGES:
        return parts[2]
    return None


def test_no_stage_imports_another_stage():
    assert {"retrieve", "pooled", "retrieval_quality"} <= set(STAGES)
    crossings = []
    for stage in STAGES:
        for path in sorted((PIPELINES / stage).rglob("*.py")):
            package = ".".join(["kgp_kedro", "pipelines", stage,
                                *path.relative_to(PIPELINES / stage).parent.parts])
            for module in sorted(imported_modules(path, package)):
                other = stage_of(module)
                if other is not None and other != stage:
                    crossings.append(f"{path.relative_to(PIPELINES)} imports {module}")
    assert not crossings, "a stage imports another stage:\n" + "\n".join(crossings)


def test_the_check_sees_absolute_relative_and_nested_imports(tmp_path):
    module = tmp_path / "nodes.py"
    module.write_text("import kgp_kedro.pipelines.retrieve.nodes\n"
                      "from ..retrieve import pipeline\n"
                      "def f():\n    from kgp_kedro.pipelines.kg.nodes import build_graphs\n")
    found = imported_modules(module, "kgp_kedro.pipelines.pooled")
    assert {stage_of(m) for m in found} == {"retrieve", "kg"}
