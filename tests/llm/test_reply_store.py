"""The committed reply store (results/llm): sharded JSON lines, atomic writes that a killed
writer cannot tear, duplicate writes that change nothing, a corrupt line named by file and
line, and a resumed run that sends only the calls the store lacks."""
import json
import multiprocessing
import os
import signal

import pytest

from kgp_kedro.llm import CallCache, LLMClient, MissingReplyError, make_llm
from kgp_kedro.llm.cache import call_key
from kgp_kedro.llm.store import CorruptStoreError, ReplyStore

KEY = call_key("local", "m", [{"role": "user", "content": "q"}], {"temperature": 0.0})
REPLY = {"text": "Paris", "prompt_tokens": 6, "completion_tokens": 1, "latency_ms": 12.5,
         "cached": False, "error": None}


def test_a_reply_is_one_line_in_its_keys_shard_and_a_new_store_reads_it(tmp_path):
    ReplyStore(tmp_path).put(KEY, REPLY)
    shard = tmp_path / f"{KEY[:2]}.jsonl"
    assert [json.loads(line) for line in shard.read_text().splitlines()] == [
        {"key": KEY, "reply": REPLY}]
    again = ReplyStore(tmp_path)
    assert again.get(KEY) == REPLY and again.get("0" * 64) is None and len(again) == 1


def test_a_duplicate_write_is_a_no_op(tmp_path):
    store = ReplyStore(tmp_path)
    store.put(KEY, REPLY)
    before = (tmp_path / f"{KEY[:2]}.jsonl").read_bytes()
    store.put(KEY, {**REPLY, "text": "Lyon"})            # same key, another record
    ReplyStore(tmp_path).put(KEY, REPLY)                 # another store on the same files
    assert (tmp_path / f"{KEY[:2]}.jsonl").read_bytes() == before
    assert ReplyStore(tmp_path).get(KEY)["text"] == "Paris"


def test_one_store_copies_into_another_key_by_key(tmp_path):
    """Two machines' stores merge by copying the keys one lacks (reading a store's keys
    holds no lock its ``get`` then waits on)."""
    other = call_key("local", "m", [{"role": "user", "content": "r"}], {"temperature": 0.0})
    here, there = ReplyStore(tmp_path / "a"), ReplyStore(tmp_path / "b")
    here.put(KEY, REPLY)
    there.put(other, {**REPLY, "text": "Lyon"})
    for key in there.keys():
        here.put(key, there.get(key))
    assert sorted(here.keys()) == sorted([KEY, other]) and here.get(other)["text"] == "Lyon"


def _killed_while_writing(root: str, key: str) -> None:
    """Child process: add one reply, and die by SIGKILL once its bytes are written but before
    the shard is replaced (the worst moment for a torn shard)."""
    os.fsync = lambda fd: os.kill(os.getpid(), signal.SIGKILL)
    ReplyStore(root).put(key, {**REPLY, "text": "x" * 100_000})


def test_a_writer_killed_mid_write_leaves_the_shard_whole(tmp_path):
    store = ReplyStore(tmp_path)
    store.put(KEY, REPLY)
    other = KEY[:2] + "f" * 62                           # same shard, another key
    child = multiprocessing.get_context("fork").Process(target=_killed_while_writing,
                                                         args=(str(tmp_path), other))
    child.start()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    reread = ReplyStore(tmp_path)
    assert reread.get(KEY) == REPLY and reread.get(other) is None
    assert (tmp_path / f"{KEY[:2]}.jsonl").read_text().count("\n") == 1
    reread.put(other, REPLY)                             # the next writer goes on
    assert ReplyStore(tmp_path).get(other) == REPLY


def test_a_corrupt_line_is_named_by_file_and_line(tmp_path):
    ReplyStore(tmp_path).put(KEY, REPLY)
    shard = tmp_path / f"{KEY[:2]}.jsonl"
    shard.write_text(shard.read_text() + "<<<<<<< HEAD\n")
    with pytest.raises(CorruptStoreError, match=rf"{shard.name}:2: not a stored reply"):
        ReplyStore(tmp_path).get(KEY)
    shard.write_text(json.dumps({"key": "ff" + KEY[2:], "reply": REPLY}) + "\n")
    with pytest.raises(CorruptStoreError, match=rf"{shard.name}:1: .*not of this shard"):
        ReplyStore(tmp_path).get(KEY)


def test_a_resumed_run_sends_only_the_calls_the_store_lacks(tmp_path, local_llm):
    """The embedded model behind two clients on one store: the second run asks five
    questions, two of which the first run answered; the model gets three calls."""
    def client():
        return LLMClient(local_llm.backend, None, max_tokens=4, store=ReplyStore(tmp_path))

    asked = [[{"role": "user", "content": f"Name the capital of country number {i}."}]
             for i in range(5)]
    first = client()
    done = first.complete_many(asked[:2])
    assert first.calls == 2 and not any(r.cached for r in done)
    resumed = client()
    replies = resumed.complete_many(asked)
    assert resumed.calls == 3 and resumed.requests == 5
    assert [r.cached for r in replies] == [True, True, False, False, False]
    assert [r.text for r in replies[:2]] == [r.text for r in done]
    assert len(ReplyStore(tmp_path)) == 5


def test_a_reply_found_only_in_the_call_cache_is_copied_into_the_store(tmp_path, local_llm):
    cache = CallCache(tmp_path / "calls.sqlite")
    messages = [{"role": "user", "content": "Say yes."}]
    LLMClient(local_llm.backend, cache, max_tokens=2).complete(messages)
    store = ReplyStore(tmp_path / "store")
    client = LLMClient(local_llm.backend, cache, max_tokens=2, store=store)
    assert client.complete(messages).cached and client.calls == 0
    assert len(ReplyStore(tmp_path / "store")) == 1


def test_a_store_only_client_answers_from_the_store_and_names_a_missing_call(tmp_path):
    """``llm.store_only``: what the store holds comes back with no model call; a call it
    lacks raises, naming the store and the call's key, and never reaches the backend (an
    OpenAI-compatible address nothing listens on: a call sent there would come back failed,
    not raise)."""
    replay = make_llm({"backend": "openai", "store": str(tmp_path), "store_only": True,
                       "cache": None, "sampling": {"max_tokens": 2},
                       "openai": {"model": "m", "base_url": "http://127.0.0.1:9/v1",
                                  "max_retries": 0, "timeout": 1}})
    answered = [{"role": "user", "content": "Say yes."}]
    missing = [{"role": "user", "content": "Say no."}]
    ReplyStore(tmp_path).put(
        call_key(replay.backend.kind, replay.backend.model, answered, replay.sampling), REPLY)
    assert replay.store_only and replay.complete(answered).text == REPLY["text"]
    key = call_key(replay.backend.kind, replay.backend.model, missing, replay.sampling)
    with pytest.raises(MissingReplyError, match=rf"{tmp_path}.*{key}.*Say no"):
        replay.complete(missing)
    assert replay.calls == 0 and len(ReplyStore(tmp_path)) == 1


def test_a_store_only_client_reads_the_store_alone_not_the_call_cache(tmp_path):
    """A reply this machine's call cache holds but the store lacks stops a store-only run
    (the store is proved complete, not the cache), and nothing is copied into the store; a
    client that is not store-only answers it from the cache and copies it."""
    params = {"backend": "openai", "store": str(tmp_path / "store"),
              "cache": str(tmp_path / "calls.sqlite"), "sampling": {"max_tokens": 2},
              "openai": {"model": "m", "base_url": "http://127.0.0.1:9/v1", "max_retries": 0,
                         "timeout": 1}}
    replay = make_llm({**params, "store_only": True})
    messages = [{"role": "user", "content": "Say yes."}]
    key = call_key(replay.backend.kind, replay.backend.model, messages, replay.sampling)
    replay.cache.put(key, REPLY)
    with pytest.raises(MissingReplyError, match=key):
        replay.complete(messages)
    assert replay.calls == 0 and len(ReplyStore(tmp_path / "store")) == 0
    resumed = make_llm(params)
    assert resumed.complete(messages).text == REPLY["text"] and resumed.calls == 0
    assert ReplyStore(tmp_path / "store").get(key) == REPLY

