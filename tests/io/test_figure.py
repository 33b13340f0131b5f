"""FigureDataset: the HTML figure plus static SVG/PNG copies in the same version folder,
drawn by kaleido with the machine's Chromium; HTML alone (and one log line) without one."""
from __future__ import annotations

import logging
import os

import plotly.graph_objects as go
import pytest
from kedro.io import Version

from kgp_kedro.io import figure
from kgp_kedro.io.figure import FigureDataset


@pytest.fixture
def fig():
    return go.Figure(go.Bar(x=["tfidf", "knn_st", "tagme"], y=[0.71, 0.64, 0.58]),
                     layout={"title": "SF-EM per KG variant"})


@pytest.fixture(autouse=True)
def _fresh_browser_lookup():
    figure.find_browser.cache_clear()
    figure._say_once_there_is_no_browser.cache_clear()
    yield
    figure.find_browser.cache_clear()


def test_static_copies_beside_the_versioned_html(tmp_path, fig):
    if figure.find_browser() is None and not os.environ.get("CI"):
        pytest.skip("no Chrome/Chromium here (make install-static); CI installs one")
    dataset = FigureDataset(filepath=str(tmp_path / "kg_quality_figure.html"),
                            static_formats=["svg", "png"], version=Version(None, "v1"))
    dataset.save(fig)
    folder = tmp_path / "kg_quality_figure.html" / "v1"
    assert sorted(p.name for p in folder.iterdir()) == [
        "kg_quality_figure.html", "kg_quality_figure.png", "kg_quality_figure.svg"]
    svg = (folder / "kg_quality_figure.svg").read_text()
    assert svg.lstrip().startswith("<svg") and "SF-EM per KG variant" in svg
    assert (folder / "kg_quality_figure.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "tagme" in (folder / "kg_quality_figure.html").read_text()


def test_without_a_browser_the_html_alone_and_one_info_line(tmp_path, fig, monkeypatch, caplog):
    monkeypatch.setenv("BROWSER_PATH", str(tmp_path / "no-such-chrome"))
    caplog.set_level(logging.INFO, logger=figure.__name__)
    for name in ("a", "b"):
        FigureDataset(filepath=str(tmp_path / f"{name}.html"), static_formats=["svg"]).save(fig)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html", "b.html"]
    said = [r for r in caplog.records if r.name == figure.__name__]
    assert len(said) == 1 and said[0].levelno == logging.INFO
    assert "chromium-headless-shell" in said[0].getMessage()


def test_an_unknown_static_format_names_the_file():
    with pytest.raises(ValueError, match=r"qa_figure.html.*\['gif'\]"):
        FigureDataset(filepath="data/08_reporting/qa_figure.html", static_formats=["svg", "gif"])
