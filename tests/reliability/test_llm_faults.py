"""LLM replies and model files (issue 13): a reply with ``content: null`` or no choices is an
error, retried, and never cached (a fixed server then answers); the stale ``.partial-*`` GGUF
of a killed assembly is removed by the next one."""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from kgp_kedro.llm import CallCache, InvalidReplyError, LLMClient
from kgp_kedro.llm import packaged
from kgp_kedro.llm.backends import OpenAIBackend, reply_text
from tests.llm.fake_openai_server import FakeOpenAIServer

MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]


def client_for(server, max_retries=2, cache=None):
    backend = OpenAIBackend(model="test-model", base_url=server.base_url, api_key="k",
                            max_retries=max_retries, timeout=5, invalid_reply_backoff=0.01)
    return LLMClient(backend, cache)


@pytest.mark.parametrize("fault", ["null_content", "empty_choices", "missing_choices"])
def test_a_malformed_reply_is_retried_then_succeeds(fault):
    with FakeOpenAIServer(failures=[fault]) as server:
        completion = client_for(server).complete(MESSAGES)
    assert completion.error is None and completion.text == "Paris"
    assert len(server.requests) == 2


@pytest.mark.parametrize("fault,reason", [("null_content", "content null"),
                                          ("empty_choices", "no choices"),
                                          ("missing_choices", "no choices")])
def test_a_persistent_malformed_reply_is_a_failed_call_never_cached(tmp_path, fault, reason):
    cache = CallCache(tmp_path / "calls.sqlite")
    with FakeOpenAIServer(failures=[fault] * 3) as server:
        failed = client_for(server, max_retries=2, cache=cache).complete(MESSAGES)
        assert len(server.requests) == 3              # the first try and 2 retries
        assert failed.text == "" and "InvalidReplyError" in failed.error
        assert reason in failed.error
        assert len(cache) == 0                        # not cached as a valid empty answer
        # the server is fixed: the same call is asked again, answered, and only now cached
        fixed = client_for(server, cache=cache).complete(MESSAGES)
    assert fixed.text == "Paris" and not fixed.cached and len(server.requests) == 4
    assert len(cache) == 1


def test_an_empty_string_reply_is_a_valid_answer(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    with FakeOpenAIServer(reply=lambda prompt: "") as server:
        completion = client_for(server, cache=cache).complete(MESSAGES)
    assert completion.error is None and completion.text == "" and len(cache) == 1


def test_reply_text_reads_objects_and_dicts():
    assert reply_text([{"message": {"content": "a"}}], "local") == "a"
    for choices, reason in (([], "no choices"), (None, "no choices"),
                            ([{"message": {"content": None}, "finish_reason": "length"}],
                             "content null (finish_reason 'length')"),
                            ([{"message": None}], "content null"),
                            ([{"message": {"content": 3}}], "content is int")):
        with pytest.raises(InvalidReplyError, match=reason.replace("(", r"\(").replace(")", r"\)")):
            reply_text(choices, "local")


class _BrokenBackend:
    kind, model, context_window, concurrency = "fake", "m", 100, 1

    def __init__(self, replies):
        self.replies = list(replies)

    def chat(self, messages, temperature, max_tokens, seed):
        return self.replies.pop(0), 1, 1

    def count_tokens(self, text):
        return len(text)


def test_a_backend_giving_no_text_is_a_failed_call(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    client = LLMClient(_BrokenBackend([None, "ok"]), cache)
    assert "not text" in client.complete(MESSAGES).error and len(cache) == 0
    assert client.complete(MESSAGES).text == "ok" and len(cache) == 1


# -- the packaged GGUF: a killed assembly's partial file goes away ---------------------------

@pytest.fixture()
def tiny_model(tmp_path, monkeypatch):
    """A two-part packaged "model" made of real bytes, registered for the test only."""
    import hashlib

    parts = [tmp_path / "part1.bin", tmp_path / "part2.bin"]
    parts[0].write_bytes(os.urandom(4096))
    parts[1].write_bytes(os.urandom(1024))
    blob = b"".join(p.read_bytes() for p in parts)
    spec = packaged.PackagedModel(name="tiny-test-model", parts=(), sha256=hashlib.sha256(
        blob).hexdigest(), size=len(blob), license="test", pip="nothing")
    monkeypatch.setitem(packaged.PACKAGED_MODELS, spec.name, spec)
    monkeypatch.setattr(packaged.PackagedModel, "part_paths", lambda self: parts)
    return spec, blob, tmp_path / "cache"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_stale_partial_gguf_is_removed_by_the_next_assembly(tiny_model):
    spec, blob, cache = tiny_model
    cache.mkdir()
    stale = cache / f"{spec.name}.partial-{_dead_pid()}"
    stale.write_bytes(blob[:1000])                    # a killed assembly's torn file
    path = packaged.resolve_gguf(spec.name, cache_dir=cache)
    assert path.read_bytes() == blob
    assert not stale.exists()
    assert sorted(p.name for p in cache.iterdir()) == [f"{spec.name}.gguf"]


def test_a_stale_partial_is_removed_even_when_the_model_is_already_assembled(tiny_model):
    spec, blob, cache = tiny_model
    packaged.resolve_gguf(spec.name, cache_dir=cache)
    stale = cache / f"{spec.name}.partial-{_dead_pid()}"
    stale.write_bytes(blob[:10])
    packaged.resolve_gguf(spec.name, cache_dir=cache)
    assert not stale.exists()


def test_a_live_assembly_partial_is_left_alone(tiny_model):
    spec, blob, cache = tiny_model
    cache.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live = cache / f"{spec.name}.partial-{sleeper.pid}"
        live.write_bytes(b"x")
        packaged.resolve_gguf(spec.name, cache_dir=cache)
        assert live.exists()                          # another process is still writing it
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_killed_assembly_leaves_a_partial_that_the_next_run_removes(tiny_model, tmp_path):
    """A real SIGKILL during assembly: the child blocks while writing, is killed, and leaves
    its ``.partial-<pid>``; the next resolve_gguf removes it and assembles a verified file."""
    spec, blob, cache = tiny_model
    parts = [tmp_path / "part1.bin", tmp_path / "part2.bin"]
    flag = tmp_path / "writing"
    script = f"""
import hashlib, pathlib, time
from kgp_kedro.llm import packaged
parts = [pathlib.Path(p) for p in {[str(p) for p in parts]!r}]
spec = packaged.PackagedModel(name={spec.name!r}, parts=(), sha256={spec.sha256!r},
                              size={spec.size}, license="t", pip="n")
packaged.PACKAGED_MODELS[spec.name] = spec
def the_parts(self):
    return parts
packaged.PackagedModel.part_paths = the_parts
real_read = pathlib.Path.read_bytes
def read_then_hang(self):
    data = real_read(self)
    if self.name == "part2.bin":
        pathlib.Path({str(flag)!r}).write_text("1")
        time.sleep(60)
    return data
pathlib.Path.read_bytes = read_then_hang
packaged.resolve_gguf(spec.name, cache_dir={str(cache)!r})
"""
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        for _ in range(300):
            if flag.exists():
                break
            assert child.poll() is None, "the assembly ended before it was killed"
            time.sleep(0.05)
        child.kill()
    finally:
        child.wait()
    partials = list(cache.glob(f"{spec.name}.partial-*"))
    assert [p.name for p in partials] == [f"{spec.name}.partial-{child.pid}"]
    assert partials[0].stat().st_size < spec.size     # torn (what reached the disk)
    path = packaged.resolve_gguf(spec.name, cache_dir=cache)
    assert path.read_bytes() == blob and not partials[0].exists()
