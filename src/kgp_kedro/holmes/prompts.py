"""The HOLMES reader prompt (Appendix A.4.5) and the reading of its reply: the final response
and, when it is None, the named entities whose facts are missing (§4.2.3, complementary fact
retrieval)."""
from __future__ import annotations

import re
from collections.abc import Sequence

from kgp_kedro.reading.prompts import parse_answer

# A.4.5, verbatim; {facts} is the pruned and verbalised hyper-relational KG
READER_PROMPT = """Question:{question}
Read the above question carefully, understand the answer category. Now, given you understand the question, use the following facts to answer the question. Please note that the meaning of facts is HEAVILY dependent on the context or the document from which it was extracted.
{facts}
(Note: the above set of facts can be noisy, so if ambiguous information is present then focus on the question and keywords in the question - {relations})
First, fetch the relevant set of facts from the above taking into consideration the context of the fact (DO NOT generate your facts), then by combining them answer the question - {question}.
Instruction: Give the answer in the following format -
Relevant facts: <facts (and context of those facts) relevant to the question>
Reasoning: <Here, give your thought process of how you use the named entities {entities}, relations - {relations} of the question and accordingly traverse the facts given above to arrive at your answer>
Final Response: <If all the necessary facts are available to answer the question, express it in 3-4 words - Else, say None>
Further query: <if 'Final Response' is None, then think step-by-step using the 'Reasoning' and other facts and state which named entity's direct information is missing>"""


def reader_prompt(question: str, facts: Sequence[str], entities: Sequence[str],
                  relations: Sequence[str]) -> str:
    """A.4.5 with the verbalised facts one per line, in the given (score) order."""
    return (READER_PROMPT.replace("{question}", question)
            .replace("{facts}", "\n".join(facts))
            .replace("{entities}", ", ".join(entities))
            .replace("{relations}", ", ".join(relations)))


_FIELD = re.compile(r"^[\s*#>-]*(relevant facts|reasoning|final (?:response|answer)|further "
                    r"query)\s*\**\s*[:：]\s*\**", re.IGNORECASE | re.MULTILINE)
_STATED = re.compile(r"\bthe answer is:?\s*(.+?)(?:\.\s|\.?$|\n)", re.IGNORECASE)
_NONE = {"none", "none.", "unknown", "no answer", "n/a", ""}


def _fields(reply: str) -> dict[str, str]:
    marks = list(_FIELD.finditer(reply))
    out = {}
    for m, nxt in zip(marks, [*marks[1:], None]):
        name = m.group(1).lower().replace("final answer", "final response")
        out.setdefault(name, reply[m.end():nxt.start() if nxt else len(reply)].strip())
    return out


def parse_reply(reply: str) -> tuple[str, str | None]:
    """``(answer, further query)``: the Final Response ("" when it says None) and, then, the
    text of the Further query (None when the answer was given). A reply without the format
    is read as a plain answer (its first line)."""
    fields = _fields(reply)
    if "final response" not in fields:   # a small reader may stop after its reasoning
        stated = _STATED.findall(reply)
        return (stated[-1].strip() if stated else parse_answer(reply)), None
    answer = parse_answer(fields["final response"])
    if answer.strip().strip("*").strip(".").lower() not in _NONE:
        return answer, None
    return "", fields.get("further query", "")


def quoted_names(text: str) -> list[str]:
    """The quoted names of a Further query ('"Snow Patrol"')."""
    quoted = re.findall(r"['\"“‘]([^'\"”’]{2,80})['\"”’]", text)
    return list(dict.fromkeys(q.strip() for q in quoted if q.strip()))
