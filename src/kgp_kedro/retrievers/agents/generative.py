"""Generative agents: KGP-T5 (a local seq2seq or causal generator, fine-tuned by the train
stage) and KGP-ChatGPT/LLaMA (an instruction LLM through the project's LLM interface), both
asked the paper's instruction (§8.2)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from kgp_kedro.retrievers.agents.base import AGENTS, GenerativeAgent
from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.models.generators import PACKAGED_GENERATOR, load_generator
from kgp_kedro.prompts.kgp import NEXT_EVIDENCE_INSTRUCTION, next_evidence_prompt
from kgp_kedro.retrievers.base import ModelOption, Requirements, Resources, require_resolved


@AGENTS.register("generator")
class GeneratorAgent(ModelOption, GenerativeAgent):
    """KGP-T5: a local generator (seq2seq or causal, :mod:`kgp_kedro.models.generators`)
    generates the next evidence from the question and the path's passages; the candidates are
    ranked by their TF-IDF cosine to the generation (Eq. 1: g = identity, φ = textual
    similarity). ``model`` is the packaged SmolLM2-135M-Instruct by default (not fine-tuned),
    ``trained:<name>`` the train stage's fine-tuned one (``train.generators``), or any local
    checkpoint or hub name. :meth:`generate_many` generates a hop's steps of every question
    ``batch_size`` at a time, one model call each. ``questions: qa`` retrieves for the QA
    questions only (those the reader answers), as the LLM methods do: a question's generations
    take seconds on a CPU, so a benchmark that reads a few questions of a large sample need not
    traverse for all of them; ``all`` (the default) retrieves for every question, as the
    retrieval tables (Table 2) need."""

    class Params(Params):
        model: str = PACKAGED_GENERATOR   # trained:<name>, a local checkpoint, a hub name
        device: str = "auto"
        batch_size: PosInt = 32           # generations per model call
        max_input_tokens: PosInt = 256    # prompt tokens kept (question and path)
        max_new_tokens: PosInt = 32       # generated tokens (the next evidence's opening)
        instruction: str = NEXT_EVIDENCE_INSTRUCTION
        questions: Literal["all", "qa"] = "all"   # qa: the QA questions only

    @classmethod
    def requirements(cls, params: Params) -> Requirements:
        return super().requirements(params) | Requirements(
            qa_questions_only=params.questions == "qa")

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        require_resolved(params.model)
        self.generator = load_generator(params.model, params.device)

    def generate(self, question: str, path_texts: Sequence[str]) -> str | None:
        return self.generate_many([(question, path_texts)])[0]

    def generate_many(self, inputs: Sequence[tuple[str, Sequence[str]]]) -> list[str | None]:
        p = self.params
        prompts = [self.generator.prompt(p.instruction, q, texts) for q, texts in inputs]
        self.calls += math.ceil(len(prompts) / p.batch_size)   # one model call a batch
        return self.generator.generate_batches(prompts, p.batch_size, p.max_input_tokens,
                                               p.max_new_tokens, "generator agent")


@AGENTS.register("chat")
class ChatAgent(GenerativeAgent):
    """KGP-ChatGPT / KGP-LLaMA: the LLM of parameters_llm.yml, asked the paper's instruction
    in the Listing 1 format."""

    class Params(Params):
        max_tokens: PosInt = 64
        instruction: str = NEXT_EVIDENCE_INSTRUCTION

    needs = Requirements(llm=True)

    def _messages(self, question: str, path_texts: Sequence[str]) -> list[dict[str, str]]:
        return [{"role": "user",
                 "content": next_evidence_prompt(self.params.instruction, question, path_texts)}]

    def generate(self, question: str, path_texts: Sequence[str]) -> str | None:
        return self.generate_many([(question, path_texts)])[0]

    def generate_many(self, inputs: Sequence[tuple[str, Sequence[str]]]) -> list[str | None]:
        """The replies, ``llm.concurrency`` calls at a time (a batched traversal sends a hop's
        steps of every question together); None where the call failed."""
        self.calls += len(inputs)
        completions = self.resources.llm.complete_many(
            [self._messages(q, texts) for q, texts in inputs], self.params.max_tokens,
            desc="chat agent")
        return [None if c.error else c.text for c in completions]
