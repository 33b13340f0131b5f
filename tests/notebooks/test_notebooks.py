"""Every notebook executes headless (nbclient) in a throw-away copy of the project, against
the outputs of ``kedro run --env demo`` (``structure.ipynb``: of ``kedro run --env documents
--pipelines retrieve`` over two files of the structural benchmark), its figures carrying
plotly.js so they render in exported HTML; before any run a notebook says which command makes
its data, without a traceback."""
from __future__ import annotations

import importlib.util
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
STRUCTURE = "structure.ipynb"   # reads the documents env's outputs, not the demo's
DEMO_NOTEBOOKS = [n for n in NOTEBOOKS if n != STRUCTURE]
STRUCTURE_COMMAND = "kedro run --env documents --pipelines retrieve"
STRUCTURE_FILES = 2   # the structural benchmark's first two files: a PDF and a DOCX
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


@pytest.fixture(scope="module")
def documents_project(tmp_path_factory):
    """The structure notebook's data: the structural benchmark rendered from its first
    ``STRUCTURE_FILES`` 2Wiki questions, then the documents env's retrieve chain."""
    os.environ.setdefault("KEDRO_DISABLE_TELEMETRY", "1")
    project = make_project(tmp_path_factory.mktemp("documents"))
    spec = importlib.util.spec_from_file_location(
        "make_structural_benchmark", ROOT / "benchmarks" / "make_structural_benchmark.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    benchmark.make(project / "data" / "01_raw" / "structural_benchmark", STRUCTURE_FILES)
    run_pipeline(project, "retrieve", env="documents")
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


def _assert_no_errors_and_embedded_figures(outputs: list) -> list[dict]:
    """No error, no warning of ours, every figure with its HTML copy carrying plotly.js itself
    (not fetched from a CDN); the figures' plotly JSON."""
    assert not [o for o in outputs if o.output_type == "error"]
    text = " ".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                    for o in outputs)
    assert "Warning" not in text and "warn(" not in text        # no warnings of ours
    figures = [o["data"] for o in outputs if "application/vnd.plotly.v1+json" in o.get("data", {})]
    assert figures and all("text/html" in f for f in figures)   # the HTML copy for exports
    html = " ".join(str(o.get("data", {}).get("text/html", "")) for o in outputs)
    assert "plotly.js v" in html                                # plotly.js itself, embedded
    assert not re.search(r"<script[^>]*src=[^>]*plot\.ly", html)  # not fetched from a CDN
    return [f["application/vnd.plotly.v1+json"] for f in figures]


def test_the_notebooks_are_the_ones_tested():
    assert NOTEBOOKS == ["kg_quality.ipynb", "results.ipynb", "retrieval.ipynb", STRUCTURE]


@pytest.mark.parametrize("name", DEMO_NOTEBOOKS)
def test_a_notebook_executes_on_the_demo_outputs_and_embeds_its_figures(demo_project, name):
    notebook = _execute(demo_project / "notebooks" / name)
    _assert_no_errors_and_embedded_figures(_outputs(notebook))


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
                                           "kedro run --pipelines retrieval_quality"),
                                          (STRUCTURE, STRUCTURE_COMMAND)])
def test_before_any_run_a_notebook_says_which_command_to_run(tmp_path, name, command):
    project = make_project(tmp_path)
    notebook = _execute(project / "notebooks" / name, stops=True)
    errors = [o for o in _outputs(notebook) if o.output_type == "error"]
    assert len(errors) == 1 and errors[0]["ename"] == "NotYetRun"
    (message,) = errors[0]["traceback"]                         # the message, no traceback
    assert f"Run `{command}`" in message


def test_structure_notebook_shows_a_documents_graph_and_a_structural_questions_path(
        documents_project):
    notebook = _execute(documents_project / "notebooks" / STRUCTURE)
    outputs = _outputs(notebook)
    figures = _assert_no_errors_and_embedded_figures(outputs)
    shown = [re.sub(r"\x1b\[[0-9;]*m", "", str(o.get("data", {}).get("text/plain", "")))
             + str(o.get("text", "")) for o in outputs]               # without rich's colours
    # the path of each question: the structural one (a table on a named page of the PDF)
    # routed structural with its page key to nodes of that page, the content one to Algorithm 1
    (path,) = [t for t in shown if "[structural question]" in t]
    structural, content = path.split("[content question]")
    page = re.search(r"page (\d+) of \S+\.pdf", structural).group(1)
    assert f"routing (rules): structural; keys page={page}, table=0" in structural
    assert re.search(rf"retrieved \d+ node\(s\): \S+ \(table, page {page}\)", structural)
    assert "page_hit 1.0, table_hit 1.0" in structural
    assert "routing (rules): content -> Algorithm 1" in content and " > " in content
    # the document's graph: document, pages, passages and tables, the route drawn through a page
    names = {trace.get("name") for trace in figures[0]["data"]}
    assert {"document", "page", "passage", "table", "contains", "route taken"} <= names
    route = next(t for t in figures[0]["data"] if t.get("name") == "route taken")
    assert [x for x in route["x"] if x is not None]
    # the reader's context for the structural question is a table's markdown rows
    (prompt,) = [t for t in shown if t.startswith("Given the following question")
                 and "more contexts" not in t]
    assert "| relation | value |" in prompt
    # over every structural question: KGP with routing reaches the gold page and table
    (hits,) = [t for t in shown if "table_hit" in t and "[structural question]" not in t]
    routed = next(line for line in hits.splitlines() if line.startswith("kgp_tfidf "))
    assert [float(x) for x in routed.split()[1:]] == [1.0, 1.0]
