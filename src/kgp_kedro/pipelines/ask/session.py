"""The notebook's ask session (notebooks/ask.ipynb) from an ask run's catalog: the
:class:`~kgp_kedro.asking.session.AskSession` over the run's passages, KG and vectors, with
the run's method, reader and ask options, the project's relative paths (caches, the model
folder) resolved from the project folder."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from kgp_kedro.asking.session import AskSession
from kgp_kedro.config import validate
from kgp_kedro.config.base import setting_label
from kgp_kedro.config.sections import AskParams, EncoderParams
from kgp_kedro.llm import LLMClient
from kgp_kedro.models.loading import load_encoder
from kgp_kedro.pipelines.ask.nodes import options, reader
from kgp_kedro.pipelines.parameter_tree import Method, parse_method


def _under(project: Path, path: str | None) -> str | None:
    return str(project / path) if path else path


def session_method(catalog, project_path: Path) -> Method:
    """The run's ``ask.method`` entry, parsed, its linker's cache under the project folder."""
    name = validate(AskParams, catalog.load("params:ask"), "ask").method
    block = catalog.load(f"params:retrieve.methods.{name}")
    if (block.get("linker") or {}).get("cache_dir"):   # the run's entity mentions, read back
        block["linker"]["cache_dir"] = _under(Path(project_path), block["linker"]["cache_dir"])
    return parse_method(name, block, f"retrieve.methods.{name}")


def session_datasets(catalog, method: Method) -> list[str]:
    """The run's outputs an ask session with ``method`` reads: the passages, the KG of
    ``retrieve.graph`` and the passage embeddings, each where the method requires it."""
    needs = method.requirements
    variant = catalog.load("params:retrieve.graph")["variant"]
    return ["passages", *([f"kg_nodes_{variant}", f"kg_edges_{variant}"] if needs.graph else []),
            *([f"passage_embeddings_{catalog.load('params:retrieve.embeddings')}"]
              if needs.embeddings else [])]


def open_session(catalog, data: dict[str, Any], method: Method,
                 project_path: Path, client: LLMClient | None = None) -> AskSession:
    """The session over ``data`` (:func:`session_datasets`' loaded outputs); ``client``: a
    reader already loaded from the same ``llm`` and ``ask`` blocks (an open session's, kept
    when the app opens another folder), else the run's reader loaded here."""
    project = Path(project_path)
    ask = validate(AskParams, catalog.load("params:ask"), "ask")
    graph = catalog.load("params:retrieve.graph")
    variant, encoder = graph["variant"], catalog.load("params:retrieve.embeddings")
    if client is None:
        llm = catalog.load("params:llm")
        llm["cache"] = _under(project, llm.get("cache"))
        if (llm.get("local") or {}).get("cache_dir"):
            llm["local"]["cache_dir"] = _under(project, llm["local"]["cache_dir"])
        client = reader(llm, ask)
    needs = method.requirements
    model = (load_encoder(validate(EncoderParams, catalog.load(f"params:embed.encoders.{encoder}"),
                                   f"embed.encoders.{encoder}")) if needs.embeddings else None)
    return AskSession(
        data["passages"], method, catalog.load("params:retrieve.budget"), client,
        options(catalog.load("params:ask"), catalog.load("params:read")),
        nodes=data.get(f"kg_nodes_{variant}"),
        edges=data.get(f"kg_edges_{variant}"), setting=setting_label(graph["setting"]),
        embeddings=data.get(f"passage_embeddings_{encoder}"), encoder=model)
