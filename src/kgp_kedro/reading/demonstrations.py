"""Few-shot short-answer demonstrations for the reader (``read.demonstrations``), drawn from
train questions only, never from the questions a table reports: they show a small model the
form of an answer (an entity, a full date, yes / no), not a fact it needs."""
from __future__ import annotations

import re
from collections.abc import Sequence

import pandas as pd

from kgp_kedro.config.sections import Source

MAX_ANSWER_WORDS = 5
# a demonstration: the question and its answer
Demonstration = tuple[str, str]
# a sub-question's reference to an earlier one's answer (MuSiQue's decompositions: "#1")
HOP = re.compile(r"#(\d+)")


def draw_demonstrations(questions: pd.DataFrame, k: int) -> list[Demonstration]:
    """``k`` ``(question, answer)`` demonstrations: round-robin over the sources of
    ``questions`` (in their first-appearance order), each source's questions taken from its
    **last** one backwards (a study that chooses the reader on a train file's first questions
    keeps them apart), answers of 1 to :data:`MAX_ANSWER_WORDS` words, no answer twice."""
    if k <= 0:
        return []
    queues = []
    for _, rows in questions.groupby("source", sort=False):
        rows = rows.iloc[::-1]
        words = rows["answer"].fillna("").str.split().str.len()
        rows = rows[(words >= 1) & (words <= MAX_ANSWER_WORDS)]
        queues.append(list(zip(rows["question"], rows["answer"])))
    drawn: list[Demonstration] = []
    seen: set[str] = set()
    while len(drawn) < k and any(queues):
        for queue in queues:
            while queue:
                question, answer = queue.pop(0)
                if answer.lower() not in seen:
                    seen.add(answer.lower())
                    drawn.append((question, answer))
                    break
            if len(drawn) == k:
                break
    return drawn


def train_demonstrations(sources: Sequence[Source], k: int, key: str = "train.sources"
                         ) -> list[Demonstration]:
    """:func:`draw_demonstrations` over the questions of the train files ``sources``
    (:func:`train_questions`)."""
    if k <= 0:
        return []
    return draw_demonstrations(train_questions(sources, key), k)


def train_questions(sources: Sequence[Source], key: str = "train.sources") -> pd.DataFrame:
    """The questions of the train files ``sources``, read as ``ingest.sources`` are (a file
    that cannot be read stops here, naming ``<key>[i]``)."""
    from kgp_kedro.corpus.sources import read_source
    from kgp_kedro.corpus.schema import QUESTION_COLUMNS

    rows = []
    for i, s in enumerate(sources):
        rows += read_source(s.dataset, s.path, s.name or f"{s.dataset}_train", s.limit,
                            param_key=f"{key}[{i}]")[0]
    return pd.DataFrame(rows, columns=QUESTION_COLUMNS)


def with_demonstrations(system_prompt: str | None, demonstrations: Sequence[Demonstration]
                        ) -> str | None:
    """The reader's system message followed by the demonstrations (``Q: …`` / ``A: …``
    pairs); ``system_prompt`` unchanged when there are none."""
    if not demonstrations:
        return system_prompt
    pairs = "\n\n".join(f"Q: {q}\nA: {a}" for q, a in demonstrations)
    head = f"{system_prompt}\n\n" if system_prompt else ""
    return f"{head}Examples of questions and their answers:\n\n{pairs}"
