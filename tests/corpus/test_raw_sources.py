"""The raw layer: each ``ingest.sources`` entry is a read-only catalog dataset ``raw_<source>``
(layer ``raw``) that loads what the corpus readers return, built from the session's parameters
so that ``--env`` and ``--params`` change it."""
from __future__ import annotations

import json

import pytest
import yaml
from kedro.io import DatasetError

from kgp_kedro.config import ParameterError
from kgp_kedro.config.sections import IngestParams, Source
from kgp_kedro.io.raw_source import RawSourceDataset, raw_source_names
from tests.conftest import HOTPOT, MUSIQUE, ROOT
from tests.projects import make_project


def _first_records(n: int) -> list[dict]:
    return [json.loads(line) for line in MUSIQUE.read_text(encoding="utf-8").splitlines()[:n]]


def test_a_raw_source_loads_the_first_questions_of_a_shipped_file():
    dataset = RawSourceDataset(dataset="musique", path=str(MUSIQUE), limit=4, source="mq",
                               param_key="ingest.sources[1]")
    read = dataset.load()
    records = _first_records(4)
    assert [q["question_id"] for q in read.questions] == [r["id"] for r in records]
    assert {q["source"] for q in read.questions} == {"mq"}
    # MuSiQue: one own document per paragraph of each record
    assert len(read.documents) == sum(len(r["paragraphs"]) for r in records)
    assert {d["collection_id"] for d in read.documents} == {f"mq/{r['id']}" for r in records}
    assert read.skipped == []
    assert dataset._describe() == {"dataset": "musique", "path": str(MUSIQUE), "limit": 4}
    assert dataset.exists()
    preview = dataset.preview(nrows=2)
    assert [row[preview["columns"].index("question_id")] for row in preview["data"]] == \
        [r["id"] for r in records[:2]]


def test_a_raw_source_is_read_only_and_a_missing_one_names_its_key(tmp_path):
    with pytest.raises(DatasetError, match=r"read-only"):
        RawSourceDataset(dataset="hotpotqa", path=str(HOTPOT)).save({"x": 1})
    missing = RawSourceDataset(dataset="hotpotqa", path=str(tmp_path / "nope.json"),
                               param_key="ingest.sources[2]")
    assert not missing.exists()
    with pytest.raises(FileNotFoundError, match=r"^ingest\.sources\[2\]\.path: hotpotqa source "
                                                 r"not found: .*nope\.json$"):
        missing.check_exists()
    with pytest.raises(DatasetError, match=r"ingest\.sources\[2\]\.path: .*nope\.json"):
        missing.load()


def test_raw_dataset_names_follow_the_source_names():
    def sources(*entries):
        return [Source(**e) for e in entries]

    assert raw_source_names(sources({"dataset": "hotpotqa", "path": "a/x.json"},
                                    {"dataset": "musique", "path": "b.jsonl"})) == \
        ["raw_hotpotqa", "raw_musique"]
    # a repeated dataset takes its file stem; characters that are not a name's become _
    assert raw_source_names(sources({"dataset": "hotpotqa", "path": "a/dev.v1.json"},
                                    {"dataset": "hotpotqa", "path": "a/train.json"},
                                    {"dataset": "documents", "path": "d", "name": "my-docs"})) == \
        ["raw_hotpotqa_dev_v1", "raw_hotpotqa_train", "raw_my_docs"]
    with pytest.raises(ParameterError, match=r"^ingest\.sources: repeated source names"):
        raw_source_names(sources({"dataset": "hotpotqa", "path": "x.json", "name": "a"},
                                 {"dataset": "musique", "path": "y.jsonl", "name": "a"}))
    with pytest.raises(ParameterError, match=r"^ingest\.sources: .*repeated dataset names"):
        raw_source_names(sources({"dataset": "hotpotqa", "path": "x.json", "name": "a.b"},
                                 {"dataset": "musique", "path": "y.jsonl", "name": "a_b"}))


def _session_catalog(project, env=None, runtime_params=None):
    from kedro.framework.project import pipelines
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project

    bootstrap_project(project)
    with KedroSession.create(project_path=project, env=env,
                             runtime_params=runtime_params) as session:
        context = session.load_context()
        catalog = context.catalog
        inputs = {d for d in pipelines["ingest"].inputs() if not d.startswith("params:")}
        return catalog, context.config_loader["catalog"], inputs


def test_the_session_env_and_params_make_the_raw_datasets(tmp_path):
    project = make_project(tmp_path)
    hotpot = str(HOTPOT.relative_to(ROOT))
    musique = str(MUSIQUE.relative_to(ROOT))
    (project / "conf" / "small").mkdir()
    (project / "conf" / "small" / "parameters.yml").write_text(yaml.safe_dump(
        {"ingest": {"sources": [{"dataset": "hotpotqa", "path": hotpot, "limit": 3}]}}))

    catalog, config, inputs = _session_catalog(project, env="small")
    raw = [name for name in catalog.keys() if name.startswith("raw_")]
    assert raw == ["raw_hotpotqa"] and inputs == {"raw_hotpotqa"}
    assert catalog.get("raw_hotpotqa")._describe() == {
        "dataset": "hotpotqa", "path": str(project / hotpot), "limit": 3}
    assert config["raw_hotpotqa"]["metadata"] == {
        "kedro-viz": {"layer": "raw", "preview_args": {"nrows": 5}}}

    # --params replaces the sources: another file, another limit, another dataset name
    runtime = {"ingest": {"sources": [{"dataset": "musique", "path": musique, "limit": 2}]}}
    catalog, _, inputs = _session_catalog(project, env="small", runtime_params=runtime)
    assert [name for name in catalog.keys() if name.startswith("raw_")] == ["raw_musique"]
    assert inputs == {"raw_musique"}
    dataset = catalog.get("raw_musique")
    assert dataset._describe() == {"dataset": "musique", "path": str(project / musique),
                                   "limit": 2}
    assert [q["question_id"] for q in dataset.load().questions] == \
        [r["id"] for r in _first_records(2)]

    # ingest.questions_per_source (what `make run` sets) bounds every source, the smaller wins
    runtime = {"ingest": {"questions_per_source": 2}}
    catalog, _, _ = _session_catalog(project, env="small", runtime_params=runtime)
    dataset = catalog.get("raw_hotpotqa")
    assert dataset._describe()["limit"] == 2
    assert [q["question_id"] for q in dataset.load().questions] == \
        [r["_id"] for r in json.loads(HOTPOT.read_text(encoding="utf-8"))[:2]]


@pytest.mark.parametrize("limit,per_source,expected", [
    (None, None, None), (None, 60, 60), (3, 60, 3), (100, 60, 60), (0, 60, 0)])
def test_questions_per_source_bounds_each_source_limit(limit, per_source, expected):
    ingest = IngestParams(sources=[{"dataset": "hotpotqa", "path": "x.json", "limit": limit}],
                          questions_per_source=per_source)
    assert ingest.limit_of(ingest.sources[0]) == expected
