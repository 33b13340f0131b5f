"""Project hooks."""
from __future__ import annotations

import logging
import os

from kedro.framework.hooks import hook_impl

logger = logging.getLogger(__name__)


class ValidateParameters:
    """Validate every parameter of the session (``--env`` and ``--params`` included) when its
    context is created, before any node runs: an error names the key. The validated parameters
    shape the pipelines (:mod:`kgp_kedro.pipelines.parameters`); when they differ from the ones
    pipelines were last built from in this process, the pipelines are rebuilt."""

    @hook_impl
    def after_context_created(self, context) -> None:
        from kedro.framework.project import PACKAGE_NAME, pipelines

        from kgp_kedro.pipelines.parameters import activate

        # context.params would build the pipelines first (Kedro validates parameters against
        # node type hints); the config loader's parameters include the --params overrides
        if activate(context.config_loader["parameters"]) and PACKAGE_NAME:
            # private: Kedro has set_requested but no getter (tests/test_kedro_private_names.py)
            requested = pipelines._requested_pipelines
            pipelines.configure(f"{PACKAGE_NAME}.pipeline_registry")
            pipelines.set_requested(requested)


class RawSourcesExist:
    """A raw source the run reads whose path does not exist stops the run before any node,
    naming the parameter key: a ``raw_<source>`` dataset (an ``ingest.sources`` entry), or a
    train file of a stage the run includes (``train.sources``, ``ewek.training.sources``,
    ``holmes.auxiliary.sources``); an ask run (the ``ask`` stage) with no documents folder among
    the sources (``ask.folder`` is one when set) stops too, with the config's error for a
    missing ask folder; so does a run that reads answers with a local model that is not
    installed (``llm.local.model``). Registered last in ``settings.HOOKS`` so that it runs
    before the other hooks' ``before_pipeline_run``."""

    TRAIN_FILES = {"params:train": ("sources",), "params:ewek": ("training", "sources"),
                   "params:holmes": ("auxiliary", "sources")}
    # the stages whose nodes read with the LLM: their run needs its model (llm.local.model)
    READING = {"params:read", "params:ask", "params:holmes", "params:ewek"}

    @hook_impl
    def before_pipeline_run(self, run_params, pipeline, catalog) -> None:
        from kgp_kedro.config.sections import ask_folder_missing
        from kgp_kedro.corpus.sources import require_source_path
        from kgp_kedro.io.raw_source import RawSourceDataset
        from kgp_kedro.llm.packaged import require_reader_model

        inputs = pipeline.inputs()
        if "params:ask" in inputs and "params:ingest" in catalog and not any(
                source.get("dataset") == "documents"
                for source in catalog.load("params:ingest").get("sources") or []):
            raise ask_folder_missing()
        if "params:llm" in inputs and inputs & self.READING and "params:llm" in catalog:
            require_reader_model(catalog.load("params:llm"))
        for name in sorted(inputs):
            dataset = catalog.get(name) if name in catalog else None
            if isinstance(dataset, RawSourceDataset):
                dataset.check_exists()
        for name, keys in self.TRAIN_FILES.items():
            if name not in inputs or name not in catalog:
                continue
            sources = catalog.load(name)
            for key in keys:
                sources = (sources or {}).get(key)
            for i, source in enumerate(sources or []):
                require_source_path(source["dataset"], source["path"],
                                    f"{name.removeprefix('params:')}.{'.'.join(keys)}[{i}]")


def _credentials(loader) -> dict:
    """The credentials of ``loader`` (base and its env; none: ``{}``)."""
    try:
        return dict(loader["credentials"] or {})
    except Exception:  # noqa: BLE001 - no credentials file is the normal case
        return {}


def run_credentials(loader) -> dict:
    """The session's credentials: conf/local's under whichever env runs (``--env X`` replaces
    conf/local, whose credentials file is where secrets live), the run env's own winning key by
    key."""
    found = _credentials(loader)
    default = getattr(loader, "default_run_env", None)
    if not default or (getattr(loader, "env", None) or default) == default:
        return found
    from kedro.config import OmegaConfigLoader

    local = _credentials(OmegaConfigLoader(conf_source=str(loader.conf_source), env=default,
                                           base_env=loader.base_env,
                                           default_run_env=default))
    merged = dict(local)
    for section, values in found.items():
        both = isinstance(values, dict) and isinstance(local.get(section), dict)
        merged[section] = {**local[section], **values} if both else values
    return merged


class CredentialsToEnvironment:
    """Expose secrets of ``conf/local/credentials.yml`` (read under any ``--env``; an env's own
    credentials file wins) to the libraries that read them from the environment (the TagMe
    linker reads ``TAGME_TOKEN``, the openai LLM backend ``OPENAI_API_KEY``). A variable
    already set wins; a value is never logged::

        # conf/local/credentials.yml
        tagme:
          token: <your gcube token>
        llm:
          api_key: <your key>
    """

    VARIABLES = {("tagme", "token"): "TAGME_TOKEN", ("llm", "api_key"): "OPENAI_API_KEY"}

    @hook_impl
    def after_context_created(self, context) -> None:
        credentials = run_credentials(context.config_loader)
        for (section, key), variable in self.VARIABLES.items():
            value = (credentials.get(section) or {}).get(key)
            if value and not os.environ.get(variable):
                os.environ[variable] = str(value)
                logger.info("Using %s.%s from the credentials as %s", section, key, variable)
