"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own server
(the session's ``llama_server``, started on 127.0.0.1 with the packaged model), answering a
bundled question."""
import pytest

from kgp_kedro.evaluation.qa_metrics import f1_score
from kgp_kedro.llm import make_llm
from kgp_kedro.reading import parse_answer

pytestmark = pytest.mark.slow


def test_openai_backend_reads_through_a_local_openai_compatible_server(llama_server,
                                                                      golden_reading):
    answers, messages = golden_reading
    llm = make_llm({"backend": "openai", "cache": None, "sampling": {"max_tokens": 16},
                    "openai": {"model": "qwen-local", "base_url": llama_server, "timeout": 120}})
    reply = llm.complete(messages)
    assert reply.error is None, reply.error
    assert reply.prompt_tokens > 50 and reply.completion_tokens > 0
    assert f1_score(parse_answer(reply.text), answers) >= 0.5, reply.text
