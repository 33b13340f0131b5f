"""docs/development.md's layout is whole: every package of ``src/kgp_kedro/`` (``name/``), every
env under ``conf/`` (``conf/name/``) and every notebook (``name.ipynb``) has its line, as the
stages contract names every stage folder (tests/test_import_contracts.py)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layout_section(page: str) -> str:
    """The ``## Layout`` section of a page."""
    return re.search(r"^## Layout\n(.*?)(?=^## )", page, re.S | re.M)[1]


def unlisted(layout: str, root: Path) -> list[str]:
    """What ``root`` holds that ``layout`` does not name."""
    packages = sorted(p.parent.name for p in (root / "src" / "kgp_kedro").glob("*/__init__.py"))
    envs = sorted(p.name for p in (root / "conf").iterdir() if p.is_dir())
    notebooks = sorted(p.name for p in (root / "notebooks").glob("*.ipynb"))
    wanted = ([f"{name}/" for name in packages] + [f"conf/{name}/" for name in envs]
              + notebooks)
    return [name for name in wanted
            if not re.search(rf"(?<![\w/.]){re.escape(name)}", layout)]


def test_the_layout_names_every_package_env_and_notebook():
    layout = layout_section((ROOT / "docs" / "development.md").read_text(encoding="utf-8"))
    assert unlisted(layout, ROOT) == [], "add a line to docs/development.md's Layout"


def test_the_layout_check_finds_a_new_package_env_and_notebook(tmp_path):
    layout = layout_section((ROOT / "docs" / "development.md").read_text(encoding="utf-8"))
    for folder in ("src/kgp_kedro/newrole", "conf/newenv", "notebooks"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "src/kgp_kedro/newrole/__init__.py").write_text("")
    (tmp_path / "notebooks/new.ipynb").write_text("{}")
    (tmp_path / "src/kgp_kedro/io").mkdir()
    (tmp_path / "src/kgp_kedro/io/__init__.py").write_text("")
    assert unlisted(layout, tmp_path) == ["newrole/", "conf/newenv/", "new.ipynb"]
    assert unlisted("newrole/, conf/newenv/, new.ipynb, io/", tmp_path) == []
