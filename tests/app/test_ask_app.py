"""The ask app (notebooks/ask_app.ipynb served by Voilà, as ``make app`` serves it) driven in a
real headless Chromium, as a user would: two files made from real HotpotQA paragraphs (a PDF of
three, an HTML page of a fourth) uploaded through its upload button, a question typed, SUBMIT
pressed. The page lists the two files read, then shows the answer with its mark, its sources
(cited, or the closest passages when not found) naming the file that holds the answer (a click
on a source opens its snippet), and the traversal figure. The reader is the packaged 0.5B model
with the test projects' small window (tests/projects.py). Then, without a browser, what the
app does with uploaded names and with a folder it cannot read."""
from __future__ import annotations

import html

import pytest
import yaml

from kgp_kedro.asking.grounding import NOT_FOUND
from tests.app.conftest import serve_app
from tests.corpus.files import make_pdf, paragraphs
from tests.projects import _small_llm, make_project

# its answer (From Here to Infinity) is in the HTML page alone
QUESTION = "What is the first solo album by Lee Ranaldo?"
PAGE_LOAD_S = 120      # the notebook runs when the page opens: Kedro's session, the imports
ANSWER_S = 120         # a folder read (parse, split, encode, KG) / an answer (link, walk, read)


def _documents(folder) -> dict[str, str]:
    """The two files (name -> its first title): ``ranaldo.pdf`` (the first HotpotQA
    record's first three paragraphs and a table) and ``infinity.html`` (its fourth)."""
    folder.mkdir()
    pdf = make_pdf(folder / "ranaldo.pdf")
    title, text = paragraphs(4)[3]
    (folder / "infinity.html").write_text(
        f"<html><head><title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>",
        encoding="utf-8")
    return {"ranaldo.pdf": pdf[0][0], "infinity.html": title}


@pytest.mark.slow
def test_the_app_answers_uploaded_files_with_their_cited_file_in_a_browser(
        tmp_path_factory, feature_cache, chromium):
    from playwright.sync_api import expect, sync_playwright

    root = tmp_path_factory.mktemp("app")
    (root / "project").mkdir()
    project = make_project(root / "project", feature_cache=feature_cache)
    env = project / "conf" / "ask" / "parameters.yml"
    llm = {**_small_llm(), "cache": str(root / "llm_calls.sqlite")}
    env.write_text(yaml.safe_dump({**yaml.safe_load(env.read_text()), "llm": llm,
                                   "ask": {"contexts": 4, "max_tokens": 48}}))
    files = _documents(root / "upload")

    with serve_app(project, root / "voila.log") as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        try:
            page = browser.new_page()
            page.goto(url, timeout=PAGE_LOAD_S * 1000)
            upload = page.get_by_role("button", name="UPLOAD FILES")
            upload.wait_for(timeout=PAGE_LOAD_S * 1000)   # the notebook ran
            submit = page.get_by_role("button", name="SUBMIT")
            expect(submit).to_be_disabled()             # nothing to ask before a folder
            with page.expect_file_chooser() as chooser:
                upload.click()
            chooser.value.set_files([root / "upload" / name for name in files])
            status = page.get_by_text("2 files, ")
            status.wait_for(timeout=ANSWER_S * 1000)
            assert all(name in status.inner_text() for name in files)
            assert sorted(p.name for p in (project / "data/ask/uploads").iterdir()) \
                == sorted(files)                        # written into ask.uploads

            page.locator("textarea").fill(QUESTION)
            submit.click()
            sources = page.locator(".kgp-answer ul.sources > li")
            sources.first.wait_for(timeout=ANSWER_S * 1000)
            answer = page.locator(".kgp-answer")
            assert QUESTION in answer.inner_text()
            mark = answer.locator(".mark").inner_text()
            labels = sources.locator("summary").all_inner_texts()
            numbers = [label.split("]", 1)[0] + "]" for label in labels]
            # a kept answer cites each source listed; one not found lists its closest quotes
            if mark == "not found":
                assert NOT_FOUND in answer.inner_text()
            else:
                assert mark in ("supported", "partly supported")
                assert all(n in answer.inner_text() for n in numbers)
            assert labels and all(label.split("] ", 1)[1].startswith(tuple(files))
                                  for label in labels)
            assert any("infinity.html" in label for label in labels)   # the answer's file
            # a source is clickable: its snippet shows once its summary is clicked
            snippet = sources.first.locator("blockquote")
            expect(snippet).to_be_hidden()
            sources.first.locator("summary").click()
            expect(snippet).to_be_visible()
            assert len(snippet.inner_text().split()) > 5
            # the traversal figure, drawn by plotly in the page
            page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
        finally:
            browser.close()


def test_uploaded_files_are_written_under_their_own_names_into_the_uploads_folder(tmp_path):
    """FileUpload's files land in ``ask.uploads`` under their base names: a name with a folder
    part cannot write outside it, a hidden name is left out."""
    from kgp_kedro.asking.app import save_uploads

    files = [{"name": "notes.md", "content": memoryview(b"# Notes\n\nText.\n")},
             {"name": "../../outside.html", "content": b"<p>x</p>"},
             {"name": ".hidden", "content": b"x"}]
    assert save_uploads(files, tmp_path / "uploads") == ["notes.md", "outside.html"]
    assert sorted(p.name for p in (tmp_path / "uploads").iterdir()) == ["notes.md",
                                                                       "outside.html"]
    assert (tmp_path / "uploads" / "notes.md").read_bytes() == b"# Notes\n\nText.\n"
    assert not (tmp_path / "outside.html").exists()


def test_a_folder_with_nothing_readable_says_why_and_leaves_submit_off(tmp_path):
    """OPEN FOLDER with no folder named asks for one; on a folder of an empty text file and a
    file of no readable type, the ask chain's ingest refuses it, the status line says why, and
    there is nothing to SUBMIT to."""
    from kgp_kedro.asking.app import AskApp
    from kgp_kedro.pipelines.ask_folder import open_folder
    from tests.config.test_parameters import _ask_env
    from tests.conftest import ROOT

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "empty.txt").write_text("")
    (folder / "data.xyz").write_text("not a document")
    parameters = _ask_env()
    parameters["ingest"]["parse_cache"] = str(tmp_path / "parsed")
    app = AskApp(lambda path, before: open_folder(parameters, path, ROOT), tmp_path / "uploads")
    app.open_button.click()          # no folder named: the project folder is not read
    assert app.status.value.startswith("Name a folder first")
    app.folder.value = str(folder)
    app.open_button.click()
    assert app.opened is None and app.submit.disabled
    assert "Could not open" in app.status.value and "no readable documents" in app.status.value
