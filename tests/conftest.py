"""Shared fixtures: the bundled real samples."""
from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from kgp_kedro.corpus import build_collections, read_source, split_passages

ROOT = Path(__file__).resolve().parents[1]
MODEL_CACHE = ROOT / "data" / "06_models"  # the packaged GGUF is assembled here once
RAW = ROOT / "data" / "01_raw"
HOTPOT = RAW / "hotpotqa" / "hotpot_dev_distractor_v1_sample300.json"
MUSIQUE = RAW / "musique" / "musique_ans_v1.0_dev_sample181.jsonl"
TWOWIKI = RAW / "2wikimultihopqa" / "dev_sample103.json"
# the MiniLM encoder's dtype for the whole suite (the ``encoder`` fixture, every test project's
# ``embed.encoders.minilm.dtype``, ``tests.pipelines.test_wiring.base_parameters``):
# KGP_TEST_ENCODER_DTYPE=float32 runs the suite as a CPU without native bf16 runs it under
# ``auto``, =bfloat16 as one with it (emulated, and slower, where the CPU lacks it); unset: auto.
# Modules that need one dtype for their own point pin it themselves.
ENCODER_DTYPE = os.environ.get("KGP_TEST_ENCODER_DTYPE", "auto")


def pytest_configure(config):
    """A bad KGP_TEST_ENCODER_DTYPE stops the session before any test, naming the variable;
    an xdist worker keeps to its own CPUs."""
    from kgp_kedro.models.encoders import resolve_dtype

    try:
        resolve_dtype(ENCODER_DTYPE, "cpu")
    except ValueError as exc:
        raise pytest.UsageError(f"KGP_TEST_ENCODER_DTYPE: {exc}") from None
    _keep_worker_to_its_cpus()


def _keep_worker_to_its_cpus() -> None:
    """Under ``pytest -n N`` (``make test``), worker ``gwI`` runs on every N-th CPU from the
    I-th (its affinity; what it starts inherits it) with as many PyTorch threads; llama.cpp sizes
    its threads to the affinity (:func:`kgp_kedro.plumbing.cpus.usable_cpus`). Two workers each
    running threads on every core made llama.cpp's busy-waiting threads fight (the project run's
    setup took 525-637 s unpinned, 420 s pinned, measured while both workers built it). Nothing
    is pinned with more workers than CPUs."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if worker is None or not hasattr(os, "sched_setaffinity"):
        return
    cpus = sorted(os.sched_getaffinity(0))
    if workers > len(cpus):
        return
    import torch

    own = cpus[int(worker.removeprefix("gw")) :: workers]
    os.sched_setaffinity(0, own)
    torch.set_num_threads(len(own))


# the session's one project run (``project_run``, ``notebook_run``) is built once per xdist
# worker that needs it: every test that uses it goes to one worker (``make test`` runs
# ``pytest -n auto --dist loadgroup``), which builds it while the others run the rest
SHARED_RUN = ("project_run", "notebook_run")


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook, which reads the group marks
def pytest_collection_modifyitems(items):
    for item in items:
        if set(SHARED_RUN) & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.xdist_group("project_run"))


def pytest_report_header(config):
    """The encoder's dtype on this machine, at the top of the session's output."""
    from kgp_kedro.models.encoders import cpu_supports_bf16, resolve_dtype

    return (f"encoder dtype: {resolve_dtype(ENCODER_DTYPE, 'cpu')} (KGP_TEST_ENCODER_DTYPE="
            f"{ENCODER_DTYPE}; native bf16 on this CPU: {cpu_supports_bf16()})")


def encoder_parameters() -> dict:
    """The parameters that give a project's MiniLM the suite's dtype (empty under ``auto``)."""
    if ENCODER_DTYPE == "auto":
        return {}
    return {"embed": {"encoders": {"minilm": {"dtype": ENCODER_DTYPE}}}}


def load(dataset: str, path: Path, limit: int | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    questions, documents = read_source(dataset, path, dataset, limit)
    return pd.DataFrame(questions), pd.DataFrame(documents)


@pytest.fixture(scope="session")
def hotpot():
    return load("hotpotqa", HOTPOT)


@pytest.fixture(scope="session")
def musique():
    return load("musique", MUSIQUE)


@pytest.fixture(scope="session")
def twowiki():
    return load("2wikimultihopqa", TWOWIKI)


@pytest.fixture(scope="session")
def hotpot_passages(hotpot):
    questions, documents = hotpot
    questions = questions.head(8)
    documents = documents[documents["collection_id"].isin(questions["collection_id"])]
    return questions, split_passages(build_collections(questions, documents, 4, seed=7))


@pytest.fixture(scope="session")
def encoder():
    """The offline MiniLM on CPU in the suite's dtype (``ENCODER_DTYPE``; modules that need
    float32 override it)."""
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.models import load_encoder

    return load_encoder(EncoderParams(device="cpu", dtype=ENCODER_DTYPE))


@pytest.fixture(scope="session")
def local_llm():
    """The embedded default reader (llama-cpp-python + the packaged Qwen2.5-Coder-0.5B)."""
    from kgp_kedro.llm import LLMClient
    from kgp_kedro.llm.backends import LocalBackend

    return LLMClient(LocalBackend(cache_dir=str(MODEL_CACHE), n_ctx=2048), None, max_tokens=32)


@pytest.fixture(scope="session")
def golden_reading(hotpot):
    """A bundled HotpotQA question the default reader gets right from its supporting passages
    ("... attended which college?": Berklee College of Music): its gold answers and the reader's
    messages (the configured system prompt, then the paper's Listing 3 prompt)."""
    import yaml

    from kgp_kedro.reading import qa_prompt

    questions, documents = hotpot
    q = questions.iloc[7]
    support = documents[(documents["collection_id"] == q.collection_id)
                        & documents["is_supporting"]]["text"].tolist()
    system = yaml.safe_load((ROOT / "conf/base/parameters_read.yml").read_text())["read"][
        "system_prompt"]
    return list(q.answers), [{"role": "system", "content": system},
                             {"role": "user", "content": qa_prompt(q.question, support)}]


@pytest.fixture(scope="session")
def feature_cache(tmp_path_factory):
    """One folder of feature caches (embeddings, entity mentions, facts) for every test project
    of the session that runs a pipeline (``tests.projects.make_project``): a passage any of them
    has embedded or linked is not computed again."""
    return tmp_path_factory.mktemp("feature_cache")


def _claim_the_project_run(tmp_path_factory) -> None:
    """Under xdist, the first worker to build the project run says so in the session's shared
    temporary folder; a second worker stops there, naming the cause, rather than building it
    again beside the first. It happened silently twice over: a group mark added after xdist's
    hook had read the marks, and pytest 9.2, under which xdist cannot set a test's group
    (pytest-xdist#1386; the test extra pins pytest below 9.2)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    claim = tmp_path_factory.getbasetemp().parent / "project_run.worker"
    try:
        with claim.open("x") as handle:
            handle.write(worker)
    except FileExistsError:
        pytest.fail(f"the project run is already built by {claim.read_text()}: the tests that "
                    f"use it lost their xdist group (--dist loadgroup; pytest {pytest.__version__}"
                    f", see pytest-xdist#1386)", pytrace=False)


@pytest.fixture(scope="session")
def project_run(tmp_path_factory, feature_cache):
    """The session's one full run, shared by the pipeline, report and notebook tests: a copy of
    the project on a handful of real questions of every source (``tests.projects``'
    LOCAL_PARAMETERS: base's every KG variant and method, the embedded reader LLM with a small
    window) after one ``kedro run`` of the default pipeline (KG quality, then ingest -> ... ->
    read -> score -> report) and of ``retrieval_quality``, as one run: every stage once."""
    from tests.projects import LOCAL_PARAMETERS, make_project, run_pipeline

    _claim_the_project_run(tmp_path_factory)
    project = make_project(tmp_path_factory.mktemp("project"), LOCAL_PARAMETERS, feature_cache)
    run_pipeline(project, ["__default__", "retrieval_quality"])
    return project


@pytest.fixture(scope="session")
def notebook_run(project_run):
    """``notebook_run(name)``: the project run's notebook ``name`` executed headless (nbclient),
    once in the session, on first use."""
    from tests.projects import execute_notebook

    executed = {}

    def run(name: str):
        if name not in executed:
            executed[name] = execute_notebook(project_run / "notebooks" / name)
        return executed[name]

    return run


@pytest.fixture(scope="session")
def dask_client():
    """A real ``distributed.LocalCluster`` of 2 worker processes (1 thread each) and its client,
    not made the default: a test activates it with ``dask_client.as_current()`` (as
    :class:`kgp_kedro.runs.runner.DaskRunner` does), so the other tests keep the plain loop."""
    import distributed   # the test extra installs dask[distributed]

    # the dashboard on a free port: each xdist worker starts its own cluster, and the
    # default 8787 taken by one warns "Port 8787 is already in use" in the other
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        yield client


@pytest.fixture(scope="session")
def llama_server():
    """llama-cpp-python's own OpenAI-compatible server (``python -m llama_cpp.server``) on
    127.0.0.1 with the packaged model (window 1024, alias ``qwen-local``): its base URL. One
    process for the session, shared by the tests of the openai backend and of the ask run."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    from kgp_kedro.llm import resolve_gguf
    from kgp_kedro.llm.backends import llama_threads

    model = resolve_gguf("qwen2.5-coder-0.5b-instruct-q4_k_m", cache_dir=MODEL_CACHE)
    generate, evaluate = llama_threads(None)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "1024", "--model_alias", "qwen-local",
         # its defaults count every core of the machine: sized as LocalBackend's instead
         "--n_threads", str(generate), "--n_threads_batch", str(evaluate)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{base_url}/models", timeout=1)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(f"llama_cpp.server exited with {server.returncode}")
                time.sleep(0.5)
        else:
            pytest.fail("llama_cpp.server did not come up within 60 s")
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)
