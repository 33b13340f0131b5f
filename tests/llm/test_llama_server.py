"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own server,
started here on 127.0.0.1 with the packaged model, answering a bundled question."""
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from kgp_kedro.evaluation.qa_metrics import f1_score
from kgp_kedro.llm import make_llm, resolve_gguf
from kgp_kedro.reading import parse_answer
from tests.conftest import MODEL_CACHE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def llama_server():
    model = resolve_gguf("qwen2.5-coder-0.5b-instruct-q4_k_m", cache_dir=MODEL_CACHE)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "1024", "--model_alias", "qwen-local"],
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


def test_openai_backend_reads_through_a_local_openai_compatible_server(llama_server,
                                                                      golden_reading):
    answers, messages = golden_reading
    llm = make_llm({"backend": "openai", "cache": None, "sampling": {"max_tokens": 16},
                    "openai": {"model": "qwen-local", "base_url": llama_server, "timeout": 120}})
    reply = llm.complete(messages)
    assert reply.error is None, reply.error
    assert reply.prompt_tokens > 50 and reply.completion_tokens > 0
    assert f1_score(parse_answer(reply.text), answers) >= 0.5, reply.text
