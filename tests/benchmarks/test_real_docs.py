"""The real-document question sets of issue 64 (``benchmarks/data/real_docs``): the gold's
shape and proportions, every file named exists and is the one SOURCES.tsv pins, the
questions load with ``read_documents``, no two sets share a document (holdout2 no package with
dev or holdout, holdout3, holdout4 and holdout5 no package with any other set), and the
quotes of the HTML and text files are in the text the project's readers give. The PDF quotes are
checked against the project's PDF reader by ``benchmarks/make_real_docs.py check`` (minutes:
it reads every page), not here."""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.make_real_docs import (KINDS, MIN_SHARE, ROOT, SETS, UNSEEN, gold_path, norm,
                                       read_jsonl, read_sources)
from kgp_kedro.corpus.sources import documents
from kgp_kedro.corpus.sources.formats import Block, FileContent, read_file

MINIMUM = {"dev": {"documents": 12, "questions": 40},
           "holdout": {"documents": 6, "questions": 20},
           "holdout2": {"documents": 7, "questions": 32},
           "holdout3": {"documents": 8, "questions": 42},
           "holdout4": {"documents": 8, "questions": 45},
           "holdout5": {"documents": 8, "questions": 45}}


def _gold(name: str) -> list[dict]:
    return read_jsonl(gold_path(name))


def _questions(name: str) -> list[dict]:
    return read_jsonl(ROOT / name / "questions.jsonl")


@pytest.mark.parametrize("name", SETS)
def test_the_folder_holds_the_pinned_documents_and_nothing_else(name):
    folder = ROOT / name
    sources = {row["file"]: row for row in read_sources((name,))}
    files = {p.name for p in folder.iterdir()} - {"questions.jsonl"}
    assert files == set(sources)
    assert len(files) >= MINIMUM[name]["documents"]
    for file, row in sources.items():
        assert hashlib.sha256((folder / file).read_bytes()).hexdigest() == row["sha256"], file
        assert row["licence"] and row["package"] and row["version"] and row["path"]
    kinds = {Path(f).suffix for f in files}
    assert {".pdf", ".html", ".txt"} <= kinds


def test_dev_and_holdout_share_no_document():
    rows = read_sources()
    dev = {r["sha256"] for r in rows if r["set"] == "dev"}
    holdout = {r["sha256"] for r in rows if r["set"] == "holdout"}
    assert dev and holdout and not dev & holdout


@pytest.mark.parametrize("name, fewest_pdfs, most_pages", [
    ("holdout2", 4, 60), ("holdout3", 5, 60), ("holdout4", 5, None), ("holdout5", 5, 80)])
def test_a_later_set_shares_no_document_or_package_with_any_other_set(name, fewest_pdfs,
                                                                      most_pages):
    # each holdout after the first was built from packages no other set uses (issue 64);
    # holdout4 (unseen) has a 134-page manual; holdout5 (unseen) none over 80 pages
    rows = read_sources()
    mine = [r for r in rows if r["set"] == name]
    others = [r for r in rows if r["set"] != name]
    assert mine and {r["set"] for r in others} == set(SETS) - {name}
    assert not {r["sha256"] for r in mine} & {r["sha256"] for r in others}
    assert not {r["package"] for r in mine} & {r["package"] for r in others}
    assert not any(r["package"].startswith("texlive") for r in mine)
    pages = [int(r["pages"]) for r in mine if r["file"].endswith(".pdf")]
    assert len(pages) >= fewest_pdfs and min(pages) >= 2
    assert most_pages is None or max(pages) <= most_pages


@pytest.mark.parametrize("name, fewest, most", [("holdout4", 120, 210), ("holdout5", 150, 250)])
def test_the_unseen_sets_of_some_200_pdf_pages(name, fewest, most):
    assert UNSEEN == ("holdout4", "holdout5")
    pages = [int(r["pages"]) for r in read_sources()
             if r["set"] == name and r["file"].endswith(".pdf")]
    assert fewest <= sum(pages) <= most


@pytest.mark.parametrize("name", SETS)
def test_gold_shape_and_proportions(name):
    gold, questions = _gold(name), _questions(name)
    assert [g["id"] for g in gold] == [q["id"] for q in questions]
    assert len({g["id"] for g in gold}) == len(gold) >= MINIMUM[name]["questions"]
    kinds = Counter(g["kind"] for g in gold)
    assert set(kinds) <= set(KINDS)
    for kind, share in MIN_SHARE.items():
        assert kinds[kind] >= share * len(gold), (kind, kinds[kind], len(gold))
    pages = {r["file"]: int(r["pages"] or 0) for r in read_sources((name,))}
    for g, q in zip(gold, questions):
        if g["kind"] == "none":
            assert not g["evidence"] and not g["answers"] and g["why_none"], g["id"]
            assert not q.get("answer") and not q.get("answers"), g["id"]
            continue
        assert g["answers"][0] == q["answer"] and g["answers"][1:] == q.get("answers", [])
        assert len(g["evidence"]) >= (2 if g["kind"] == "two_places" else 1), g["id"]
        assert set(q["supporting_docs"]) == {e["file"] for e in g["evidence"]}, g["id"]
        for ev in g["evidence"]:
            assert ev["file"] in pages, g["id"]
            if ev["file"].endswith(".pdf"):
                assert 1 <= ev["page"] <= pages[ev["file"]], g["id"]
            else:
                assert ev["page"] is None, g["id"]
        quotes = " ".join(norm(e["quote"]) for e in g["evidence"])
        assert g.get("derivation") or any(norm(a) in quotes for a in g["answers"]), g["id"]


@pytest.mark.parametrize("name", SETS)
def test_the_questions_load_with_read_documents(name, monkeypatch):
    # the files' text is not what is tested here (make_real_docs.py check reads it): a stub
    # reader keeps the test fast while every question, answer and supporting file is loaded
    def stub(paths, cache_dir, desc="read"):  # noqa: ARG001
        return [FileContent(blocks=[Block("text", f"text of {p.name}")]) for p in paths]

    monkeypatch.setattr(documents, "read_files", stub)
    rows, docs = documents.read_documents(ROOT / name, name)
    assert len(rows) == len(_questions(name))
    assert len(docs) == len(read_sources((name,)))
    supporting = {d["doc_id"].split("/", 1)[1] for d in docs if d["is_supporting"]}
    assert supporting == {e["file"] for g in _gold(name) for e in g["evidence"]}
    answered = [r for r in rows if any(a for a in r["answers"])]
    assert len(answered) == sum(g["kind"] != "none" for g in _gold(name))


def _unspaced(text: str) -> str:
    return re.sub(r"\s+", "", norm(text))


@pytest.mark.parametrize("name", SETS)
def test_html_and_text_quotes_are_in_the_project_readers_text(name):
    # spaces aside: the HTML reader puts spaces around inline elements ("[ ( p ) ]" for
    # "[ (p) ]"), which make_real_docs.py check reports as an extraction difference
    texts: dict[str, str] = {}
    for g in _gold(name):
        for ev in g["evidence"]:
            if ev["file"].endswith(".pdf"):
                continue
            if ev["file"] not in texts:
                texts[ev["file"]] = _unspaced(read_file(ROOT / name / ev["file"]).text)
            # an unseen set's quotes are not shown (issue 64): its id alone names a failure
            shown = "" if name in UNSEEN else ev["quote"]
            assert _unspaced(ev["quote"]) in texts[ev["file"]], (g["id"], shown)
