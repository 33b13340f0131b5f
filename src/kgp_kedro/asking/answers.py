"""Cited answers: one LLM call per question, the analyst prompt
(:mod:`kgp_kedro.prompts.ask`) over a retrieval method's top passages as numbered quotes; each
citation resolved to file, page or heading and passage, a cited number that was not in the
prompt dropped and counted. The reply is then grounded (:mod:`.grounding`): each claim checked
against the quotes, an unsupported one removed, a misattributed one re-cited, the answer marked
*supported*, *partly supported* or *not found*. With the check ``none``, a reply that cites
nothing is attributed to the quote sharing the most words with it, marked ``attributed``
(post-hoc, not the model's citation), when one shares at least :data:`MIN_SHARED_WORDS`."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass

import pandas as pd

from kgp_kedro.asking.citations import Located, check_citations, locate_passages, source_label
from kgp_kedro.asking.grounding import ground
from kgp_kedro.asking.words import keys
from kgp_kedro.config.sections import AskParams
from kgp_kedro.ewek.composer import keep_citations
from kgp_kedro.llm import LLMClient
from kgp_kedro.prompts.ask import ask_messages
from kgp_kedro.reading.contexts import within_documents
from kgp_kedro.reading.reader import prompt_budget, ranked_contexts

logger = logging.getLogger(__name__)

ASK_COLUMNS = ["source", "question_id", "question", "method", "answer", "raw_response",
               "mark", "claims", "closest", "citations", "sources", "n_cited", "attributed",
               "n_dropped", "dropped",
               "context_ids",
               "paths", "top_file", "sanity_method", "sanity_top_file", "retrieval_ms",
               "latency_ms", "prompt_tokens", "completion_tokens", "cached", "error"]


MIN_SHARED_WORDS = 3


@dataclass(frozen=True)
class AskOptions:
    """How a question is asked and its answer checked: the ``ask`` block's options
    (:class:`~kgp_kedro.config.sections.AskParams`, read once by :meth:`of`) and the reader's
    ``read.margin_tokens``."""

    contexts: int
    instruction: str
    margin_tokens: int
    snippet_chars: int
    grounding: str
    max_documents: int | None
    passage_window: int

    @classmethod
    def of(cls, ask: AskParams, margin_tokens: int) -> AskOptions:
        return cls(ask.contexts, ask.instruction, margin_tokens, ask.snippet_chars,
                   ask.grounding, ask.max_documents, ask.passage_window)


def quoted_text(place: Located, around: tuple[Located, ...] = ()) -> str:
    """A passage as the prompt quotes it (a table as the markdown table it was read as), after
    the heading above it (``Heading: text``; a table under a line of its own) when it has one;
    ``around``: the passages of its window (``ask.passage_window``: itself and its neighbours in
    its file, in order), their texts joined (a table on lines of its own)."""
    label = place.heading if place.kind != "heading" else None
    body = place.text
    if len(around) > 1:
        body = " ".join(f"\n{p.text}\n" if p.kind == "table" else p.text
                        for p in around).strip().replace("\n ", "\n").replace(" \n", "\n")
    if not label:
        return body
    return f"{label}:\n{body}" if "\n|" in f"\n{body}" else f"{label}: {body}"


def quote_order(ids: list[str], places: dict[str, Located], max_documents: int | None
                ) -> list[str]:
    """The ranked passages ``ids`` a prompt may quote, in rank order: no heading alone (its
    text heads the passages under it), only those of the best-ranked files, at most
    ``max_documents`` (:func:`~kgp_kedro.reading.contexts.within_documents`)."""
    ids = [p for p in ids if places[p].kind != "heading"]
    kept = within_documents([[p] for p in ids], {p: places[p].file for p in ids},
                            max_documents)
    return [ids[n] for n in kept]


def windows(places: dict[str, Located], size: int) -> dict[str, tuple[Located, ...]]:
    """Each passage's window: itself and the ``size`` passages before and after it in its
    file (headings left out), in file order; empty for ``size`` 0."""
    if size <= 0:
        return {}
    by_file: dict[str, list[Located]] = {}
    for place in places.values():     # locate_passages keeps each file's reading order
        if place.kind != "heading":
            by_file.setdefault(place.file, []).append(place)
    return {p.passage_id: tuple(run[max(0, i - size):i + size + 1])
            for run in by_file.values() for i, p in enumerate(run)}


def _quotes(question: str, ids: list[str], places: dict[str, Located], client: LLMClient,
            options: AskOptions, around: dict[str, tuple[Located, ...]]
            ) -> tuple[list[str], list[str], list[dict]]:
    """The quoted passages (rank order), their quotes and the prompt: the lowest-ranked quotes
    are cut until the prompt fits the model's window less the answer's tokens and the
    margin."""
    _, budget = prompt_budget(client, options.margin_tokens, options.instruction)
    quotes = [quoted_text(places[p], around.get(p, ())) for p in ids]
    while True:
        messages = ask_messages(question, quotes, options.instruction)
        if client.count_tokens(messages[1]["content"]) <= budget or not ids:
            return ids, quotes, messages
        ids, quotes = ids[:-1], quotes[:-1]


def _words(text: str) -> set[str]:
    """``text``'s word keys (:func:`~kgp_kedro.asking.words.keys`) of 3+ characters."""
    return {k for k in keys(text) if len(k) >= 3}


def attribute(reply: str, quotes: list[str]) -> int | None:
    """The number of the quote sharing the most words (3+ letters) with ``reply``, when it
    shares at least :data:`MIN_SHARED_WORDS`; the first such quote on a tie; else None."""
    said = _words(reply)
    shared = [len(said & _words(q)) for q in quotes]
    best = max(range(len(quotes)), key=lambda i: (shared[i], -i), default=None)
    return best + 1 if best is not None and shared[best] >= MIN_SHARED_WORDS else None


def _paths(rows: pd.DataFrame, cited: set[str], places: dict[str, Located]) -> list[str]:
    """The retrieval paths (seed > neighbour ...) that reached the cited passages, each step
    as its file and page or heading, and its passage's number in its file (``#n``)."""
    out = []
    for path in rows.sort_values("rank")["path"]:
        steps = str(path).split(" > ") if path else []
        if steps and steps[-1] in cited:
            out.append(" > ".join(f"{source_label(places[s])} #{s.rsplit('#', 1)[-1]}"
                                  if s in places else s for s in steps))
    return list(dict.fromkeys(out))


def _top_file(rows: pd.DataFrame | None, places: dict[str, Located]) -> str | None:
    if rows is None or rows.empty:
        return None
    first = rows[rows["rank"] >= 0].sort_values("rank")["passage_id"]
    return places[first.iloc[0]].file if len(first) and first.iloc[0] in places else None


def answer_with_citations(questions: pd.DataFrame, retrieved: pd.DataFrame,
                          passages: pd.DataFrame, client: LLMClient, method: str,
                          options: AskOptions, sanity: pd.DataFrame | None = None,
                          sanity_method: str | None = None) -> pd.DataFrame:
    """One row per question (:data:`ASK_COLUMNS`): the reply with its valid citations, each
    cited quote as ``{n, passage_id, file, page, heading, label, snippet}`` (``citations``, JSON)
    and as ``[n] <label>`` lines (``sources``), the cited numbers dropped because no quote had
    them, the retrieval paths to the cited passages, and the top file of ``method`` and of the
    ``sanity`` method (BM25, say) side by side. The prompt quotes ``options.contexts``
    passages at most, as :func:`quoted_text` says, from at most ``options.max_documents``
    files (:func:`quote_order`); the answer is grounded by the ``options.grounding`` check
    (:func:`~kgp_kedro.asking.grounding.ground`): its ``mark``, its ``claims`` (JSON: each
    claim's cited and supporting numbers, verdict and snippet) and, when not found, the
    ``closest`` quotes (JSON, as ``citations``). A failed call is a row with ``error`` set."""
    places = locate_passages(passages)
    by_question = dict(tuple(retrieved.groupby("question_id", sort=False)))
    by_sanity = dict(tuple(sanity.groupby("question_id", sort=False))) if sanity is not None \
        else {}
    texts = {p: place.text for p, place in places.items()}
    around = windows(places, options.passage_window)
    plans, quotes_of = [], []
    for q in questions.itertuples(index=False):
        rows = by_question.get(q.question_id)
        ids = [ids[0] for ids, _ in ranked_contexts(rows, texts, "numbered")] \
            if rows is not None else []
        ids = quote_order(ids, places, options.max_documents)
        quoted, quotes, messages = _quotes(q.question, ids[:options.contexts], places, client,
                                           options, around)
        plans.append((q, rows, quoted, messages))
        quotes_of.append(quotes)
    replies = client.complete_many([m for *_, m in plans], desc=f"ask {method}")
    grounding, snippet_chars = options.grounding, options.snippet_chars
    out = []
    for (q, rows, quoted, _), quotes, reply in zip(plans, quotes_of, replies):
        kept, dropped = check_citations(reply.text, len(quoted))
        attributed = None
        grounded = ground(q.question, keep_citations(reply.text, set(kept)), quotes, grounding,
                          snippet_chars)
        if grounding == "none" and not kept and reply.error is None:
            attributed = attribute(keep_citations(reply.text, set()), quotes)
        numbers = (kept or ([attributed] if attributed else [])) if grounding == "none" else \
            list(dict.fromkeys(n for c in grounded.claims for n in c.support))
        cited = [quoted[n - 1] for n in numbers]

        def cite(n: int, p: str) -> dict:
            return {"n": n, "passage_id": p, "file": places[p].file, "page": places[p].page,
                    "heading": places[p].heading, "label": source_label(places[p]),
                    "snippet": " ".join(places[p].text.split())[:snippet_chars],
                    "attributed": n == attributed}

        citations = [cite(n, p) for n, p in zip(numbers, cited)]
        latency = rows["latency_ms"].iloc[0] if rows is not None else 0.0  # per question
        out.append({
            "source": q.source, "question_id": q.question_id, "question": q.question,
            "method": method,
            "answer": keep_citations(reply.text, set(kept)) if grounding == "none"
            else grounded.text,
            "raw_response": reply.text, "mark": grounded.mark,
            "claims": json.dumps([c.as_dict() for c in grounded.claims]),
            "closest": json.dumps([cite(n, quoted[n - 1]) for n in grounded.closest]),
            "citations": json.dumps(citations),
            "sources": "\n".join(f"[{c['n']}] {c['label']}"
                                 + (" (attributed)" if c["attributed"] else "")
                                 for c in citations),
            "n_cited": len(kept), "attributed": attributed is not None,
            "n_dropped": len(dropped), "dropped": dropped, "context_ids": quoted,
            "paths": _paths(rows, set(cited), places) if rows is not None else [],
            "top_file": places[cited[0]].file if cited else None,
            "sanity_method": sanity_method,
            "sanity_top_file": _top_file(by_sanity.get(q.question_id), places),
            "retrieval_ms": float(latency), "latency_ms": reply.latency_ms,
            "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
            "cached": reply.cached, "error": reply.error})
    answers = pd.DataFrame(out, columns=ASK_COLUMNS)
    dropped_total = int(answers["n_dropped"].sum()) if len(answers) else 0
    uncited = int((answers["n_cited"] == 0).sum()) if len(answers) else 0
    attributed = int(answers["attributed"].sum()) if len(answers) else 0
    failed = int(answers["error"].notna().sum()) if len(answers) else 0
    logger.log(logging.WARNING if failed else logging.INFO,
               "ask %s: %d questions answered, %d citing nothing (%d of them attributed to "
               "the quote sharing most words), %d citations dropped (not in the prompt), %d "
               "failed", method, len(answers) - failed, uncited - failed, attributed,
               dropped_total, failed)
    return answers
