"""``notebooks/kg_quality.ipynb`` runs headless against the pipeline's versioned outputs."""
from __future__ import annotations

import pytest

from tests.pipelines.conftest import execute_notebook

pytestmark = pytest.mark.slow


def test_kg_quality_notebook_executes(kg_quality_project):
    outputs, shown = execute_notebook(kg_quality_project / "notebooks" / "kg_quality.ipynb")
    assert "sf_em" in shown and "hotpotqa" in shown
    assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs)
