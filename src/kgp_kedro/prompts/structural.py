"""The structural router's prompt (this project's, no paper: the LLM router of
:mod:`kgp_kedro.retrievers.structural`, which sorts structural from content questions over a
folder of documents). Byte-identical to what the project has always sent."""
from __future__ import annotations

import json


# -- the router: two classes and the reply's JSON schema, generic examples as chat turns
ROUTER_SYSTEM = (
    "You sort questions asked over a folder of documents (PDF, DOCX, HTML files) into two "
    "classes.\n"
    "STRUCTURAL: the question points at a part of a document by its place or label: a page "
    "(\"page 4\", \"the first page\", \"the last page\"), a table (\"Table 2\", \"the "
    "second table\", \"the table on page 3\") or a section named in quotes (the section "
    "\"Results\").\n"
    "CONTENT: any other question, about facts, people, places or dates, even when a word such "
    "as table, page or section is used in another sense (a table tennis player, a front page "
    "story).\n"
    "Reply with one JSON object only: {\"structural\": true or false, \"page\": the page "
    "number or null, \"table\": the table number or null, \"heading\": the section title "
    "or null}. A number is an integer: 1 for first, 2 for second, -1 for last; \"table\" is "
    "0 for the table(s) of a page when no table number is given.")


# generic examples (documents and questions of no benchmark), one per kind of key and one of
# each trap for a content question
ROUTER_EXAMPLES = (
    ("What does page 7 of annual_report.pdf say about staff numbers?",
     {"structural": True, "page": 7, "table": None, "heading": None}),
    ("In the third table of survey.docx, which region has the most replies?",
     {"structural": True, "page": None, "table": 3, "heading": None}),
    ("What do the tables on page 2 of budget.html list?",
     {"structural": True, "page": 2, "table": 0, "heading": None}),
    ("Which river flows through the capital of Peru?",
     {"structural": False, "page": None, "table": None, "heading": None}),
    ("Who won the table tennis final at the 1988 Olympics?",
     {"structural": False, "page": None, "table": None, "heading": None}),
)


def router_messages(question: str) -> list[dict[str, str]]:
    """The LLM router's chat: the two classes and the reply's JSON schema, the generic
    examples as turns, then the question."""
    messages = [{"role": "system", "content": ROUTER_SYSTEM}]
    for example, reply in ROUTER_EXAMPLES:
        messages += [{"role": "user", "content": f"Question: {example}"},
                     {"role": "assistant", "content": json.dumps(reply)}]
    return [*messages, {"role": "user", "content": f"Question: {question}"}]
