"""Shared fixtures: the bundled real samples."""
from __future__ import annotations

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
    """The offline MiniLM on CPU with the default dtype (modules that need float32 override it)."""
    from kgp_kedro.config.sections import EncoderParams
    from kgp_kedro.models import load_encoder

    return load_encoder(EncoderParams(device="cpu"))


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
