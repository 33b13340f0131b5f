"""The reader: the paper's QA prompts (§8.9, Listings 2-4), budgeted to the model's context
window, and the answer parsed from the reply."""
from kgp_kedro.prompts.kgp import ANSWER_INSTRUCTION, qa_prompt
from kgp_kedro.reading.contexts import fit_contexts, parse_answer
from kgp_kedro.reading.reader import READ_COLUMNS, read_answers

__all__ = ["ANSWER_INSTRUCTION", "fit_contexts", "qa_prompt", "parse_answer", "READ_COLUMNS",
           "read_answers"]
