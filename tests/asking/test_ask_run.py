"""`kedro run --env ask` end to end against a real OpenAI-compatible server (llama-cpp-python's
own server with the packaged model, the session's ``llama_server``, set in conf/ask as
docs/ask.md tells): a folder of two real files (a PDF, a Markdown note) asked a plain-text
question file without ids, then one more question on the command line. The answers report is
written under the ask env's own data/ask/, every answer cites a passage by file and page or
heading, the second run parses no file, and notebooks/ask.ipynb shows the run and answers a new
question over its graph."""
from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from kgp_kedro.asking import check_citations, locate_passages
from kgp_kedro.asking.answers import quoted_text, windows
from kgp_kedro.asking.grounding import ground
from kgp_kedro.config.sections import AskParams
from kgp_kedro.corpus.sources import parse_cache
from kgp_kedro.ewek.composer import keep_citations
from tests.corpus.files import make_pdf
from tests.projects import execute_notebook, make_project, notebook_outputs, run_pipeline

pytestmark = pytest.mark.slow


def _server_llm(base_url: str) -> dict:
    """The llm block pointing at the server, as docs/ask.md tells (small answers)."""
    return {"backend": "openai", "cache": None,
            "openai": {"model": "qwen-local", "base_url": base_url, "timeout": 120,
                       "context_window": 1024, "concurrency": 1}}


def _newest(project, path: str) -> pd.DataFrame:
    return pd.read_parquet(sorted((project / path).glob("*/*.parquet"))[-1])


def test_ask_answers_a_folder_through_a_local_server_with_cited_sources(
        tmp_path_factory, feature_cache, llama_server, monkeypatch):
    project = make_project(tmp_path_factory.mktemp("ask"), feature_cache=feature_cache)
    folder = project / "my_documents"
    folder.mkdir()
    texts = make_pdf(folder / "a.pdf")
    (folder / "notes.md").write_text(f"# Notes\n\n## {texts[3][0]}\n\n{texts[3][1]}\n")
    asked = project / "questions.txt"
    question = f"What is {texts[0][0]}?"
    asked.write_text(f"{question}\n")
    env = project / "conf" / "ask" / "parameters.yml"
    env.write_text(yaml.safe_dump({**yaml.safe_load(env.read_text()),
                                   "llm": _server_llm(llama_server)}))
    settings = {"ask": {"folder": "my_documents", "questions": "questions.txt", "contexts": 4,
                        "max_tokens": 48}}
    run_pipeline(project, "__default__", env="ask", runtime_params=settings)

    report = (project / "data/ask/08_reporting/answers.md").read_text()
    assert f"## q1: {question}\n" in report                      # the question verbatim
    assert (project / "data/ask/08_reporting/answers.html").read_text().count("<h2>") == 2
    assert not (project / "data/08_reporting").exists()           # the ask env's own folder
    answers = _newest(project, "data/ask/08_reporting/ask_answers.parquet")
    (row,) = answers.itertuples()
    assert row.error is None and row.prompt_tokens > 100 and row.completion_tokens > 0
    # the answer is the reply as the check grounds it against the quotes of its prompt, and
    # cites the quotes holding its claims (one not found lists the closest quotes)
    places = locate_passages(_newest(project, "data/ask/03_primary/passages.parquet"))
    around = windows(places, AskParams().passage_window)
    quotes = [quoted_text(places[p], around.get(p, ())) for p in row.context_ids]
    kept = check_citations(row.raw_response, len(quotes))[0]
    grounded = ground(question, keep_citations(row.raw_response, set(kept)), quotes, "answer",
                      240)
    assert (row.answer, row.mark) == (grounded.text, grounded.mark)
    citations = json.loads(row.closest if row.mark == "not found" else row.citations)
    assert citations and all(c["label"].startswith(("a.pdf, p. ", "notes.md, § "))
                             for c in citations)
    assert f"*{row.mark}*" in report
    assert f"- [{citations[0]['n']}] {citations[0]['label']}" in report
    assert row.sanity_method == "bm25" and row.sanity_top_file in ("a.pdf", "notes.md")

    # one more question on the command line: no file is parsed again
    parsed = []
    real = parse_cache.read_file
    monkeypatch.setattr(parse_cache, "read_file", lambda path: parsed.append(path) or real(path))
    settings["ask"].pop("questions")
    settings["ask"]["question"] = f"Where is {texts[3][0]}?"
    run_pipeline(project, "__default__", env="ask", runtime_params=settings)
    assert parsed == []
    again = _newest(project, "data/ask/08_reporting/ask_answers.parquet")
    assert again["question"].tolist() == [settings["ask"]["question"]]

    # the notebook: the run it shows, and a new question over the run's graph and passages
    shown = " ".join(str(o.get("text", "")) for o in notebook_outputs(
        execute_notebook(project / "notebooks" / "ask.ipynb")))
    assert "Showing run " in shown and "(env ask," in shown
    new = shown[shown.index("[new]"):]
    assert "a.pdf, p. " in new or "notes.md, § " in new
