"""The docs site: the configuration reference is the generated one, the site builds with
``mkdocs build --strict`` (no broken link or anchor, every page in the nav), and every page,
README.md included, reads as prose: no dangling sentence, no table without its header row, no
link to a heading that does not exist."""
from __future__ import annotations

import importlib.util
import re
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
    from kgp_kedro.retrievers.agents import AGENTS
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


# ---- the pages read as prose: no dangling sentence, every table with its header, every
# link to a heading that exists (README.md included, which mkdocs does not build)

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.M)


def _included(spec: str) -> str:
    """An include's text: a whole file (``path``), or one section of it (``path:name``, the
    lines between its ``--8<-- [start:name]`` and ``--8<-- [end:name]`` markers)."""
    path, _, name = spec.partition(":")
    text = (ROOT / path).read_text(encoding="utf-8")
    if not name:
        return text
    return re.search(rf"\[start:{name}\][^\n]*\n(.*?)\n[^\n]*\[end:{name}\]", text, re.S)[1]


def _expanded(page: Path) -> str:
    """The page with its ``--8<--`` includes (pymdownx.snippets, paths from the root) inlined."""
    return INCLUDE.sub(lambda m: _included(m[1]), page.read_text(encoding="utf-8"))


def _blocks(text: str) -> list[str]:
    """The page's blocks (split at blank lines), fenced code and HTML comments left out."""
    text = re.sub(r"^(```|~~~).*?^\1", "", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    return [b.strip("\n") for b in re.split(r"\n\s*\n", text) if b.strip()]


# a block that is not a sentence: a heading, list, table, quote, admonition, code, include, HTML
NOT_PROSE = ("#", "|", "-", "*", ">", "!!!", "![", "    ", "--8<--", "<", "$", "+")
# names written in lower case that may open a sentence
LOWER_CASE_NAMES = ("kgp-kedro",)


def _prose(block: str) -> bool:
    return not (block.startswith(NOT_PROSE) or re.match(r"\d+\. ", block))


def dangling_sentences(text: str) -> list[str]:
    """Prose blocks that start mid-sentence (a lower-case word) or stop mid-sentence (no
    closing punctuation), and blocks that announce something (end in ':') with nothing after
    them: no list, table, code or include."""
    raw = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    found = []
    blocks = _blocks(text)
    for i, block in enumerate(blocks):
        if not _prose(block):
            continue
        if re.match(r"[a-z]", block) and not block.startswith(LOWER_CASE_NAMES):
            found.append(f"starts mid-sentence: {block[:70]!r}")
        end = block.rstrip()[-1]
        if end not in ".:!?)`*\"'":
            found.append(f"stops mid-sentence: {block[-70:]!r}")
        if end == ":":
            after = raw[raw.index(block[-40:]) + 40:].lstrip("\n") if block[-40:] in raw else ""
            nxt = blocks[i + 1] if i + 1 < len(blocks) else ""
            if not (after.startswith(("```", "~~~", "    ")) or (nxt and not _prose(nxt)
                                                             and not nxt.startswith("#"))):
                found.append(f"announces nothing: {block[-70:]!r}")
    return found


def headless_tables(text: str) -> list[str]:
    """Tables whose first row is the separator, or whose second row is not one."""
    separator = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")
    found = []
    for block in _blocks(text):
        rows = [r for r in block.splitlines() if r.startswith("|")]
        if rows and rows[0] == block.splitlines()[0]:
            if separator.match(rows[0]) or len(rows) < 2 or not separator.match(rows[1]):
                found.append(rows[0][:70])
    return found


def test_no_page_has_a_dangling_sentence_or_a_headless_table():
    problems = {str(p.relative_to(ROOT)): dangling_sentences(_expanded(p))
                + [f"table without a header row: {t}" for t in headless_tables(_expanded(p))]
                for p in PAGES}
    assert {p: found for p, found in problems.items() if found} == {}


def test_the_docs_check_finds_what_it_is_for():
    text = ("# T\n\nA sentence that stops\n\nmid-way on the next line.\n\nThe table:\n\n"
            "## Next\n\n| --- | ---: |\n| a | 1 |\n\n| h | n |\n| --- | ---: |\n| a | 1 |\n")
    assert dangling_sentences(text) == [
        "stops mid-sentence: 'A sentence that stops'",
        "starts mid-sentence: 'mid-way on the next line.'",
        "announces nothing: 'The table:'"]
    assert headless_tables(text) == ["| --- | ---: |"]


@pytest.mark.skipif(importlib.util.find_spec("markdown") is None,
                    reason="python-markdown not installed (the `docs` extra)")
def test_every_link_to_a_heading_finds_it():
    """Links ``page.md#anchor`` and ``#anchor`` of every page, README.md included, name a
    heading of their page (its includes inlined), slugged as mkdocs' toc does."""
    from markdown.extensions.toc import slugify

    def anchors(page: Path) -> set[str]:
        text = re.sub(r"^(```|~~~).*?^\1", "", _expanded(page), flags=re.S | re.M)
        return {slugify(re.sub(r"[`*]", "", h), "-")
                for h in re.findall(r"^#{1,6} (.+?)\s*$", text, re.M)}

    missing = []
    for page in PAGES:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", page.read_text()):
            linked = (page.parent / target).resolve() if target else page
            if linked.suffix == ".md" and linked.exists() and anchor not in anchors(linked):
                missing.append(f"{page.relative_to(ROOT)}: {target}#{anchor}")
    assert missing == []
