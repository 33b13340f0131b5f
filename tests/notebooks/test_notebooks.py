"""Every notebook executes headless (nbclient), each once, in a throw-away copy of the project:
on the session's project run (``project_run``: the default ``kedro run`` and
``retrieval_quality`` on a handful of questions; ``structure.ipynb``: on ``kedro run --env
documents --pipelines retrieve`` over two files of the structural benchmark), its figures
carrying plotly.js so they render in exported HTML; before any run a notebook says which command
makes its data, without a traceback."""
from __future__ import annotations

import importlib.util
import re

import pytest

from tests.conftest import ROOT
from tests.projects import execute_notebook, make_project, notebook_outputs, run_pipeline

pytestmark = pytest.mark.slow
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
STRUCTURE = "structure.ipynb"   # reads the documents env's outputs, not the project run's
ASK = "ask.ipynb"               # reads the ask env's (tests/asking/test_ask_run.py runs it)
ASK_APP = "ask_app.ipynb"       # the ask app, driven in a browser by tests/app/
RUN_NOTEBOOKS = [n for n in NOTEBOOKS if n not in (STRUCTURE, ASK, ASK_APP)]
SOURCES = ["hotpotqa", "musique", "2wikimultihopqa"]
STRUCTURE_COMMAND = "kedro run --env documents --pipelines retrieve"
STRUCTURE_FILES = 2   # the structural benchmark's first two files: a PDF and a DOCX


@pytest.fixture(scope="module")
def documents_project(tmp_path_factory, feature_cache):
    """The structure notebook's data: the structural benchmark rendered from its first
    ``STRUCTURE_FILES`` 2Wiki questions, then the documents env's retrieve chain."""
    project = make_project(tmp_path_factory.mktemp("documents"), feature_cache=feature_cache)
    spec = importlib.util.spec_from_file_location(
        "make_structural_benchmark", ROOT / "benchmarks" / "make_structural_benchmark.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    benchmark.make(project / "data" / "01_raw" / "structural_benchmark", STRUCTURE_FILES)
    run_pipeline(project, "retrieve", env="documents")
    return project


@pytest.fixture(scope="module")
def unrun_project(tmp_path_factory):
    """A copy of the project before any run (its notebooks only read: one copy serves all)."""
    return make_project(tmp_path_factory.mktemp("unrun"))


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
    assert NOTEBOOKS == [ASK, ASK_APP, "kg_quality.ipynb", "results.ipynb", "retrieval.ipynb",
                         STRUCTURE]


@pytest.mark.parametrize("name", RUN_NOTEBOOKS)
def test_a_notebook_executes_on_the_project_run_and_embeds_its_figures(notebook_run, name):
    _assert_no_errors_and_embedded_figures(notebook_outputs(notebook_run(name)))


def test_kg_quality_notebook_shows_the_summary_of_every_source(notebook_run):
    outputs = notebook_outputs(notebook_run("kg_quality.ipynb"))
    shown = " ".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    assert "sf_em" in shown and "hotpotqa" in shown
    assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs)


def test_kg_quality_table_is_sorted_numerically_and_filled(notebook_run):
    outputs = notebook_outputs(notebook_run("kg_quality.ipynb"))
    table = next(o["data"]["text/html"] for o in outputs
                 if "sf_em" in o.get("data", {}).get("text/html", "")
                 and "n_kw=" in o["data"]["text/html"])
    assert table.index("n_kw=5") < table.index("n_kw=20")
    assert table.count("NaN") == 0


def test_results_show_table1_by_source_with_every_method(notebook_run):
    outputs = notebook_outputs(notebook_run("results.ipynb"))
    shown = " ".join(str(o.get("data", {}).get("text/plain", "")) for o in outputs)
    # Table 1 as one block of columns a source (F1 among them), every method a row
    assert all(source in shown for source in SOURCES) and "f1" in shown
    assert "kgp_chat" in shown and "holmes" in shown
    assert any("application/vnd.plotly.v1+json" in o.get("data", {}) for o in outputs)


def test_results_show_every_table2_method_or_say_it_did_not_run(notebook_run):
    shown = " ".join(str(o.get("data", {}).get("text/plain", "")) + str(o.get("text", ""))
                     for o in notebook_outputs(notebook_run("results.ipynb")))
    assert "kgp_tfidf" in shown and "kgp_encoder" in shown


@pytest.mark.parametrize("name,command", [("kg_quality.ipynb", "make run"),
                                          ("results.ipynb", "make run-all"),
                                          ("retrieval.ipynb",
                                           "kedro run --pipelines retrieval_quality"),
                                          (STRUCTURE, STRUCTURE_COMMAND),
                                          (ASK, 'kedro run --env ask --params "ask.folder=<dir>,'
                                                'ask.questions=<questions.txt>"')])
def test_before_any_run_a_notebook_says_which_command_to_run(unrun_project, name, command):
    notebook = execute_notebook(unrun_project / "notebooks" / name, stops=True)
    errors = [o for o in notebook_outputs(notebook) if o.output_type == "error"]
    assert len(errors) == 1 and errors[0]["ename"] == "NotYetRun"
    (message,) = errors[0]["traceback"]                         # the message, no traceback
    assert f"Run `{command}`" in message


def test_structure_notebook_shows_a_documents_graph_and_a_structural_questions_path(
        documents_project):
    notebook = execute_notebook(documents_project / "notebooks" / STRUCTURE)
    outputs = notebook_outputs(notebook)
    figures = _assert_no_errors_and_embedded_figures(outputs)
    shown = [re.sub(r"\x1b\[[0-9;]*m", "", str(o.get("data", {}).get("text/plain", "")))
             + str(o.get("text", "")) for o in outputs]               # without rich's colours
    # the path of each question: the structural one (a table on a named page of the PDF)
    # routed structural with its page key to nodes of that page, the content one to Algorithm 1
    # (one cell prints both; a log line in between may split its stream into two outputs)
    printed = "".join(shown)
    assert printed.count("[structural question]") == printed.count("[content question]") == 1
    structural, content = printed.split("[structural question]")[1].split("[content question]")
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
