"""Read: prompt the LLM with each question and the contexts a retrieval method gathered."""
from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd

from kgp_kedro.llm import LLMClient
from kgp_kedro.prompts.kgp import qa_prompt
from kgp_kedro.reading.answers import final_answer
from kgp_kedro.reading.choices import CHOICES, dated_choice, read_by_facts
from kgp_kedro.reading.hops import HOPS, read_by_hops
from kgp_kedro.reading.contexts import fit_contexts, within_documents, within_passages

logger = logging.getLogger(__name__)

READ_COLUMNS = ["source", "question_id", "method", "answer", "raw_response", "context_ids",
                "n_contexts", "n_cut", "cut_ids", "prompt_tokens", "completion_tokens",
                "latency_ms", "cached", "error", "llm_calls", "ran_as"]


def ranked_contexts(rows: pd.DataFrame, texts: dict[str, str],
              style: str) -> list[tuple[tuple[str, ...], str]]:
    """``(passage ids, context text)`` in rank order.

    ``paths`` (Listing 4): one context per row, the row's reasoning path with its passages
    joined by newlines (its ids: the path's passages). ``numbered`` (Listing 3): one context per
    distinct passage of the rows' paths, in rank order (each row's path from the seed on), so a
    method whose rows are paths (KGP's paper mode) loses no seed; for a method whose paths hold
    only passages ranked earlier (every other one) that is its passages in rank order."""
    rows = rows[rows["rank"] >= 0].sort_values("rank")
    out: list[tuple[tuple[str, ...], str]] = []
    if style == "paths":
        for pid, path in zip(rows["passage_id"], rows["path"]):
            steps = tuple(path.split(" > ")) if path else (pid,)
            out.append((steps, "\n".join(texts[p] for p in steps)))
        return out
    seen: set[str] = set()
    for pid, path in zip(rows["passage_id"], rows["path"]):
        for p in (path.split(" > ") if path else [pid]):
            if p not in seen:
                seen.add(p)
                out.append(((p,), texts[p]))
    return out


CONTEXT_FORMS = ("passages", "documents")


def passage_texts(passages: pd.DataFrame, form: str = "passages") -> dict[str, str]:
    """Each passage's text as a context shows it: bare (``passages``, the paper's) or after
    its document's title (``documents``: ``Title: text``; a passage of a document without a
    title stays bare)."""
    if form not in CONTEXT_FORMS:
        raise ValueError(f"read.context_form must be one of {CONTEXT_FORMS}, got {form!r}")
    if form == "passages":
        return dict(zip(passages["passage_id"], passages["text"]))
    return {p: f"{t}: {x}" if isinstance(t, str) and t.strip() else x
            for p, t, x in zip(passages["passage_id"], passages["title"], passages["text"])}


def passage_windows(passages: pd.DataFrame, window: int) -> dict[str, tuple[str, ...]]:
    """``read.passage_window``: each passage's id with the ``window`` passages before and after
    it in its document (document order), itself included (``passages``: one row a passage,
    indexed by ``passage_id``); empty for ``window`` 0."""
    if window <= 0:
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for _, doc in passages.sort_values("order", kind="stable").groupby("doc_id", sort=False):
        ids = list(doc.index)
        for i, pid in enumerate(ids):
            out[pid] = tuple(ids[max(0, i - window):i + window + 1])
    return out


def document_contexts(contexts: list[tuple[tuple[str, ...], str]], passages: pd.DataFrame,
                      windows: Mapping[str, tuple[str, ...]] | None = None
                      ) -> list[tuple[tuple[str, ...], str]]:
    """``read.context_form: documents``: the distinct passages of the ranked ``contexts``
    grouped by their document, one context a document (``Title: text text …``, its passages
    in document order), the documents in the rank order of their best passage (``passages``: one
    row a passage, indexed by ``passage_id``); with ``windows`` (:func:`passage_windows`) each
    passage brings its neighbours. The ids stay the passages' (a neighbour's too), so
    citations, ``context_sp_recall`` and the cut bookkeeping still resolve."""
    ids = list(dict.fromkeys(p for pids, _ in contexts for p in pids))
    if windows:
        ids = list(dict.fromkeys(n for p in ids for n in windows.get(p, (p,))))
    rows = passages.loc[ids, ["doc_id", "title", "text", "order"]]
    out = []
    for _, doc in rows.groupby("doc_id", sort=False):
        doc = doc.sort_values("order", kind="stable")
        title = doc["title"].iloc[0]
        body = " ".join(doc["text"])
        out.append((tuple(doc.index),
                    f"{title}: {body}" if isinstance(title, str) and title.strip() else body))
    return out


def _distinct(contexts: list[tuple[tuple[str, ...], str]], exclude: set[str] = frozenset()
              ) -> list[str]:
    """The distinct passage ids of ``contexts`` in order, less ``exclude``."""
    return [p for p in dict.fromkeys(p for ids, _ in contexts for p in ids) if p not in exclude]


def prompt_budget(client: LLMClient, margin_tokens: int, system_prompt: str | None
                  ) -> tuple[list[dict[str, str]], int]:
    """The system message (none when ``system_prompt`` is empty) and the tokens left for the
    user prompt: the window less the answer's ``max_tokens``, the margin and the system
    prompt."""
    system = [{"role": "system", "content": system_prompt}] if system_prompt else []
    budget = (client.context_window - client.sampling["max_tokens"] - margin_tokens
              - (client.count_tokens(system_prompt) if system_prompt else 0))
    return system, budget


def read_answers(questions: pd.DataFrame, retrieved: pd.DataFrame, passages: pd.DataFrame,
                 client: LLMClient, method: str, style: str, margin_tokens: int,
                 system_prompt: str | None, max_passages: int | None = None, ran_as: str = "",
                 retrieval_llm_calls: Mapping[str, int] | None = None,
                 context_form: str = "passages", answer_form: str = "line",
                 max_documents: int | None = None,
                 choice: str = "whole", hops: str = "whole",
                 decompositions: Sequence[tuple[str, Sequence[str]]] = (),
                 passage_window: int = 0) -> pd.DataFrame:
    """One answer per question of ``questions``: the prompt holds the method's ranked contexts
    up to ``max_passages`` distinct passages (all when null), as many of them as fit the
    model's window (lowest-ranked cut first, recorded in ``cut_ids``); a failed call gives an empty answer with ``error`` set (even when every
    call fails: nothing is raised, one summary line is logged). ``system_prompt``, when given,
    goes first (the paper sends the user prompt alone). ``llm_calls``: the reader's call plus
    the question's ``retrieval_llm_calls`` (IRCoT's, the chat agent's); ``ran_as``: what ran
    under the method's name (:attr:`kgp_kedro.pipelines.parameter_tree.Method.description`).
    ``context_form`` (:data:`CONTEXT_FORMS`): each passage bare (the paper's) or the passages
    grouped by document under its title (:func:`document_contexts`, always numbered);
    ``answer_form``: how the answer is read off the reply
    (:func:`kgp_kedro.reading.answers.final_answer`); ``max_documents``: the prompt holds passages of at most that many documents, the best
    ranked, and ``max_passages`` fills from them (:func:`within_documents`; the contexts of
    other documents are not offered, as those beyond ``max_passages``), all when null;
    ``choice``: ``dates`` asks a choice question's two facts one option at a time
    (:func:`~kgp_kedro.reading.choices.read_by_facts`), their dates deciding where they tell
    (:func:`~kgp_kedro.reading.choices.dated_choice`; else the question read whole), ``whole``
    reads it in one call; ``hops``: ``typed`` reads any other question one sub-question at a
    time where the last sub-question asks for the question's kind of answer
    (:func:`~kgp_kedro.reading.hops.read_by_hops`, the decomposition call shown
    ``decompositions``), ``whole`` in one call; ``passage_window`` (the ``documents``
    form only): each passage shown with that many passages before and after it in its
    document (:func:`passage_windows`; ``max_passages`` counts the retrieved ones)."""
    if choice not in CHOICES:
        raise ValueError(f"read.choice must be one of {CHOICES}, got {choice!r}")
    if hops not in HOPS:
        raise ValueError(f"read.hops must be one of {HOPS}, got {hops!r}")
    if hops != "whole" and not decompositions:
        raise ValueError(f"read.hops {hops} needs decomposition examples (a MuSiQue file "
                         "among train.sources)")
    if passage_window and context_form != "documents":
        raise ValueError("read.passage_window shows a passage's neighbours in its document's "
                         f"context: it needs read.context_form documents, got {context_form!r}")
    retrieval_llm_calls = retrieval_llm_calls or {}
    texts = passage_texts(passages, context_form)
    by_passage = passages.drop_duplicates("passage_id").set_index("passage_id")
    document = by_passage["doc_id"].to_dict()
    windows = passage_windows(by_passage, passage_window)
    if context_form == "documents":
        style = "numbered"
    by_question = dict(tuple(retrieved.groupby("question_id", sort=False)))
    system, budget = prompt_budget(client, margin_tokens, system_prompt)
    offered, meta = [], []
    for q in questions.itertuples(index=False):
        rows = by_question.get(q.question_id)
        contexts = ranked_contexts(rows, texts, style) if rows is not None else []
        contexts = [contexts[i] for i in within_documents([ids for ids, _ in contexts],
                                                          document, max_documents)]
        contexts = contexts[:within_passages([ids for ids, _ in contexts], max_passages)]
        if context_form == "documents" and contexts:
            contexts = document_contexts(contexts, by_passage, windows)
        kept = fit_contexts(q.question, [c for _, c in contexts], client.count_tokens, budget,
                            style)
        offered.append(contexts)
        meta.append({"question": q.question, "source": q.source, "question_id": q.question_id,
                     "method": method, "kept": kept})
    shown = []
    for m, contexts in zip(meta, offered):
        read = contexts[:m["kept"]]
        shown.append([c for _, c in read])
        # the passages the reader saw (every passage of a read path) and those it did not (cut
        # by the window)
        seen = _distinct(read)
        m.update(context_ids=seen, n_contexts=len(read), n_cut=len(contexts) - len(read),
                 cut_ids=_distinct(contexts, set(seen)))

    def asking(i: int, question: str) -> list[dict[str, str]]:
        """The reader's prompt asking ``question`` of question ``i``'s shown contexts."""
        return [*system, {"role": "user", "content": qa_prompt(
            question, shown[i], style)}]

    prompts = [asking(i, m["question"]) for i, m in enumerate(meta)]
    before: list[list] = [[] for _ in meta]
    decided: dict[int, str] = {}      # read.choice dates: the option the facts' dates name
    if choice == "dates":
        for i, facts in read_by_facts(client, system, [m["question"] for m in meta], shown,
                                      style, method).items():
            lines = [(option, final_answer(reply.text, "", "line")) for option, reply in facts]
            before[i] += [reply for _, reply in facts]
            if (option := dated_choice(meta[i]["question"], lines)) is not None:
                decided[i] = option
    if hops == "typed":
        # a choice question is never broken into hops (read_by_facts' or read whole)
        for i, (calls, last) in read_by_hops(client, [m["question"] for m in meta], asking,
                                             method, decompositions).items():
            if last is not None:
                prompts[i] = asking(i, last)
            before[i] += calls
    asked = [i for i in range(len(meta)) if i not in decided]
    completions = dict(zip(asked, client.complete_many([prompts[i] for i in asked],
                                                       desc=f"read {method}")))
    rows = []
    for i, (m, earlier) in enumerate(zip(meta, before)):
        c = completions.get(i)
        calls = [*earlier, c] if c is not None else earlier
        # a choice the dates decided: the option is its reply and its answer
        reply = c.text if c is not None else decided[i]
        answer = final_answer(reply, m["question"], answer_form) if c is not None else reply
        rows.append({**m, "answer": answer, "raw_response": reply,
                     "prompt_tokens": sum(x.prompt_tokens for x in calls),
                     "completion_tokens": sum(x.completion_tokens for x in calls),
                     "latency_ms": sum(x.latency_ms for x in calls),
                     "cached": all(x.cached for x in calls),
                     "error": next((x.error for x in calls if x.error), None),
                     "llm_calls": len(calls) + retrieval_llm_calls.get(m["question_id"], 0),
                     "ran_as": ran_as})
    answers = pd.DataFrame(rows, columns=READ_COLUMNS)
    log_read_summary(answers, method)
    return answers


def read_summary(answers: pd.DataFrame, method: str) -> tuple[int, str]:
    """``(logging level, one line)`` summing up a method's answers: how many questions, how
    many answered (from the cache), how many failed and the first error. A failed call is kept
    as a row with ``error`` set: it is scored as a wrong answer, and the run goes on."""
    n = len(answers)
    errors = answers["error"].dropna() if n else pd.Series(dtype=object)
    failed = len(errors)
    cached = int(answers["cached"].fillna(False).astype(bool).sum()) if n else 0
    if n and failed == n:
        return logging.WARNING, (
            f"read {method}: FAILED: all {n} LLM calls failed (first error: {errors.iloc[0]}); "
            f"its {n} questions are recorded as failed and count as wrong answers")
    if failed:
        return logging.WARNING, (
            f"read {method}: {n - failed} of {n} questions answered ({cached} from the cache), "
            f"{failed} failed and count as wrong answers (first error: {errors.iloc[0]})")
    return logging.INFO, f"read {method}: {n} questions answered ({cached} from the cache)"


def log_read_summary(answers: pd.DataFrame, method: str) -> None:
    level, line = read_summary(answers, method)
    logger.log(level, "%s", line)
