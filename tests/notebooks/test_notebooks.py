"""Every notebook executes headless (nbclient) against the outputs of ``kedro run --env demo``
in a throw-away copy of the project, its figures carrying plotly.js so they render in exported
HTML; before any run a notebook says which command makes its data, without a traceback."""
from __future__ import annotations

import os
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tests.conftest import MODEL_CACHE, ROOT
from tests.pipelines.conftest import make_project, run_pipeline

pytestmark = pytest.mark.slow
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
# the demo env, with a smaller reader window and the model assembled once for the test suite
SMALLER_READER = {"llm": {"local": {"cache_dir": str(MODEL_CACHE), "n_ctx": 1024},
                          "sampling": {"max_tokens": 16}}}


@pytest.fixture(scope="module")
def demo_project(tmp_path_factory):
    os.environ.setdefault("KEDRO_DISABLE_TELEMETRY", "1")
    project = make_project(tmp_path_factory.mktemp("demo"))
    for pipeline in ("__default__", "retrieval_quality"):
        run_pipeline(project, pipeline, env="demo", runtime_params=SMALLER_READER)
    return project


def _execute(path, stops: bool = False) -> nbformat.NotebookNode:
    """Run the notebook's cells in order, as "run all" does; ``stops``: it is expected to stop
    at an error (the cells after it do not run)."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    if stops:
        with pytest.raises(CellExecutionError):
            client.execute()
    else:
        client.execute()
    return notebook


def _outputs(notebook) -> list:
    return [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]


def test_the_notebooks_are_the_ones_tested():
    assert NOTEBOOKS == ["kg_quality.ipynb", "results.ipynb", "retrieval.ipynb"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_a_notebook_executes_on_the_demo_outputs_and_embeds_its_figures(demo_project, name):
    notebook = _execute(demo_project / "notebooks" / name)
    outputs = _outputs(notebook)
    assert not [o for o in outputs if o.output_type == "error"]
    text = " ".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                    for o in outputs)
    assert "Warning" not in text and "warn(" not in text        # no warnings of ours
    figures = [o["data"] for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert figures and all("text/html" in f for f in figures)   # the HTML copy for exports
    html = " ".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
    assert "plotly.js v" in html                                # plotly.js itself, embedded
    assert not re.search(r"<script[^>]*src=[^>]*plot\.ly", html)  # not fetched from a CDN


def test_kg_quality_table_is_sorted_numerically_and_filled(demo_project):
    notebook = _execute(demo_project / "notebooks" / "kg_quality.ipynb")
    table = next(o["data"]["text/html"] for o in _outputs(notebook)
                 if "sf_em" in o.get("data", {}).get("text/html", "")
                 and "n_kw=" in o["data"]["text/html"])
    assert table.index("n_kw=5") < table.index("n_kw=20")
    assert table.count("NaN") == 0


def test_results_show_every_table2_method_or_say_it_did_not_run(demo_project):
    notebook = _execute(demo_project / "notebooks" / "results.ipynb")
    shown = " ".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                     for o in _outputs(notebook))
    assert "kgp_tfidf" in shown and "kgp_encoder" in shown


@pytest.mark.parametrize("name,command", [("kg_quality.ipynb", "make run"),
                                          ("results.ipynb", "make run-all"),
                                          ("retrieval.ipynb",
                                           "kedro run --pipelines retrieval_quality")])
def test_before_any_run_a_notebook_says_which_command_to_run(tmp_path, name, command):
    project = make_project(tmp_path)
    notebook = _execute(project / "notebooks" / name, stops=True)
    errors = [o for o in _outputs(notebook) if o.output_type == "error"]
    assert len(errors) == 1 and errors[0]["ename"] == "NotYetRun"
    (message,) = errors[0]["traceback"]                         # the message, no traceback
    assert f"Run `{command}`" in message
