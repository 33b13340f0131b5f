"""``notebooks/kg_quality.ipynb`` runs headless against the pipeline's versioned outputs."""
from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.slow


def test_kg_quality_notebook_executes(kg_quality_project):
    path = kg_quality_project / "notebooks" / "kg_quality.ipynb"
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = " ".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "sf_em" in shown and "hotpotqa" in shown
    assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs)
