"""Cited answers: one LLM call per question, the analyst prompt
(:mod:`kgp_kedro.prompts.ask`) over a retrieval method's top passages as numbered quotes; each
citation resolved to file, page or heading and passage, a cited number that was not in the
prompt dropped and counted. A table passage is quoted as facts (:mod:`.tables`). The reply is
then grounded (:mod:`.grounding`): each claim checked against the quotes, an unsupported one
removed, a misattributed one re-cited, the answer marked *supported*, *partly supported* or
*not found*. With the check ``none``, a reply that cites nothing is attributed to the quote
sharing the most words with it, marked ``attributed`` (post-hoc, not the model's citation),
when one shares at least :data:`MIN_SHARED_WORDS`."""
from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence

import pandas as pd

from kgp_kedro.asking.citations import Located, check_citations, locate_passages, source_label
from kgp_kedro.asking.grounding import ground, new_names
from kgp_kedro.asking.hop_quotes import HopIndex
from kgp_kedro.asking.tables import as_facts
from kgp_kedro.ewek.composer import keep_citations, parse_citations, strip_citations
from kgp_kedro.llm import Completion, LLMClient
from kgp_kedro.prompts.ask import ask_messages
from kgp_kedro.reading.contexts import within_documents
from kgp_kedro.reading.answers import final_answer
from kgp_kedro.reading.hops import read_by_hops
from kgp_kedro.reading.reader import prompt_budget, ranked_contexts

logger = logging.getLogger(__name__)

ASK_COLUMNS = ["source", "question_id", "question", "method", "answer", "raw_response",
               "mark", "claims", "closest", "citations", "sources", "n_cited", "attributed",
               "n_dropped", "dropped",
               "context_ids",
               "paths", "top_file", "sanity_method", "sanity_top_file", "retrieval_ms",
               "latency_ms", "prompt_tokens", "completion_tokens", "cached", "error"]


MIN_SHARED_WORDS = 3
_WORD = re.compile(r"\w{3,}")


QUOTE_FORMS = ("passage", "headed")


def quoted_text(place: Located, tables: str = "facts", form: str = "passage") -> str:
    """A passage as the prompt quotes it: with ``tables`` ``facts``, a table as facts under
    its heading (:func:`~kgp_kedro.asking.tables.as_facts`), with ``composed`` its chained
    rows also each as one fact; else its text, after the heading
    above it (``Heading: text``) when ``form`` is ``headed`` and it has one (a table's facts
    name the heading already)."""
    if form not in QUOTE_FORMS:
        raise ValueError(f"ask.quote_form must be one of {QUOTE_FORMS}, got {form!r}")
    if tables in ("facts", "composed") and (facts := as_facts(
            place.text, place.heading, compose=tables == "composed")) != place.text:
        return facts
    if form == "headed" and place.heading and place.kind not in ("heading", "table"):
        return f"{place.heading}: {place.text}"
    return place.text


def quote_order(ids: list[str], places: dict[str, Located], max_documents: int | None,
                form: str, tables: str = "facts", distinct: bool = False) -> list[str]:
    """The ranked passages ``ids`` a prompt may quote, in rank order: with ``form``
    ``headed`` no heading alone (its text heads the passages under it); with ``distinct`` no
    passage whose quote (:func:`quoted_text`) is word for word an earlier one's (the same
    paragraph in several files); with ``max_documents`` only those of the best-ranked files,
    at most that many (:func:`~kgp_kedro.reading.contexts.within_documents`)."""
    if form == "headed":
        ids = [p for p in ids if places[p].kind != "heading"]
    if distinct:
        first: dict[str, str] = {}
        for p in ids:
            first.setdefault(" ".join(quoted_text(places[p], tables, form).split()), p)
        firsts = set(first.values())
        ids = [p for p in ids if p in firsts]
    kept = within_documents([[p] for p in ids], {p: places[p].file for p in ids},
                            max_documents)
    return [ids[n] for n in kept]


def hop_index(places: dict[str, Located], tables: str, form: str) -> HopIndex:
    """``ask.hop_quotes``' index over ``places`` as the prompt quotes them
    (:func:`quoted_text`), a heading alone left out when quoted ``headed``."""
    ids = quote_order(list(places), places, None, form, tables)
    return HopIndex(ids, [quoted_text(places[p], tables, form) for p in ids])


def _quotes(question: str, ids: list[str], places: dict[str, Located], client: LLMClient,
            instruction: str, margin_tokens: int,
            tables: str, form: str) -> tuple[list[str], list[dict]]:
    """The quoted passages (rank order) and the prompt: the lowest-ranked quotes are cut until
    the prompt fits the model's window less the answer's tokens and ``margin_tokens``."""
    _, budget = prompt_budget(client, margin_tokens, instruction)
    while True:
        messages = ask_messages(question, [quoted_text(places[p], tables, form) for p in ids],
                                instruction)
        if client.count_tokens(messages[1]["content"]) <= budget or not ids:
            return ids, messages
        ids = ids[:-1]


def cited_answer(reply: str, question: str) -> str:
    """A sub-question's answer in the ask env (``ask.hops: chain``), from a reply that cites
    a quote (its citations dropped): the first full name it gives that the sub-question lacks
    (the analyst's reply is a sentence, "Devotion was directed by Guido Brignone [2]."), else
    its short answer; "" for a reply citing none (a refusal, or a claim from nowhere), which
    leaves the question read whole."""
    if not any(n >= 1 for n in parse_citations(reply)):
        return ""
    said = strip_citations(reply)
    return next(iter(new_names(said, question)), None) or final_answer(said, question, "short")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


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


def _joined(spent: list[Completion], said: list[Completion], reply: Completion) -> Completion:
    """A question's calls as one: the replies ``said`` (its hops') and ``reply`` in turn, the
    tokens and seconds of those and of the calls ``spent`` (a decomposition, a hop left
    unused) summed, cached when all were, the first error."""
    calls = [*spent, *said, reply]
    return Completion(" ".join(c.text.strip() for c in [*said, reply] if c.text.strip()),
                      sum(c.prompt_tokens for c in calls), sum(c.completion_tokens for c in calls),
                      sum(c.latency_ms for c in calls), all(c.cached for c in calls),
                      next((c.error for c in calls if c.error), None))


def answer_with_citations(questions: pd.DataFrame, retrieved: pd.DataFrame,
                          passages: pd.DataFrame, client: LLMClient, method: str, *,
                          contexts: int, instruction: str, margin_tokens: int,
                          snippet_chars: int, grounding: str, tables: str,
                          max_documents: int | None, quote_form: str, distinct_quotes: bool,
                          sanity: pd.DataFrame | None = None,
                          sanity_method: str | None = None,
                          decompositions: Sequence[tuple[str, Sequence[str]]] = (),
                          hop_quotes: int = 0, hops_index: HopIndex | None = None
                          ) -> pd.DataFrame:
    """One row per question (:data:`ASK_COLUMNS`): the reply with its valid citations, each
    cited quote as ``{n, passage_id, file, page, heading, label, snippet}`` (``citations``, JSON)
    and as ``[n] <label>`` lines (``sources``), the cited numbers dropped because no quote had
    them, the retrieval paths to the cited passages, and the top file of ``method`` and of the
    ``sanity`` method (BM25, say) side by side; a table quoted as ``tables`` says, every
    passage as ``quote_form`` says (:func:`quoted_text`), from at most ``max_documents`` files,
    a repeated quote left out with ``distinct_quotes`` (:func:`quote_order`); the answer
    grounded by the ``grounding``
    check (:func:`~kgp_kedro.asking.grounding.ground`): its ``mark``, its ``claims`` (JSON:
    each claim's cited and supporting numbers, verdict and snippet) and, when not found, the
    ``closest`` quotes (JSON, as ``citations``). A failed call is a row with ``error`` set.
    With ``decompositions`` (``ask.hops: chain``) a question of several hops is read one
    sub-question at a time (:func:`~kgp_kedro.reading.hops.read_by_hops`), each asked with the
    same quotes and instruction, a sub-question's answer taken from a reply that cites
    (:func:`cited_answer`) and whose claims the ``grounding`` check finds in its quotes (else
    the question is read whole); the answer is then every hop's reply in turn, grounded as
    one, and its tokens and seconds those of all its calls. With ``hop_quotes`` each
    sub-question is also shown up to that many more passages, those BM25 ranks best for it
    (:mod:`~kgp_kedro.asking.hop_quotes`; ``hops_index``, else built here over ``passages``),
    numbered after the question's quotes and kept while the prompt fits the window; the
    answer is grounded against every quote its calls showed."""
    places = locate_passages(passages)
    by_question = dict(tuple(retrieved.groupby("question_id", sort=False)))
    by_sanity = dict(tuple(sanity.groupby("question_id", sort=False))) if sanity is not None \
        else {}
    texts = {p: place.text for p, place in places.items()}
    plans = []
    for q in questions.itertuples(index=False):
        rows = by_question.get(q.question_id)
        ids = [ids[0] for ids, _ in ranked_contexts(rows, texts, "numbered")] \
            if rows is not None else []
        ids = quote_order(ids, places, max_documents, quote_form, tables, distinct_quotes)
        quoted, messages = _quotes(q.question, ids[:contexts], places, client, instruction,
                                   margin_tokens, tables, quote_form)
        plans.append((q, rows, quoted, messages))
    quotes_of = [[quoted_text(places[p], tables, quote_form) for p in quoted]
                 for _, _, quoted, _ in plans]
    # per question the calls whose replies are not in the answer, and its hops' replies
    spent: list[list[Completion]] = [[] for _ in plans]
    said: list[list[Completion]] = [[] for _ in plans]
    if decompositions:
        if hop_quotes and passages["collection_id"].nunique() > 1:
            raise ValueError("ask.hop_quotes searches one folder's passages; these hold "
                             f"{passages['collection_id'].nunique()} collections")
        if hop_quotes and hops_index is None:
            hops_index = hop_index(places, tables, quote_form)
        _, budget = prompt_budget(client, margin_tokens, instruction)

        def asking(i: int, question: str) -> list[dict]:
            """Question ``i``'s prompt for a sub-question: its quotes, and with
            ``hop_quotes`` the passages BM25 ranks best for the sub-question appended to
            them (to ``quoted`` and ``quotes_of`` alike; with ``distinct_quotes`` none word
            for word a quote already shown) until one does not fit the window."""
            quoted = plans[i][2]
            best = hops_index.best(question, hop_quotes, set(quoted)) if hop_quotes else []
            # quote_order's rules on the quotes and the candidates after them: a candidate
            # word for word a quote (with distinct_quotes) is left out
            for p in [p for p in quote_order([*quoted, *best], places, None, quote_form, tables,
                                             distinct_quotes) if p in best]:
                text = quoted_text(places[p], tables, quote_form)
                if client.count_tokens(ask_messages(question, [*quotes_of[i], text],
                                                    instruction)[1]["content"]) > budget:
                    break
                quoted.append(p)
                quotes_of[i].append(text)
            return ask_messages(question, quotes_of[i], instruction)

        def hop_answer(i: int, reply: str, question: str) -> str:
            """A hop's answer: none unless the check finds its reply's every claim in the
            quotes it cites (a wrong bridge would carry the question to a true fact about
            the wrong person)."""
            if grounding != "none" and ground(question, reply, quotes_of[i], grounding,
                                              snippet_chars).mark != "supported":
                return ""
            return cited_answer(reply, question)

        shown = [len(quotes) for quotes in quotes_of]
        for i, (calls, last) in read_by_hops(client, [q.question for q, *_ in plans], asking,
                                             f"ask {method}", decompositions,
                                             hop_answer).items():
            if last is None:
                # read whole, over the question's own quotes: a hop's quotes taken back
                del plans[i][2][shown[i]:], quotes_of[i][shown[i]:]
                spent[i] = calls
            else:
                plans[i] = (*plans[i][:3], asking(i, last))
                spent[i], said[i] = calls[:1], calls[1:]
    replies = [_joined(*calls) for calls in zip(spent, said, client.complete_many(
        [m for *_, m in plans], desc=f"ask {method}"))]
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
