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


def ask_messages(question: str, quotes: Sequence[str], instruction: str) -> list[dict]:
    """The instruction, then the quotes numbered from 1 and the question."""
    listed = "\n".join(f"[{n}] {text}" for n, text in enumerate(quotes, start=1))
    return [{"role": "system", "content": instruction},
            {"role": "user", "content": f"Quotes:\n{listed}\n\nQuestion: {question}\n"
                                        "Answer with citations:"}]
