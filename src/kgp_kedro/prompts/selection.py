"""The reader's context-selection prompt (this project's, no paper: ``read.select: reader``
of :mod:`kgp_kedro.reading.selection`, which asks the reader which of a prompt's contexts are
needed before the answering call): KGP's Listing 3 layout, the contexts' numbers asked for
instead of the answer."""
from __future__ import annotations

from collections.abc import Sequence

from kgp_kedro.prompts.kgp import SEPARATOR

SELECT_INSTRUCTION = ("Reply with the numbers of the contexts needed to answer the question "
                      "only, separated by commas (for example: 1, 3).")


def select_prompt(question: str, contexts: Sequence[str]) -> str:
    """The selection call's prompt: Listing 3's layout, the question asked of the contexts'
    numbers instead of the answer."""
    lines = "\n\n".join(f"{i}: {text}" for i, text in enumerate(contexts, start=1))
    return ("Given the following question and contexts, which contexts are needed to answer "
            f"the question?\n\nQUESTION: {question}\n\nCONTEXT:\n\n{lines}\n\n{SEPARATOR}\n\n"
            f"QUESTION: {question}\n\n{SEPARATOR}\n\n{SELECT_INSTRUCTION}")
