"""The docs site: the configuration reference is the generated one, and the site builds with
``mkdocs build --strict`` (no broken link or anchor, every page in the nav)."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import configuration_page  # noqa: E402


def test_configuration_page_is_current():
    committed = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert committed == configuration_page.render(), \
        "docs/configuration.md is stale: run python scripts/configuration_page.py"


def test_configuration_page_lists_every_registered_option():
    from kgp_kedro.agents import AGENTS
    from kgp_kedro.graphs.builders import BUILDERS
    from kgp_kedro.retrievers import RETRIEVERS

    page = configuration_page.render()
    for role, registry in (("builder", BUILDERS), ("retriever", RETRIEVERS), ("agent", AGENTS)):
        for name in configuration_page.project_names(registry):
            assert f"#### `{name}` ({role})" in page
            for option in getattr(registry.get(name), "Params").model_fields:
                assert f"| `{option}` |" in page
    assert "n_kw: 10" in page and "budget: 30" in page   # conf/base's values, defaults filled in


@pytest.mark.skipif(importlib.util.find_spec("mkdocs") is None
                    or importlib.util.find_spec("material") is None,
                    reason="mkdocs / mkdocs-material not installed (the `docs` extra: make test installs it)")
def test_site_builds_strict(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "methods" / "kgp" / "index.html").exists()
    assert (tmp_path / "site" / "configuration" / "index.html").exists()
