"""The openai backend against a real OpenAI-compatible server on 127.0.0.1: retries on 429 and
5xx, bounded; failures reported, not raised; the on-disk cache; concurrent calls in order."""
import pytest

from kgp_kedro.llm import CallCache, LLMClient, make_llm
from kgp_kedro.llm.backends import OpenAIBackend
from tests.llm.fake_openai_server import FakeOpenAIServer

MESSAGES = [{"role": "user", "content": "What is the capital of France?"}]


def client_for(server, max_retries=3, cache=None, concurrency=4):
    backend = OpenAIBackend(model="test-model", base_url=server.base_url, api_key="k",
                            max_retries=max_retries, concurrency=concurrency, timeout=5)
    return LLMClient(backend, cache)


def test_retries_429_and_500_then_succeeds():
    with FakeOpenAIServer(failures=[429, 500]) as server:
        completion = client_for(server).complete(MESSAGES)
    assert completion.error is None and completion.text == "Paris"
    assert len(server.requests) == 3                        # two failures, one success
    assert completion.prompt_tokens == 6 and completion.completion_tokens == 1
    sent = server.requests[-1]
    assert sent["temperature"] == 0.0 and sent["seed"] == 0 and sent["messages"] == MESSAGES


def test_gives_up_after_max_retries_and_reports_the_failure():
    with FakeOpenAIServer(failures=[503] * 10) as server:
        completion = client_for(server, max_retries=2).complete(MESSAGES)
    assert len(server.requests) == 3                        # the first try and 2 retries
    assert completion.text == "" and "503" in completion.error


def test_a_second_run_makes_zero_calls(tmp_path):
    batch = [[{"role": "user", "content": f"question {i}"}] for i in range(5)]
    with FakeOpenAIServer(reply=lambda prompt: prompt.upper()) as server:
        first = client_for(server, cache=CallCache(tmp_path / "calls.sqlite")).complete_many(batch)
        assert len(server.requests) == 5
        rerun = client_for(server, cache=CallCache(tmp_path / "calls.sqlite"))
        second = rerun.complete_many(batch)
        assert len(server.requests) == 5 and rerun.calls == 0 and rerun.requests == 5
    assert [c.text for c in first] == [f"QUESTION {i}" for i in range(5)]  # in order
    assert [c.text for c in second] == [c.text for c in first]
    assert all(c.cached for c in second) and not any(c.cached for c in first)


def test_failures_are_not_cached(tmp_path):
    cache = CallCache(tmp_path / "calls.sqlite")
    with FakeOpenAIServer(failures=[500, 500]) as server:
        assert client_for(server, max_retries=1, cache=cache).complete(MESSAGES).error
        assert len(cache) == 0
        assert client_for(server, cache=cache).complete(MESSAGES).text == "Paris"
    assert len(cache) == 1


def test_make_llm_builds_the_configured_backend(tmp_path, monkeypatch):
    monkeypatch.setenv("KGP_TEST_KEY", "secret")
    with FakeOpenAIServer() as server:
        llm = make_llm({"backend": "openai", "cache": str(tmp_path / "c.sqlite"),
                        "sampling": {"max_tokens": 8},
                        "openai": {"model": "m", "base_url": server.base_url,
                                   "api_key_env": "KGP_TEST_KEY"}})
        assert llm.complete(MESSAGES).text == "Paris"
    assert server.requests[0]["max_tokens"] == 8 and llm.name == "openai:m"
    with pytest.raises(ValueError, match="llm.backend"):
        make_llm({"backend": "nope"})


def test_openai_without_a_key_says_how_to_set_one(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        OpenAIBackend(model="gpt-3.5-turbo")
