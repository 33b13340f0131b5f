"""KGP's prompts: Wang et al., "Knowledge Graph Prompting for Multi-Document Question
Answering", AAAI 2024 (shared/papers/kgp-knowledge-graph-prompting-aaai2024.txt): the traversal
agent's instruction (§8.2, Listing 1), the reader (§8.9, Listings 2-4) and the LLM judge of Acc
(Listing 5). The texts are byte-identical to what the project has always sent (the LLM call
cache is keyed by them)."""
from __future__ import annotations

from collections.abc import Sequence


# -- Listing 1 (§8.2): the next evidence the generative agents are asked for
NEXT_EVIDENCE_INSTRUCTION = ("What evidence do we need to answer the question given the current "
                             "evidence?")


def seq2seq_input(instruction: str, question: str, path_texts: Sequence[str]) -> str:
    """KGP-T5's input: the instruction, then the question and the path's evidence."""
    return f"{instruction} question: {question} evidence: {' '.join(path_texts)}"


def next_evidence_prompt(instruction: str, question: str, path_texts: Sequence[str]) -> str:
    """KGP-ChatGPT / KGP-LLaMA's prompt, in Listing 1's format."""
    return (f"Instruction: {instruction}\n\n"
            f"Input: {' '.join([question, *path_texts])}\n\nOutput:")


# -- Listings 2-4 (§8.9): the reader, without contexts, with numbered contexts, with paths
ANSWER_INSTRUCTION = "ANSWER: Please answer in less than 6 words."
SEPARATOR = "====="
STYLES = ("numbered", "paths")


def qa_prompt(question: str, contexts: Sequence[str] = (), style: str = "numbered",
              instruction: str = ANSWER_INSTRUCTION) -> str:
    """The reader prompt. No contexts: Listing 2. ``numbered``: Listing 3 (``i: text``).
    ``paths``: Listing 4 (``- i: text``, each context a reasoning path's passages joined by
    newlines). The question is repeated after the contexts, as in the listings; the prompt
    ends with ``instruction`` (the listings' :data:`ANSWER_INSTRUCTION`)."""
    if style not in STYLES:
        raise ValueError(f"prompt style must be one of {STYLES}, got {style!r}")
    if not contexts:
        return ("Given the following question, create a final answer to the question.\n\n"
                f"QUESTION: {question}\n\n{instruction}")
    bullet = "- " if style == "paths" else ""
    lines = "\n\n".join(f"{bullet}{i}: {text}" for i, text in enumerate(contexts, start=1))
    head = "Given the following question and contexts, create a final answer to the question."
    opening = (f"{head}\n\n{SEPARATOR}\n\nQUESTION: {question}\n\n{SEPARATOR}\n\n"
               if style == "paths" else f"{head}\n\nQUESTION: {question}\n\n")
    return (f"{opening}CONTEXT:\n\n{lines}\n\n{SEPARATOR}\n\nQUESTION: {question}\n\n"
            f"{SEPARATOR}\n\n{instruction}")


# -- Listing 5: the grading prompt whose verdict is the paper's Acc
JUDGE_EXAMPLES = (
    ("What company owns the property of Marvel Comics?", "The Walt Disney Company",
     "The Walt Disney Company", 1),
    ("Which constituent college of the University of Oxford endows four professorial "
     "fellowships for sciences including chemistry and pure mathematics?", "Magdalen College",
     "Magdalen College.", 1),
    ("Which year was Marvel started?", "1939", "1200", 0),
)


def judge_prompt(question: str, answer: str, prediction: str) -> str:
    """The paper's grading prompt (Listing 5): its verdict is the paper's Acc (``acc``)."""
    examples = "\n\n=====\n\n".join(
        f"Question: {q}\n\nAnswer: {a}\n\nPrediction: {p}\n\nReturn: {r}"
        for q, a, p, r in JUDGE_EXAMPLES)
    return ("You are an expert professor specialized in grading whether the prediction to the "
            "question is correct or not according to the real answer.\n\n=====\n\n"
            f"For example:\n\n=====\n\n{examples}\n\n=====\n\n"
            f"You are grading the following question:\n\nQuestion: {question}\n\n"
            f"Answer: {answer}\n\nPrediction: {prediction}\n\n"
            "If the prediction is correct according to the answer, return 1. Otherwise, "
            "return 0.\n\nReturn: your reply can only be one number '0' or '1'")
