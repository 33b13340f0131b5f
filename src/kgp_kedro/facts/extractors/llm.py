"""The paper's extractor: the LLM reads a paragraph and lists its triples (HOLMES §4.2.1, the
prompt and few-shot examples of Appendix A.4.4), through the project's LLM interface (any
OpenAI-compatible server, or the embedded model)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.facts.base import EXTRACTORS, FactExtractor, HyperTriple
from kgp_kedro.prompts.holmes import TRIPLE_PROMPT, triple_prompt


_TRIPLE = re.compile(r"subject:\s*(?P<s>.+?),\s*relation:\s*(?P<r>.+?)\s*,\s*object:\s*(?P<o>.+)",
                     re.IGNORECASE)


def parse_triples(reply: str) -> list[tuple[str, str, str]]:
    """``(subject, relation, object)`` of each ``subject: S, relation: R, object: O`` line of a
    reply (numbering and bullets ignored; other lines skipped)."""
    out = []
    for line in reply.splitlines():
        match = _TRIPLE.search(line)
        if match:
            s, r, o = (match[g].strip().strip("*").strip() for g in ("s", "r", "o"))
            if s and r and o:
                out.append((s, r, o))
    return list(dict.fromkeys(out))


@EXTRACTORS.register("llm")
class LLMExtractor(FactExtractor):
    """Triples from the LLM (``llm``: an :class:`~kgp_kedro.llm.LLMClient`) with the paper's
    prompt; types are left unknown (the paper types relations in the schema, not in the KG)."""

    needs_llm = True

    class Params(Params):
        max_tokens: PosInt = 512   # the reply: a paragraph's triples

    def __init__(self, params: Params | None = None, llm: Any = None, **resources: Any) -> None:
        super().__init__(params)
        if llm is None:
            raise ValueError("the llm fact extractor needs an LLM client (llm=...)")
        self.llm = llm

    def identity(self) -> dict[str, Any]:
        from kgp_kedro.facts.store import code_digest

        return {"extractor": "llm", "llm": self.llm.name, "sampling": self.llm.sampling,
                **self.params.model_dump(), "prompt": code_digest(triple_prompt, parse_triples),
                "template": TRIPLE_PROMPT}

    def extract(self, doc_title: str, text: str) -> list[HyperTriple]:
        return self.extract_many([(doc_title, text)])[0]

    def extract_many(self, documents: Sequence[tuple[str, str]]) -> list[list[HyperTriple]]:
        replies = self.llm.complete_many(
            [[{"role": "user", "content": triple_prompt(text)}] for _, text in documents],
            max_tokens=self.params.max_tokens, desc="llm triples")
        return [[HyperTriple(s, r, o, {"source": title}, "") for s, r, o in parse_triples(c.text)]
                for (title, _), c in zip(documents, replies)]
