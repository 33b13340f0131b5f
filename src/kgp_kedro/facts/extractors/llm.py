"""The paper's extractor: the LLM reads a paragraph and lists its triples (HOLMES §4.2.1, the
prompt and few-shot examples of Appendix A.4.4), through the project's LLM interface (any
OpenAI-compatible server, or the embedded model)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.facts.base import EXTRACTORS, FactExtractor, HyperTriple

# Appendix A.4.4, verbatim (the second example's closing quote restored)
TRIPLE_PROMPT = """Task: Comprehensively extract ALL the triples (subject, relation, object) from below given paragraph. Ensure that the subject and objects in the triples are named entities (name of person, organization, dates etc) and not multiple in number. You will be HEAVILY PENALIZED if you violate this constraint.

Examples: Use the following examples to understand the task better.

Paragraph: William Rast is an American clothing line founded by Justin Timberlake and Trace Ayala. It is most known for their premium jeans. On October 17, 2006, Justin Timberlake and Trace Ayala put on their first fashion show to launch their new William Rast clothing line. The label also produces other clothing items such as jackets and tops. The company started first as a denim line, later evolving into a men's and women's clothing line.
Triples:
i. subject: William Rast, relation: clothing line, object: American
ii. subject: William Rast, relation: founded by, object: Justin Timberlake
iii. subject: William Rast, relation: founded by, object: Trace Ayala
iv. subject: William Rast, relation: known for, object: premium jeans
v. subject: William Rast, relation: launched on , object: October 17, 2006
vi. subject: Justin Timberlake, relation: first fashion show, object: October 17, 2006
vii. subject: Trace Ayala, relation: first fashion show, object: October 17, 2006
viii. subject: William Rast, relation: produces, object: jackets
ix. subject: William Rast, relation: produces, object: tops
x. subject: William Rast, relation: started as, object: denim line
xi. subject: William Rast, relation: evolved into, object: men's and women's clothing line

Paragraph: The Glennwanis Hotel is a historic hotel in Glennville, Georgia, Tattnall County, Georgia, built on the site of the Hughes Hotel. The hotel is located at 209-215 East Barnard Street. The old Hughes Hotel was built out of Georgia pine circa 1905 and burned in 1920. The Glennwanis was built in brick in 1926. The local Kiwanis club led the effort to get the replacement hotel built, and organized a Glennville Hotel Company with directors being local business leaders. The wife of a local doctor won a naming contest with the name "Glennwanis Hotel", a suggestion combining "Glennville" and "Kiwanis".
Triples:
i. subject: Glennwanis Hotel, relation: is located in, object: 209-215 East Barnard Street, Glennville, Tattnall County, Georgia
ii. subject: Glennwanis Hotel, relation: was built on the site of, object: Hughes Hotel
iii. subject: Hughes Hotel, relation: was built out of, object: Georgia pine
iv. subject: Hughes Hotel, relation: was built circa, object: 1905
v. subject: Hughes Hotel, relation: burned in, object: 1920
vi. subject: Glennwanis Hotel, relation: was re-built in, object: 1926
vii. subject: Glennwanis Hotel, relation: was re-built using, object: brick
viii. subject: Kiwanis club, relation: led the effort to re-build, object: Glennwanis Hotel
ix. subject: Kiwanis club, relation: organized, object: Glennville Hotel Company
x. subject: Glennville Hotel Company, relation: directors, object: local business leaders
xi. subject: Glennwanis Hotel, relation: combines, object: "Glennville" and "Kiwanis"

Paragraph: {paragraph}
Triples:"""

_TRIPLE = re.compile(r"subject:\s*(?P<s>.+?),\s*relation:\s*(?P<r>.+?)\s*,\s*object:\s*(?P<o>.+)",
                     re.IGNORECASE)


def triple_prompt(paragraph: str) -> str:
    return TRIPLE_PROMPT.replace("{paragraph}", paragraph)


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
