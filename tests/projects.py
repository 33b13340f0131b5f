"""Throw-away copies of the project for the tests that run Kedro: making one, running a
pipeline in it, executing one of its notebooks. The session's one full run of such a copy
(``project_run``) and its executed notebooks (``notebook_run``) are fixtures in
``tests/conftest.py``."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tests.conftest import MODEL_CACHE, ROOT, encoder_parameters

N_QUESTIONS = 4
QA_PER_SOURCE = 1  # questions per source the reader LLM answers
READER_WINDOW = 768  # the embedded reader's context window in the test projects (tokens)
ANSWER_TOKENS = 16  # the reader's answer (llm.sampling.max_tokens)
# the longest generation of the test projects' LLM methods (the EWEK-QA composer, ToG's replies,
# the chat agent, IRCoT's reasoning sentence; the HOLMES reader's A.4.5 reply, with its four
# headed parts, gets 48): generated tokens cost the most per token
GENERATION_TOKENS = 32
HOLMES_REPLY_TOKENS = 48
# the reader's prompts (Listings 2-4) are budgeted to about this many tokens: the window less the
# answer's max_tokens and read.margin_tokens. Every method still has contexts cut by the budget,
# and prompt evaluation, which dominates a reader call on a CPU, is under half the window's
READER_PROMPT_TOKENS = 300


def _base(name: str) -> dict:
    return yaml.safe_load((ROOT / "conf" / "base" / f"parameters_{name}.yml").read_text())[name]


def _small_llm() -> dict:
    """The embedded model with a small window (prompts are cut to fit it), assembled once."""
    llm = _base("llm")
    llm["local"].update(cache_dir=str(MODEL_CACHE), n_ctx=READER_WINDOW)
    llm["sampling"]["max_tokens"] = ANSWER_TOKENS
    return llm


def _fewer_llm_calls() -> dict:
    """Base's every retrieval method, in order (a methods block is a whole selection), with
    fewer and shorter embedded-LLM calls for the two LLM-driven retrievers: 2 chat-agent seeds
    instead of 10 (each a short generation), IRCoT's first 2 reasoning steps over 2 passages a
    step (its prompts hold every passage retrieved so far)."""
    methods = _base("retrieve")["methods"]
    methods["kgp_chat"]["seeds"] = 2
    methods["kgp_chat"]["agent"]["max_tokens"] = GENERATION_TOKENS
    methods["ircot"].update(max_steps=2, step_k=2, max_tokens=GENERATION_TOKENS)
    return methods


# conf/local of the session's project run: base's every KG variant and method, on a handful of
# real questions of every source
LOCAL_PARAMETERS = {
    "ingest": {
        "sources": [
            {"dataset": "hotpotqa", "path": "data/01_raw/hotpotqa/hotpot_dev_distractor_v1_sample300.json",
             "limit": N_QUESTIONS},
            {"dataset": "musique", "path": "data/01_raw/musique/musique_ans_v1.0_dev_sample181.jsonl",
             "limit": N_QUESTIONS},
            {"dataset": "2wikimultihopqa", "path": "data/01_raw/2wikimultihopqa/dev_sample103.json",
             "limit": N_QUESTIONS},
        ],
        "collection_size": None,   # negatives_per_question for every dataset: small collections
        "negatives_per_question": 3,
        "seed": 42,
        "qa_questions_per_source": QA_PER_SOURCE,
    },
    "llm": _small_llm(),
    "read": {"margin_tokens": READER_WINDOW - ANSWER_TOKENS - READER_PROMPT_TOKENS},
    "retrieve": {"methods": _fewer_llm_calls()},
    # EWEK-QA's cross-encoder: trained on the bundled train files, a few pairs and a few held-out
    # questions (the real size is the benchmark's business), and 2 quotes a composer prompt;
    # the merge is soft, so these keys override conf/base's
    "ewek": {"training": {"max_pairs": 48, "heldout_pairs": 24},
             "composer": {"max_tokens": GENERATION_TOKENS, "quotes": 2},
             "tog": {"prune_max_tokens": GENERATION_TOKENS}},
    # HOLMES' A.4.5 prompt is ~300 tokens before its facts: ~150 tokens of facts
    "holmes": {"reader_max_tokens": HOLMES_REPLY_TOKENS,
               "margin_tokens": READER_WINDOW - HOLMES_REPLY_TOKENS - 450},
    # the trained DPR / MDR / KGP-MDR encoders: a few train questions and steps (the real size
    # is bench_training.py's business)
    "train": {"sources": [{**source, "limit": 12} for source in _base("train")["sources"]],
              "encoders": {name: {"max_examples": 16, "max_heldout": 2, "batch_size": 8,
                                  "max_length": 64} for name in ("dpr", "mdr")}},
}




FEATURE_CACHE = Path("data") / "04_feature" / "cache"   # every feature cache's default parent


def make_project(target: Path, local_parameters: dict | None = None,
                 feature_cache: Path | None = None) -> Path:
    """Copy the project's configuration, bundled data and notebooks into ``target``;
    ``feature_cache``: a folder the copy's feature caches (embeddings, entity mentions, facts,
    all under ``data/04_feature/cache`` by default) link to, shared by the session's copies.
    The copy's MiniLM runs in the suite's dtype (``tests.conftest.ENCODER_DTYPE``) unless
    ``local_parameters`` has an ``embed`` block of its own."""
    os.environ.setdefault("KEDRO_DISABLE_TELEMETRY", "1")
    shutil.copy(ROOT / "pyproject.toml", target / "pyproject.toml")
    shutil.copytree(ROOT / "conf", target / "conf",
                    ignore=shutil.ignore_patterns("credentials*", "local"))
    (target / "conf" / "local").mkdir()
    shutil.copytree(ROOT / "data" / "01_raw", target / "data" / "01_raw")
    shutil.copytree(ROOT / "notebooks", target / "notebooks")
    (target / "src").mkdir()  # the package itself is installed; Kedro wants the folder
    local_parameters = {**encoder_parameters(), **(local_parameters or {})}
    if local_parameters:
        (target / "conf" / "local" / "parameters.yml").write_text(yaml.safe_dump(local_parameters))
    if feature_cache is not None:
        (target / FEATURE_CACHE).parent.mkdir(parents=True)
        (target / FEATURE_CACHE).symlink_to(feature_cache, target_is_directory=True)
    return target


def run_pipeline(project: Path, pipeline: str | list[str], tags: list[str] | None = None,
                 runtime_params: dict | None = None, env: str | None = None) -> None:
    """One Kedro session's run of ``pipeline`` (or of several, as one run) in ``project``."""
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project

    cwd = Path.cwd()
    os.chdir(project)  # relative paths in parameters, and the KG variant list, are read from here
    try:
        bootstrap_project(project)
        with KedroSession.create(project_path=project, env=env,
                                 runtime_params=runtime_params) as session:
            session.run(pipeline_names=[pipeline] if isinstance(pipeline, str) else pipeline,
                        tags=tags)
    finally:
        os.chdir(cwd)


def execute_notebook(path: Path, stops: bool = False) -> nbformat.NotebookNode:
    """Run the notebook's cells in order in its folder, headless, as "run all" does; ``stops``:
    it is expected to stop at an error (the cells after it do not run)."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    if stops:
        with pytest.raises(CellExecutionError):
            client.execute()
    else:
        client.execute()
    return notebook


def notebook_outputs(notebook: nbformat.NotebookNode) -> list:
    """The outputs of its code cells, in order."""
    return [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]

