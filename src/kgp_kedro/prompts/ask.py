"""The analyst prompt of ``kedro run --env ask`` (this project's own): numbered quotes of the
user's documents, then the question; the reply cites quotes as ``[n]``, EWEK-QA's composer's
citation format (:mod:`.ewek`), in one or two sentences instead of a short phrase. The quotes
are labelled ``[n]`` (EWEK-QA's ``n:``): the packaged 0.5B reader then cites; with ``n:`` it
mostly did not (two bundled 2Wiki questions, structural benchmark files)."""
from __future__ import annotations

from collections.abc import Sequence

ANALYST_INSTRUCTION = ("You answer questions about the user's documents from numbered quotes "
                       "of them. Write one or two sentences of your own (do not list the "
                       "quotes) and cite the quote each fact comes from as [n], e.g. The "
                       "plant opened in 1998 [2]. If the quotes do not answer the question, "
                       "say so.")


def ask_messages(question: str, quotes: Sequence[str], instruction: str) -> list[dict]:
    """The instruction, then the quotes numbered from 1 and the question."""
    listed = "\n".join(f"[{n}] {text}" for n, text in enumerate(quotes, start=1))
    return [{"role": "system", "content": instruction},
            {"role": "user", "content": f"Quotes:\n{listed}\n\nQuestion: {question}\n"
                                        "Answer with citations:"}]
