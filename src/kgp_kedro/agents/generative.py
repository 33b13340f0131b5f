"""Generative agents: KGP-T5 (a seq2seq checkpoint) and KGP-ChatGPT/LLaMA (an instruction
LLM through the project's LLM interface), both asked the paper's instruction (§8.2)."""
from __future__ import annotations

from collections.abc import Sequence

from kgp_kedro.agents.base import AGENTS, GenerativeAgent
from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.models import load_seq2seq
from kgp_kedro.prompts.kgp import NEXT_EVIDENCE_INSTRUCTION, next_evidence_prompt, seq2seq_input
from kgp_kedro.retrievers.base import Requirements, Resources, SkippedMethod


@AGENTS.register("seq2seq")
class Seq2SeqAgent(GenerativeAgent):
    """KGP-T5: a local seq2seq checkpoint, the instruction prefixed to its input. No T5 weights
    ship on PyPI, so the method is skipped (with a warning) until ``model_path`` is set."""

    class Params(Params):
        model_path: str | None = None
        device: str = "auto"
        max_new_tokens: PosInt = 64
        max_length: PosInt = 512      # input tokens kept
        instruction: str = NEXT_EVIDENCE_INSTRUCTION

    def __init__(self, params: Params, resources: Resources) -> None:
        super().__init__(params, resources)
        if not params.model_path:
            raise SkippedMethod("the seq2seq agent needs agent.model_path: a local Hugging Face "
                                "seq2seq checkpoint (e.g. a fine-tuned T5)")
        self.tokenizer, self.model, self.device = load_seq2seq(params.model_path, params.device)

    def generate(self, question: str, path_texts: Sequence[str]) -> str | None:
        import torch

        p = self.params
        prompt = seq2seq_input(p.instruction, question, path_texts)
        inputs = self.tokenizer(prompt, return_tensors="pt", truncation=True,
                                max_length=p.max_length).to(self.device)
        with torch.no_grad():
            output = self.model.generate(**inputs, max_new_tokens=p.max_new_tokens,
                                         do_sample=False)
        self.calls += 1
        return self.tokenizer.decode(output[0], skip_special_tokens=True)


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
