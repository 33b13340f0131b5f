"""Every private Kedro (and kedro-datasets) name the project relies on, pinned: each test
fails when Kedro renames or removes the name, or stops using it the way the project's code
assumes, so an upgrade breaks here first and not in a run.

The names and where they are used:

- ``OmegaConfigLoader._resolve_from_raw_config(key, base_configs, env_configs, ...)``,
  overridden by :class:`kgp_kedro.pipelines.parameters.ConfigLoader` (the env's menu
  selections need the per-env raw configs, which no public method hands over);
- ``_ProjectPipelines._requested_pipelines``, read by
  :class:`kgp_kedro.hooks.ValidateParameters` to keep ``--pipelines`` across a reconfigure
  (Kedro has ``set_requested`` but no getter);
- ``AbstractVersionedDataset._version`` / ``_filepath`` / ``_protocol``, read by
  :mod:`kgp_kedro.runs.integrity` for the version folders of a run;
- ``HTMLDataset._get_save_path`` / ``_protocol`` / ``_fs`` / ``_fs_open_args_save`` /
  ``_save_args`` / ``_invalidate_cache``, used by :class:`kgp_kedro.io.figure.FigureDataset`;
  ``AbstractVersionedDataset.__init__(filepath, version, exists_function, glob_function)``,
  ``_get_load_path``, ``_get_save_path`` by the EWEK model dataset;
- ``AbstractDataset._describe`` / ``_exists`` (the hooks Kedro's public ``exists`` and
  ``repr`` call), implemented by the project's datasets;
- ``kedro_datasets._typing.TablePreview``, the type of the datasets' ``preview``;
- ``AbstractRunner._run(pipeline, catalog, hook_manager, run_id)`` and ``_get_executor``
  (implemented), ``_suggest_resume_scenario(pipeline, done_nodes, catalog)``, ``_logger`` and
  ``_is_async`` (used), and ``kedro.framework.hooks.manager._create_hook_manager`` /
  ``_register_hooks(manager, hooks)`` (a worker's hook manager), by :class:`kgp_kedro.runs.runner.DaskRunner`, as Kedro's Dask guide
  does.
"""
from __future__ import annotations

import inspect

import yaml
from kedro.config import OmegaConfigLoader
from kedro.io import AbstractDataset, MemoryDataset
from kedro.io.core import AbstractVersionedDataset, Version


def parameters_of(func) -> list[str]:
    return list(inspect.signature(func).parameters)


def test_config_loader_resolves_through_the_overridden_hook(tmp_path):
    assert parameters_of(OmegaConfigLoader._resolve_from_raw_config)[:4] == [
        "self", "key", "base_configs", "env_configs"]
    for env, value in (("base", 1), ("local", 2)):
        (tmp_path / env).mkdir()
        (tmp_path / env / "parameters.yml").write_text(yaml.safe_dump({"a": value}))
    seen = []

    class Spy(OmegaConfigLoader):
        def _resolve_from_raw_config(self, key, base_configs, env_configs, *args, **kwargs):
            seen.append((key, sorted(p.parent.name for p in env_configs)))
            return super()._resolve_from_raw_config(key, base_configs, env_configs, *args,
                                                    **kwargs)

    assert Spy(str(tmp_path), base_env="base", default_run_env="local")["parameters"] == {"a": 2}
    assert ("parameters", ["local"]) in seen


def test_the_project_config_loader_overrides_that_hook():
    from kgp_kedro.pipelines.parameters import ConfigLoader

    assert "_resolve_from_raw_config" in vars(ConfigLoader)


def test_project_pipelines_keep_the_requested_names():
    from kedro.framework.project import _ProjectPipelines

    pipelines = _ProjectPipelines()
    assert pipelines._requested_pipelines is None
    pipelines.set_requested(["kg"])
    assert pipelines._requested_pipelines == ["kg"]
    pipelines.configure(None)
    assert pipelines._requested_pipelines is None


def test_versioned_dataset_attributes(tmp_path):
    from kedro_datasets.pandas import ParquetDataset

    dataset = ParquetDataset(filepath=str(tmp_path / "t.parquet"), version=Version(None, None))
    assert isinstance(dataset, AbstractVersionedDataset)
    assert dataset._version == Version(None, None)
    assert str(dataset._filepath) == str(tmp_path / "t.parquet")
    assert dataset._protocol == "file"
    assert callable(dataset.resolve_save_version)
    assert parameters_of(AbstractVersionedDataset.__init__)[:5] == [
        "self", "filepath", "version", "exists_function", "glob_function"]
    for name in ("_get_load_path", "_get_save_path"):
        assert parameters_of(getattr(AbstractVersionedDataset, name)) == ["self"]


def test_html_dataset_internals_the_figure_dataset_uses(tmp_path):
    from kedro_datasets.plotly import HTMLDataset

    dataset = HTMLDataset(filepath=str(tmp_path / "f.html"))
    assert dataset._protocol == "file"
    assert hasattr(dataset._fs, "open")
    assert isinstance(dataset._fs_open_args_save, dict)
    assert isinstance(dataset._save_args, dict)
    assert str(dataset._get_save_path()).endswith("f.html")
    assert callable(dataset._invalidate_cache)


def test_dataset_hooks_behind_public_exists_and_describe():
    for name in ("_describe", "_exists"):
        assert parameters_of(getattr(AbstractDataset, name)) == ["self"]

    class Probe(MemoryDataset):
        def _exists(self) -> bool:
            return True

        def _describe(self):
            return {"probe": 1}

    assert Probe().exists() is True
    assert "probe=1" in repr(Probe())


def test_table_preview_type():
    from kedro_datasets._typing import TablePreview

    assert TablePreview is not None


def test_runner_internals_the_dask_runner_uses():
    from kedro.runner import AbstractRunner

    assert parameters_of(AbstractRunner._run) == ["self", "pipeline", "catalog", "hook_manager",
                                                  "run_id"]
    assert parameters_of(AbstractRunner._get_executor) == ["self", "max_workers"]
    assert parameters_of(AbstractRunner._suggest_resume_scenario) == [
        "self", "pipeline", "done_nodes", "catalog"]
    assert isinstance(vars(AbstractRunner)["_logger"], property)
    assert "self._is_async = is_async" in inspect.getsource(AbstractRunner.__init__)
    from kedro.framework.hooks import manager

    assert parameters_of(manager._create_hook_manager) == []
    assert parameters_of(manager._register_hooks) == ["hook_manager", "hooks"]
