"""One LLM interface (messages in, text out, with token counts and latency) used by the reader,
the judge, the ``chat`` traversal agent and IRCoT. Backends: ``openai`` (any OpenAI-compatible
server) and ``local`` (a GGUF model run in-process with llama-cpp-python)."""
from kgp_kedro.llm.backends import InvalidReplyError
from kgp_kedro.llm.cache import CallCache
from kgp_kedro.llm.client import Completion, LLMClient, MissingReplyError, make_llm
from kgp_kedro.llm.packaged import PACKAGED_MODELS, resolve_gguf

__all__ = ["CallCache", "Completion", "InvalidReplyError", "LLMClient", "make_llm", "MissingReplyError", "PACKAGED_MODELS", "resolve_gguf"]
