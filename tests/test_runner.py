"""kgp_kedro.runs.runner.DaskRunner on a real 2-process LocalCluster: the ingest -> passages ->
embed -> kg chain on real questions (2 of each bundled source, and a folder of PDF / DOCX /
Markdown files and an unreadable PDF) gives the sequential runner's tables (every discrete value
bit for bit, the floats too), the heavy nodes' work (file reading,
encoding, entity linking, per-collection graphs) spread over the workers."""
from __future__ import annotations

import json

import pandas as pd
import pytest
from kedro.io import DataCatalog, MemoryDataset
from kedro.pipeline import Pipeline, node

from kgp_kedro.graphs.edge_table import EdgeTable
from kgp_kedro.models.devices import torch_threads
from kgp_kedro.pipelines.chains import build_pipelines
from kgp_kedro.pipelines.in_memory import run_in_memory
from kgp_kedro.runs.runner import DaskRunner
from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI
from tests.tables import assert_same_table
from tests.corpus.files import make_docx, make_pdf
from tests.pipelines.test_wiring import base_parameters

CHUNK = 16   # texts per encoding / linking task: several tasks even on this small input


def _parameters(folder, dtype: str) -> dict:
    raw = base_parameters()
    raw["ingest"].update(negatives_per_question=1, collection_size=None, sources=[
        {"dataset": "hotpotqa", "path": str(HOTPOT), "limit": 2},
        {"dataset": "musique", "path": str(MUSIQUE), "limit": 2},
        {"dataset": "2wikimultihopqa", "path": str(TWOWIKI), "limit": 2},
        {"dataset": "documents", "path": str(folder), "limit": None}])
    raw["embed"]["encoders"]["minilm"].update(cache_dir=None, chunk_size=CHUNK, device="cpu",
                                              dtype=dtype)
    variants = raw["kg"]["variants"]
    variants["tfidf"]["sweep"] = {"n_kw": [2, 5]}
    variants["knn_st"]["sweep"] = {"k": [2, 5]}
    variants["tagme"]["sweep"] = {"prior_threshold": [0.0, 0.8]}
    variants["tagme"]["linker"] = {"backend": "offline", "cache_dir": None, "chunk_size": CHUNK}
    raw["kg"]["variants"] = {name: variants[name] for name in ("tfidf", "knn_st", "tagme")}
    raw["retrieve"]["graph"] = {"variant": "tagme", "setting": {"prior_threshold": 0.8}}
    return raw


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    make_pdf(folder / "a.pdf")
    make_docx(folder / "b.docx")
    (folder / "c.md").write_text("# Notes\n\nSome text about Alf Clausen.\n")
    (folder / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    (folder / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "x?"}) + "\n")
    return folder


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_the_kg_chain_on_the_cluster_equals_the_sequential_run(folder, dask_client, dtype):
    """The same tables from both runners, bit for bit: every id, text, edge, count and column,
    the passage vectors and the KNN KG's cosine weights too. The sequential run encodes on 2
    PyTorch threads, each worker on 1, as a machine's cores and a cluster's workers would; a
    matrix product rounds with the threads that split it (bf16 vectors moved by up to 2e-3 on
    an Intel Xeon with AMX), so the encoder encodes each text alone on one thread. In both
    dtypes, so a CPU whose ``auto`` gives the other one is reproduced here."""
    raw = _parameters(folder, dtype)
    with torch_threads(2):
        alone = run_in_memory(build_pipelines(raw)["kg"], raw)
    spread = run_in_memory(build_pipelines(raw)["kg"], raw, runner=DaskRunner(client=dask_client))
    assert set(alone) == set(spread)
    assert {"kg_edges_tfidf", "kg_edges_knn_st", "kg_edges_tagme", "passage_embeddings_minilm",
            "skipped_files"} <= set(alone)
    for name, table in alone.items():
        if isinstance(table, EdgeTable):   # the KG edges, streamed to a file per run
            assert_same_table(spread[name].to_pandas(), table.to_pandas(), name)
        elif isinstance(table, pd.DataFrame):
            assert_same_table(spread[name], table, name)
        else:
            assert spread[name] == table, name
    assert len(alone["passage_embeddings_minilm"]) > 3 * CHUNK   # several encoding tasks
    assert alone["documents"]["source"].nunique() == 4
    assert (alone["skipped_files"]["path"] == "bad.pdf").any()


def double(x: int) -> int:
    return 2 * x


def fail(x: int) -> int:
    raise RuntimeError(f"node failed on {x}")


def package_here(x: int) -> str | None:
    """The Kedro project configured in the process that runs this node."""
    from kedro.framework.project import PACKAGE_NAME

    return PACKAGE_NAME


def test_memory_outputs_flow_between_workers_and_a_failure_stops_the_run(dask_client,
                                                                         monkeypatch):
    # as under `kedro run`: the project configured here, so each worker configures it too
    monkeypatch.setattr("kedro.framework.project.PACKAGE_NAME", "kgp_kedro")
    pipeline = Pipeline([node(double, "a", "b", name="first"), node(double, "b", "c", name="second"),
                         node(package_here, "b", "package", name="where")])
    catalog = DataCatalog(datasets={"a": MemoryDataset(21)})
    result = DaskRunner(client=dask_client).run(pipeline, catalog)
    assert result["c"].load() == 84        # "b" stayed on the workers, "c" came back
    assert result["package"].load() == "kgp_kedro"
    broken = pipeline + Pipeline([node(fail, "c", "d", name="third")])
    with pytest.raises(RuntimeError, match="node failed on 84"):
        DaskRunner(client=dask_client).run(broken, DataCatalog(datasets={"a": MemoryDataset(21)}))


def test_without_an_address_the_runner_starts_and_closes_a_local_cluster(monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    catalog = DataCatalog(datasets={"a": MemoryDataset(5),
                                    "params:dask": MemoryDataset({"n_workers": 1})})
    pipeline = Pipeline([node(double, "a", "b", name="only")])
    assert DaskRunner().run(pipeline, catalog)["b"].load() == 10


def test_the_scheduler_from_the_parameters_or_the_environment(dask_client, monkeypatch):
    address = dask_client.scheduler.address
    pipeline = Pipeline([node(double, "a", "b", name="only")])
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", address)
    assert DaskRunner().run(pipeline, DataCatalog(datasets={"a": MemoryDataset(1)}))[
        "b"].load() == 2
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    catalog = DataCatalog(datasets={"a": MemoryDataset(2),
                                    "params:dask": MemoryDataset({"address": address})})
    assert DaskRunner().run(pipeline, catalog)["b"].load() == 4


def test_runner_arguments_override_the_parameters_and_bad_values_name_the_key():
    from kgp_kedro.config import ParameterError

    catalog = DataCatalog(datasets={"params:dask": MemoryDataset({"n_workers": 1,
                                                                  "threads_per_worker": 2})})
    settings = DaskRunner(n_workers=3)._settings(catalog)
    assert (settings.address, settings.n_workers, settings.threads_per_worker) == (None, 3, 2)
    with pytest.raises(ParameterError, match="dask.n_workers"):
        DaskRunner(n_workers=0)._settings(catalog)
