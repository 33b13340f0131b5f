"""The reading of the HOLMES reader's reply (Appendix A.4.5's format; the prompt is
:func:`kgp_kedro.prompts.holmes.reader_prompt`): the final response and, when it is None, the
named entities whose facts are missing (§4.2.3, complementary fact retrieval)."""
from __future__ import annotations

import re

from kgp_kedro.reading.contexts import parse_answer


_FIELD = re.compile(r"^[\s*#>-]*(relevant facts|reasoning|final (?:response|answer)|further "
                    r"query)\s*\**\s*[:：]\s*\**", re.IGNORECASE | re.MULTILINE)
_STATED = re.compile(r"\bthe answer is:?\s*(.+?)(?:\.\s|\.?$|\n)", re.IGNORECASE)
_NONE = {"none", "none.", "unknown", "no answer", "n/a", ""}
# between a question's reader replies in its ``raw_response`` (the first call's, then the
# call after complementary fact retrieval); the answer is read from the last
CALLS_SEPARATOR = "\n=====\n"


def reply_fields(reply: str) -> dict[str, str]:
    """The A.4.5 fields a reply writes (``relevant facts``, ``reasoning``, ``final response``,
    ``further query``; "Final Answer" read as the final response), each name's first text."""
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
    fields = reply_fields(reply)
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
