"""The outputs of `kedro run --env X` land under data/X/, apart from the default env's and
from every other env's; the raw inputs stay where they are."""
from __future__ import annotations

from kgp_kedro import settings
from tests.conftest import ROOT


def _catalog(env: str | None) -> dict:
    return settings.CONFIG_LOADER_CLASS(conf_source=str(ROOT / "conf"), env=env,
                                        **settings.CONFIG_LOADER_ARGS)["catalog"]


def test_each_env_writes_under_its_own_folder_and_the_default_env_where_it_always_did():
    local, documents, ask = _catalog(None), _catalog("documents"), _catalog("ask")
    assert local["passages"]["filepath"] == "data/03_primary/passages.parquet"
    assert documents["passages"]["filepath"] == "data/documents/03_primary/passages.parquet"
    assert ask["ask_report_md"]["filepath"] == "data/ask/08_reporting/answers.md"
    assert ask["retrieved_{method}"]["filepath"] == \
        "data/ask/07_model_output/retrieved_{method}.parquet"
    # every output moved, none left in another env's folder; the raw sources read in place
    moved = {name for name, entry in local.items() if not name.startswith("_")
             and str(entry.get("filepath", "")).startswith("data/")}
    assert moved and all(documents[n]["filepath"] == local[n]["filepath"].replace(
        "data/", "data/documents/", 1) for n in moved)
    assert documents["raw_documents"]["path"] == "data/01_raw/structural_benchmark"
