"""Few-shot short-answer demonstrations for the reader (``read.demonstrations``), drawn from
train questions only, never from the questions a table reports: they show a small model the
form of an answer (an entity, a full date, yes / no), not a fact it needs."""
from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pandas as pd

from kgp_kedro.config.sections import Source

MAX_ANSWER_WORDS = 5
# a demonstration: the question, its answer and, for the steps answer form, the facts that
# lead to it ("" otherwise)
Demonstration = tuple[str, str, str]
# a sub-question's reference to an earlier one's answer (MuSiQue's decompositions: "#1")
HOP = re.compile(r"#(\d+)")


def answer_steps(dataset: str, meta: str | None) -> str:
    """The hops to a train question's answer from its dataset's own supervision (``meta``):
    MuSiQue's decomposition, each sub-question with the earlier answers put in for ``#k`` and
    its answer (``Which state is Pocahontas Mounds located? → Mississippi``; a relation
    written ``X >> r`` reads ``X — r``), 2Wiki's evidence triples (``Nate Watt — date of
    birth — April 6, 1889``), joined by ``; ``. "" where the dataset gives none (HotpotQA) or
    a hop is incomplete."""
    record = json.loads(meta) if meta else {}
    if dataset == "musique":
        hops = record.get("question_decomposition") or []
        answers: list[str] = []
        steps = []
        for hop in hops:
            question, answer = str(hop.get("question", "")).strip(), str(
                hop.get("answer", "")).strip()
            if not question or not answer:
                return ""
            question = HOP.sub(lambda m: answers[int(m.group(1)) - 1]
                                if 0 < int(m.group(1)) <= len(answers) else m.group(0), question)
            steps.append(f"{question.replace(' >> ', ' — ')} → {answer}")
            answers.append(answer)
        return "; ".join(steps)
    if dataset == "2wikimultihopqa":
        triples = record.get("evidences") or []
        if not triples or any(len(t) != 3 or not all(str(x).strip() for x in t)
                              for t in triples):
            return ""
        return "; ".join(" — ".join(str(x).strip() for x in t) for t in triples)
    return ""


def draw_demonstrations(questions: pd.DataFrame, k: int, steps: bool = False
                        ) -> list[Demonstration]:
    """``k`` ``(question, answer, steps)`` demonstrations: round-robin over the sources of
    ``questions`` (in their first-appearance order), each source's questions taken from its
    **last** one backwards (a study that chooses the reader on a train file's first questions
    keeps them apart), answers of 1 to :data:`MAX_ANSWER_WORDS` words, no answer twice. With
    ``steps`` each carries :func:`answer_steps`, and a question without them is not drawn
    (so a source without decompositions, HotpotQA, gives none); without, ``steps`` is ""."""
    if k <= 0:
        return []
    queues = []
    for _, rows in questions.groupby("source", sort=False):
        rows = rows.iloc[::-1]
        words = rows["answer"].fillna("").str.split().str.len()
        rows = rows[(words >= 1) & (words <= MAX_ANSWER_WORDS)]
        hops = ([answer_steps(d, m) for d, m in zip(rows["dataset"], rows["meta"])] if steps
                else [""] * len(rows))
        queues.append([(q, a, h) for q, a, h in zip(rows["question"], rows["answer"], hops)
                       if h or not steps])
    drawn: list[Demonstration] = []
    seen: set[str] = set()
    while len(drawn) < k and any(queues):
        for queue in queues:
            while queue:
                question, answer, hops = queue.pop(0)
                if answer.lower() not in seen:
                    seen.add(answer.lower())
                    drawn.append((question, answer, hops))
                    break
            if len(drawn) == k:
                break
    return drawn


def train_demonstrations(sources: Sequence[Source], k: int, key: str = "train.sources",
                         steps: bool = False) -> list[Demonstration]:
    """:func:`draw_demonstrations` over the questions of the train files ``sources``
    (:func:`train_questions`)."""
    if k <= 0:
        return []
    return draw_demonstrations(train_questions(sources, key), k, steps)


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
    pairs, a ``Steps: …`` line between them where a demonstration has steps);
    ``system_prompt`` unchanged when there are none."""
    if not demonstrations:
        return system_prompt
    pairs = "\n\n".join(f"Q: {q}\n" + (f"Steps: {h}\n" if h else "") + f"A: {a}"
                          for q, a, h in demonstrations)
    head = f"{system_prompt}\n\n" if system_prompt else ""
    return f"{head}Examples of questions and their answers:\n\n{pairs}"
