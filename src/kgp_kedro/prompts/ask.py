"""The analyst prompt of ``kedro run --env ask`` (this project's own): numbered quotes of the
user's documents, then the question; the reply cites quotes as ``[n]``, EWEK-QA's composer's
citation format (:mod:`.ewek`), in one or two sentences instead of a short phrase. The
instruction holds no example sentence of content: a small reader returned the earlier one's
("The plant opened in 1998 [2].") as its answer. It names the reply for a question the quotes
do not answer (:data:`NOT_ANSWERED`)."""
from __future__ import annotations

from collections.abc import Sequence

NOT_ANSWERED = "Not found in the documents."
ANALYST_INSTRUCTION = ("You answer questions about the user's documents using only the "
                       "numbered quotes from them. A quote may be a table: read the row and "
                       "the column the question asks about. Answer in one or two sentences "
                       "of your own, and after each fact put the number of the quote it comes "
                       "from in square brackets. When the answer needs two quotes, cite both. "
                       f"If the quotes do not answer the question, reply: {NOT_ANSWERED}")
# evidence first (ask.evidence_first, kgp_kedro.asking.evidence): the words that answer copied
# from the quotes, each on a line opening with its quote's number, then the answer
EVIDENCE_INSTRUCTION = ("You answer questions about the user's documents using only the "
                        "numbered quotes from them. A quote may be a table: read the row and "
                        "the column the question asks about. First copy, exactly as it is "
                        "written, the one sentence or table row of the quotes that answers the "
                        "question, after the number of its quote in square brackets; when the "
                        "answer needs two quotes, copy one from each, on lines of their own. "
                        "Then write \"Answer:\" and answer in one sentence of your own, putting "
                        "after each fact the number of the quote it comes from in square "
                        "brackets. If the quotes do not answer the question, reply only: "
                        f"{NOT_ANSWERED}")
ANSWER_CUE = "Answer with citations:"
EVIDENCE_CUE = "Copy the sentence that answers it, then the answer:"


def ask_messages(question: str, quotes: Sequence[str], instruction: str,
                 cue: str = ANSWER_CUE) -> list[dict]:
    """The instruction, then the quotes numbered from 1, the question and the ``cue``."""
    listed = "\n".join(f"[{n}] {text}" for n, text in enumerate(quotes, start=1))
    return [{"role": "system", "content": instruction},
            {"role": "user", "content": f"Quotes:\n{listed}\n\nQuestion: {question}\n{cue}"}]
