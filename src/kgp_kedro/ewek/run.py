"""EWEK-QA over every question: quotes (split, extract, filter, rerank, deduplicate), triples
(ToG-E, or ToG with the LLM), and one composed, cited answer per configured method.

Tables:
- ``ewek_quotes``: the quotes that passed the fast filter, per question, with their filter and
  rerank ranks, whether the deduplicator kept them and their rank among the quotes the
  composer gets (``top_rank``, -1: not given);
- ``ewek_triples``: the triples of each search (``toge``, ``tog``) by depth;
- ``answers_<method>``: the read stage's answer table (so the score stage scores it) plus the
  citations, their accuracy, LLM calls and wall time per question.
"""
from __future__ import annotations

import logging
import math
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kgp_kedro.ewek.composer import (citation_accuracy, cited_sentences, parse_citations,
                                     parse_cited_answer, references)
from kgp_kedro.plumbing.progress import track
from kgp_kedro.prompts.ewek import compose_messages, judge_prompt
from kgp_kedro.reading.answers import formed_answer
from kgp_kedro.ewek.dedup import deduplicate
from kgp_kedro.ewek.facts_graph import collection_relation_graph
from kgp_kedro.ewek.params import EwekParams
from kgp_kedro.ewek.quotes import (Quote, collection_pages, evidence_extractor,
                                   paragraph_splitter)
from kgp_kedro.ewek.recorded import COMPOSED_COLUMNS, Composed, composed_rows
from kgp_kedro.ewek.rerank import fast_filter, rerank
from kgp_kedro.ewek.tog import (KG_SEARCHES, EmbeddingScorer, RelationGraph, SearchResult,
                               beam_search)
from kgp_kedro.ewek.tog_llm import parse_yes
from kgp_kedro.reading.reader import READ_COLUMNS

logger = logging.getLogger(__name__)

QUOTE_COLUMNS = ["source", "question_id", "collection_id", "quote_id", "doc_id", "title",
                 "origin", "text", "passage_ids", "supporting", "filter_rank", "filter_score",
                 "rerank_rank", "rerank_score", "kept", "top_rank"]
TRIPLE_COLUMNS = ["source", "question_id", "collection_id", "search", "depth", "rank", "head",
                  "relation", "tail", "head_text", "tail_text", "score", "evidence",
                  "supporting", "llm_calls", "stopped_at"]
ANSWER_COLUMNS = READ_COLUMNS + ["citations", "cited_ids", "citation_accuracy",
                                 "citation_judge", "n_triples", "n_quotes", "wall_ms"]


class Embedder:
    """Normalised sentence vectors of an encoder, each distinct text encoded once per run (and
    looked up in the encoder's disk cache when one is given)."""

    def __init__(self, encoder, cache=None) -> None:
        from kgp_kedro.models.cache import cached_map

        self.encoder, self.cache, self._map = encoder, cache, cached_map
        self._memo: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            vectors, _ = self._map(missing, lambda batch: self.encoder.encode(batch), self.cache)
            self._memo.update(zip(missing, (np.asarray(v, dtype=np.float32) for v in vectors)))
        if not len(texts):
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])


@contextmanager
def open_embedder(encoder_params) -> Iterator[Embedder]:
    """An :class:`Embedder` of the encoder ``encoder_params`` names (loaded on first use) over
    its disk cache (``cache_dir``), the cache closed on exit."""
    from kgp_kedro.models.embeddings import LazyEncoder, embedding_cache

    lazy = LazyEncoder(encoder_params)
    cache = embedding_cache(encoder_params.cache_dir, lazy)
    try:
        yield Embedder(lazy, cache)
    finally:
        if cache is not None:
            cache.close()


@dataclass
class QuoteSelection:
    filtered: list[Quote]        # fast-filter order
    filter_scores: list[float]
    rerank_order: list[int]      # positions in ``filtered``, cross-encoder order
    rerank_scores: list[float]
    kept: list[int]              # positions in ``filtered`` the deduplicator kept, ranked
    top: list[Quote]             # the quotes handed to the composer
    seconds: float


def select_quotes(question: str, pages, embed: Embedder, cross_encoder,
                  params: EwekParams) -> QuoteSelection:
    """§3.1.1 for one question: candidate quotes of every page (Paragraph Splitter and, when
    enabled, one Evidence Extractor span per page), the fast filter's top quotes, the
    cross-encoder's order (the filter's when ``cross_encoder`` is None: the rerank guard
    fired), then the deduplicator over that order; the top ``composer.quotes`` kept quotes go
    to the composer."""
    start = time.perf_counter()
    split, ev = params.splitter, params.evidence
    candidates = [q for page in pages
                  for q in paragraph_splitter(page, split.min_tokens, split.max_tokens)]
    if ev.enabled:
        sentences = [[s.text for _, s in page.sentences()] for page in pages]
        flat = [s for group in sentences for s in group]
        vectors = embed([question, *flat]) if flat else None
        offset = 1
        for page, group in zip(pages, sentences):
            if group:
                scores = vectors[offset:offset + len(group)] @ vectors[0]
                span = evidence_extractor(page, scores, ev.max_tokens, ev.margin)
                if span is not None:
                    candidates.append(span)
            offset += len(group)
    texts = [q.text for q in candidates]
    rr = params.rerank
    positions, scores = fast_filter(question, texts, rr.filter_top, rr.filter, embed, rr)
    filtered = [candidates[i] for i in positions]
    order, rscores = rerank(cross_encoder, question, [q.text for q in filtered], rr.batch_size)
    ranked = [int(i) for i in order]
    vectors = embed([filtered[i].text for i in ranked]) if ranked else np.zeros((0, 0))
    kept = [ranked[i] for i in deduplicate(vectors, params.dedup.threshold)] if ranked else []
    return QuoteSelection(filtered, [float(s) for s in scores], ranked,
                          [float(s) for s in rscores], kept,
                          [filtered[i] for i in kept[:params.composer.quotes]],
                          time.perf_counter() - start)


def search_graph(kind: str, question: str, graph: RelationGraph, embed: Embedder, client,
                 params: EwekParams) -> tuple[SearchResult, float]:
    """ToG-E (``toge``) or ToG (``tog``) from the question's topic entities; seconds taken."""
    start = time.perf_counter()
    embedding = EmbeddingScorer(embed, question)
    topics = graph.topic_entities(question, params.tog.topic_entities, embedding.nearest(graph))
    scorer = KG_SEARCHES.get(kind)(embedding, client, params.tog)
    result = beam_search(graph, question, topics, scorer, params.tog.width, params.tog.depth)
    return result, time.perf_counter() - start


def _supporting(passages: pd.DataFrame) -> dict[str, set[str]]:
    rows = passages[passages["is_supporting"].astype(bool)]
    return {cid: set(group["passage_id"]) for cid, group in rows.groupby("collection_id")}


def run_ewek(questions: pd.DataFrame, documents: pd.DataFrame, passages: pd.DataFrame,
             encoder, cross_encoder, client, params: EwekParams, cache=None, extractor=None,
             unranked: str | None = None,
             replay: dict[str, dict[str, Composed]] | None = None, answer_form: str = "line"
             ) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, pd.DataFrame], pd.DataFrame]:
    """``(ewek_quotes, ewek_triples, {method: answers}, ewek_composed)`` for every question.
    ``extractor`` (a fact extractor) makes the collection's fact graph for the KG methods;
    ``client`` is the LLM; ``cache`` the encoder's disk cache (or None); ``cross_encoder``
    None keeps the fast filter's order, and ``unranked`` then says why (the rows' ``ran_as``).
    ``ewek_composed`` holds what each method's composer read (:mod:`kgp_kedro.ewek.recorded`);
    with ``replay`` (a recording's, :func:`~kgp_kedro.ewek.recorded.replayed_composed`) the
    composer reads that instead: no quote is selected and no KG searched (the quotes and
    triples tables are empty). Each answer is scored under ``read.answer_form``
    ``answer_form``, as every method's."""
    embed = Embedder(encoder, cache)
    supporting = _supporting(passages)
    if cross_encoder is None and unranked is None:
        unranked = "no cross-encoder"
    methods = params.methods
    quote_rows, triple_rows, composed_table = [], [], []
    prepared = []   # (question row, {method: (Composed, messages, seconds)})
    plan = (_replayed_plan(replay) if replay is not None else
            _question_plan(documents, passages, embed, cross_encoder, client, params,
                           extractor, unranked, supporting, quote_rows, triple_rows))
    for q in track(list(questions.itertuples(index=False)), "ewek", log=logger):
        plans = {}
        for name, (composed, seconds) in plan(q).items():
            plans[name] = (composed, compose_messages(q.question, composed.refs,
                                                      params.composer.instruction), seconds)
            composed_table.extend(composed_rows(name, q.source, q.question_id, composed))
        prepared.append((q, plans))
    answers = {name: _compose(name, prepared, client, params, supporting, answer_form)
               for name in methods}
    return (pd.DataFrame(quote_rows, columns=QUOTE_COLUMNS),
            pd.DataFrame(triple_rows, columns=TRIPLE_COLUMNS), answers,
            pd.DataFrame(composed_table, columns=COMPOSED_COLUMNS))


def _replayed_plan(replay: dict[str, dict[str, Composed]]):
    """Each method's recorded composer input of a question (no time spent selecting it)."""
    return lambda q: {name: (by_question[str(q.question_id)], 0.0)
                      for name, by_question in replay.items()}


def _question_plan(documents, passages, embed, cross_encoder, client, params: EwekParams,
                   extractor, unranked, supporting, quote_rows: list, triple_rows: list):
    """Each method's composer input of a question, selected here: the quotes (when a method
    reads the web) and each KG search's triples, their rows added to ``quote_rows`` and
    ``triple_rows``; with the seconds each took."""
    docs = dict(tuple(documents.groupby("collection_id", sort=False)))
    texts = dict(tuple(passages.groupby("collection_id", sort=False)))
    methods = params.methods
    web = any(m.web for m in methods.values())
    searches = sorted({m.kg for m in methods.values()} - {"none"})

    def plan(q) -> dict[str, tuple[Composed, float]]:
        gold = supporting.get(q.collection_id, set())
        selection = None
        pages = collection_pages(docs.get(q.collection_id, documents.iloc[0:0]),
                                 texts.get(q.collection_id, passages.iloc[0:0]))
        if web:
            selection = select_quotes(q.question, pages, embed, cross_encoder, params)
            quote_rows.extend(_quote_rows(q, selection, gold))
        found: dict[str, tuple[SearchResult, float]] = {}
        if searches:
            graph = collection_relation_graph(pages, extractor, params.facts.cache_dir)
            for kind in searches:
                found[kind] = search_graph(kind, q.question, graph, embed, client, params)
                triple_rows.extend(_triple_rows(q, kind, found[kind][0], gold))
        plans = {}
        for name, m in methods.items():
            triples = found[m.kg][0].triples if m.kg != "none" else []
            quotes = selection.top if m.web and selection is not None else []
            seconds = (selection.seconds if m.web and selection is not None else 0.0) + (
                found[m.kg][1] if m.kg != "none" else 0.0)
            calls = found[m.kg][0].llm_calls if m.kg != "none" else 0
            plans[name] = (Composed(references(triples, quotes), calls, len(triples),
                                    len(quotes), params.description(name, unranked)), seconds)
        return plans

    return plan


def _compose(name: str, prepared, client, params: EwekParams,
             supporting: dict[str, set[str]], answer_form: str) -> pd.DataFrame:
    """One composer call per question for method ``name``; citations checked against the
    supporting facts, and by the LLM judge when ``composer.judge``; the answer without its
    citations, under ``read.answer_form`` ``answer_form``."""
    batch = [plans[name][1] for _, plans in prepared]
    replies = client.complete_many(batch, max_tokens=params.composer.max_tokens,
                                   desc=f"compose {name}")
    judged = _judge(prepared, name, replies, client, params) if params.composer.judge else None
    rows = []
    for i, ((q, plans), reply) in enumerate(zip(prepared, replies)):
        composed, messages, seconds = plans[name]
        refs = composed.refs
        cited = parse_citations(reply.text)
        by_number = {r.number: r for r in refs}
        seen = list(dict.fromkeys(p for r in refs for p in r.passage_ids))
        rows.append({
            "source": q.source, "question_id": q.question_id, "method": name,
            "answer": formed_answer(parse_cited_answer(reply.text), q.question, answer_form),
            "raw_response": reply.text,
            "context_ids": seen, "n_contexts": len(refs), "n_cut": 0, "cut_ids": [],
            "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
            "latency_ms": reply.latency_ms, "cached": reply.cached, "error": reply.error,
            "citations": cited,
            "cited_ids": list(dict.fromkeys(p for n in cited if n in by_number
                                            for p in by_number[n].passage_ids)),
            "citation_accuracy": citation_accuracy(cited, refs,
                                                   supporting.get(q.collection_id, set())),
            "citation_judge": math.nan if judged is None else judged[i],
            "n_triples": composed.n_triples, "n_quotes": composed.n_quotes,
            "llm_calls": composed.calls + 1, "ran_as": composed.ran_as,
            "wall_ms": 1000 * seconds + reply.latency_ms})
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)


def _judge(prepared, name: str, replies, client, params: EwekParams) -> list[float]:
    """A.3: each (cited sentence, cited quote) judged by the LLM; per answer the share judged
    supported (NaN without citations). Judge calls are evaluation, not counted as the
    method's calls."""
    asks, owner = [], []
    for i, ((_, plans), reply) in enumerate(zip(prepared, replies)):
        by_number = {r.number: r for r in plans[name][0].refs}
        for sentence, numbers in cited_sentences(reply.text):
            for n in numbers:
                text = by_number[n].text if n in by_number else ""
                asks.append([{"role": "user", "content": judge_prompt(sentence, text)}])
                owner.append(i)
    verdicts = client.complete_many(asks, max_tokens=params.composer.judge_max_tokens,
                                    desc=f"judge citations {name}") if asks else []
    votes: dict[int, list[float]] = {}
    for i, verdict in zip(owner, verdicts):
        votes.setdefault(i, []).append(float(parse_yes(verdict.text)))
    return [float(np.mean(votes[i])) if i in votes else math.nan for i in range(len(prepared))]


def _quote_rows(q, selection: QuoteSelection, gold: set[str]) -> list[dict]:
    rerank_rank = {pos: r for r, pos in enumerate(selection.rerank_order)}
    rerank_score = dict(zip(selection.rerank_order, selection.rerank_scores))
    kept = set(selection.kept)
    top_rank = {id(quote): i for i, quote in enumerate(selection.top)}
    rows = []
    for pos, (quote, score) in enumerate(zip(selection.filtered, selection.filter_scores)):
        rows.append({"source": q.source, "question_id": q.question_id,
                     "collection_id": q.collection_id, "quote_id": quote.quote_id,
                     "doc_id": quote.doc_id, "title": quote.title, "origin": quote.origin,
                     "text": quote.text, "passage_ids": list(quote.passage_ids),
                     "supporting": bool(gold & set(quote.passage_ids)), "filter_rank": pos,
                     "filter_score": score, "rerank_rank": rerank_rank[pos],
                     "rerank_score": rerank_score[pos], "kept": pos in kept,
                     "top_rank": top_rank.get(id(quote), -1)})
    return rows


def _triple_rows(q, kind: str, result: SearchResult, gold: set[str]) -> list[dict]:
    return [{"source": q.source, "question_id": q.question_id,
             "collection_id": q.collection_id, "search": kind, "depth": t.depth, "rank": r,
             "head": t.head, "relation": t.relation, "tail": t.tail, "head_text": t.head_text,
             "tail_text": t.tail_text, "score": t.score, "evidence": list(t.evidence),
             "supporting": bool(gold & set(t.evidence)), "llm_calls": result.llm_calls,
             "stopped_at": result.stopped_at}
            for r, t in enumerate(result.triples)]
