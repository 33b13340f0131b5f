"""Graph traversal agents: rank candidate passages given the question and the path so far
(the function f, g, φ of Eq. 1, paper §4)."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Protocol

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer

from kgp_kedro.models import SentenceEncoder
from kgp_kedro.models.devices import resolve_device
from kgp_kedro.retrieval.dense import inner_product_scores

logger = logging.getLogger(__name__)

NEXT_EVIDENCE_INSTRUCTION = ("What evidence do we need to answer the question given the current "
                             "evidence?")


class TraversalAgent(Protocol):
    """Scores candidates (higher is better) for the next step of a reasoning path."""

    name: str
    calls: int   # model calls made so far (generation or encoding batches)

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        ...


def text_similarity(query: str, candidates: Sequence[str]) -> np.ndarray:
    """TF-IDF cosine similarity of each candidate to ``query`` (φ for generated evidence)."""
    vectorizer = TfidfVectorizer()
    try:
        matrix = vectorizer.fit_transform([query, *candidates])
    except ValueError:  # no word at all
        return np.zeros(len(candidates))
    return (matrix[1:] @ matrix[0].T).toarray().ravel()


class TfidfAgent:
    """KGP-TF-IDF (§8.2): candidates ranked by TF-IDF similarity to the question alone."""

    name = "tfidf"

    def __init__(self) -> None:
        self.calls = 0

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        return text_similarity(question, candidates)


class RandomAgent:
    """KGP-Random (Table 2): candidates in a seeded random order."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self.calls = 0
        self._rng = np.random.default_rng(seed)

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        return self._rng.random(len(candidates))


class EncoderAgent:
    """KGP-MDR style (Eq. 1 with encoders): embed question ⊕ path and the candidates, score by
    inner product. Off-the-shelf MiniLM by default; a trained MDR encoder is a model path."""

    name = "encoder"

    def __init__(self, encoder: SentenceEncoder | None = None, **encoder_options) -> None:
        self.encoder = encoder or SentenceEncoder(**encoder_options)
        self.calls = 0
        self._cache: dict[str, np.ndarray] = {}

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Reuse passage embeddings computed elsewhere (same encoder) instead of re-encoding."""
        self._cache.update(zip(texts, vectors))

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self.calls += 1
            self._cache.update(zip(missing, self.encoder.encode(missing)))
        return np.stack([self._cache[t] for t in texts])

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        query = self._embed([" ".join([question, *path])])
        return inner_product_scores(query, self._embed(candidates), self.encoder.device)[0]


class GenerativeAgent:
    """An agent that generates the next evidence from question ⊕ path and ranks the candidates
    by their text similarity to it (Eq. 1 with g = identity, φ = TF-IDF cosine)."""

    name = "generative"

    def generate(self, question: str, path: Sequence[str]) -> str:
        raise NotImplementedError

    def score(self, question: str, path: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        return text_similarity(self.generate(question, path), candidates)


class Seq2SeqAgent(GenerativeAgent):
    """KGP-T5: a seq2seq checkpoint (the instruction prefixed to the input, §8.2)."""

    name = "seq2seq"

    def __init__(self, model_path: str, device: str = "auto", max_new_tokens: int = 64,
                 instruction: str = NEXT_EVIDENCE_INSTRUCTION) -> None:
        from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

        self.device = resolve_device(device)
        self.tokenizer = AutoTokenizer.from_pretrained(model_path)
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_path).to(self.device).eval()
        self.max_new_tokens = max_new_tokens
        self.instruction = instruction
        self.calls = 0

    def generate(self, question: str, path: Sequence[str]) -> str:
        import torch

        prompt = f"{self.instruction} question: {question} evidence: {' '.join(path)}"
        inputs = self.tokenizer(prompt, return_tensors="pt", truncation=True,
                                max_length=512).to(self.device)
        with torch.no_grad():
            output = self.model.generate(**inputs, max_new_tokens=self.max_new_tokens,
                                         do_sample=False)
        self.calls += 1
        return self.tokenizer.decode(output[0], skip_special_tokens=True)


class ChatAgent(GenerativeAgent):
    """KGP-ChatGPT / KGP-LLaMA: an instruction-following LLM (through the project's LLM
    interface) asked the paper's instruction in the Listing 1 format."""

    name = "chat"

    def __init__(self, llm, instruction: str = NEXT_EVIDENCE_INSTRUCTION,
                 max_tokens: int = 64) -> None:
        self.llm, self.instruction, self.max_tokens = llm, instruction, max_tokens
        self.calls = 0

    def generate(self, question: str, path: Sequence[str]) -> str:
        prompt = (f"Instruction: {self.instruction}\n\nInput: {' '.join([question, *path])}"
                  "\n\nOutput:")
        self.calls += 1
        reply = self.llm.complete([{"role": "user", "content": prompt}], self.max_tokens)
        return reply.text
