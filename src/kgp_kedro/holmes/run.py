"""HOLMES end to end over tables (Kedro-free): per question, the entity–document graph of its
documents, the level-order traversal that extracts the hyper-relational KG, the query-aligned
schema, the pruned facts, and the reader (A.4.5 with complementary fact retrieval); and the
paper's baselines, Base (question only) and Base with the supporting documents.

Every answer table has the read stage's columns (:data:`~kgp_kedro.reading.reader.READ_COLUMNS`,
whose ``llm_calls`` here counts every LLM call the method made for the question: extraction,
schema and reader) plus ``reader_calls``, so the score stage scores HOLMES beside the other
methods.
``prompt_tokens`` is the reader's input tokens over its calls (the paper's token count).
"""
from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from kgp_kedro.facts import (EXTRACTORS, EntityDocumentGraph, FactExtractor, HyperTriple,
                             extract_documents)
from kgp_kedro.facts.extractors.dependency import load_spacy
from kgp_kedro.graphs.builders.entity import EntityBuilder
from kgp_kedro.holmes.params import HolmesParams, MethodParams
from kgp_kedro.holmes.pruning import prune, relation_scores
from kgp_kedro.holmes.recorded import READ_FACTS_COLUMNS, ReadFacts, read_facts_rows
from kgp_kedro.holmes.question import QuestionParse, SchemaTriple, title_mentions
from kgp_kedro.holmes.replies import CALLS_SEPARATOR, parse_reply, quoted_names
from kgp_kedro.holmes.schema import select_auxiliary
from kgp_kedro.holmes.traversal import level_order
from kgp_kedro.plumbing.progress import track
from kgp_kedro.prompts.holmes import reader_prompt
from kgp_kedro.prompts.kgp import qa_prompt
from kgp_kedro.reading.answers import final_answer, formed_answer
from kgp_kedro.reading.contexts import fit_contexts
from kgp_kedro.reading.reader import READ_COLUMNS, log_read_summary, prompt_budget

logger = logging.getLogger(__name__)

ANSWER_COLUMNS = [*READ_COLUMNS, "reader_calls"]
ENTITY_DOC_COLUMNS = ["question_id", "doc_id", "title", "entity", "name"]
# documents_read: the documents the question's traversal read (each an extraction call of the
# llm extractor, before caching), repeated on each of the question's rows
TRIPLE_COLUMNS = ["question_id", "level", "doc_id", "index", "via", "subject", "relation",
                  "object", "subject_type", "object_type", "qualifiers", "evidence",
                  "documents_read"]
SCHEMA_COLUMNS = ["question_id", "subject_type", "relation", "object_type", "origin",
                  "similarity", "entities", "llm_calls"]
PRUNED_COLUMNS = [*TRIPLE_COLUMNS, "rank", "score"]


def question_documents(questions: pd.DataFrame, documents: pd.DataFrame,
                       only_own: bool) -> dict[str, pd.DataFrame]:
    """Each question's documents S_q (§4.1): its collection's documents, without the negatives
    sampled from other questions when ``only_own``."""
    docs = documents[~documents["is_negative"].astype(bool)] if only_own else documents
    by_collection = dict(tuple(docs.groupby("collection_id", sort=False)))
    empty = documents.iloc[0:0]
    return {q.question_id: by_collection.get(q.collection_id, empty).sort_values("position")
            for q in questions.itertuples(index=False)}


def entity_document_table(questions: pd.DataFrame, documents: pd.DataFrame,
                          params: HolmesParams) -> pd.DataFrame:
    """The entity–document graph of every question (§4.2.1) as rows ``(question_id, doc_id,
    title, entity key, a surface name)``: NER of the documents (``params.linker``, cached per
    text) plus each document's title."""
    docs_of = question_documents(questions, documents, params.only_own_documents)
    unique = pd.concat(docs_of.values()).drop_duplicates("doc_id") if docs_of else documents
    builder = EntityBuilder(EntityBuilder.Params(linker=params.linker))
    found = builder.featurize(pd.DataFrame({"passage_id": unique["doc_id"],
                                            "text": unique["text"]}))
    surfaces = dict(zip(found["passage_id"], found["surfaces"]))
    rows = []
    for qid, docs in docs_of.items():
        graph = EntityDocumentGraph.build(docs["doc_id"].tolist(), docs["title"].tolist(),
                                          [list(surfaces.get(d, [])) for d in docs["doc_id"]])
        for doc, keys in graph.entities_of.items():
            rows += [(qid, doc, graph.titles[doc], k, graph.names[k]) for k in keys]
    return pd.DataFrame(rows, columns=ENTITY_DOC_COLUMNS)


def graphs_of(entity_docs: pd.DataFrame) -> dict[str, EntityDocumentGraph]:
    """The :class:`EntityDocumentGraph` of each question, back from its table."""
    out = {}
    for qid, rows in entity_docs.groupby("question_id", sort=False):
        titles = dict(zip(rows["doc_id"], rows["title"]))
        entities = {d: list(g["entity"]) for d, g in rows.groupby("doc_id", sort=False)}
        out[qid] = EntityDocumentGraph(titles, entities, dict(zip(rows["entity"], rows["name"])))
    return out


def make_extractor(params: HolmesParams, llm=None) -> FactExtractor:
    cls = EXTRACTORS.get(params.extractor)
    return cls(params.extractor_params(), **({"llm": llm} if cls.needs_llm else {}))


class DocumentFacts:
    """The triples of documents by id, extracted once (and cached on disk per document)."""

    def __init__(self, documents: pd.DataFrame, extractor: FactExtractor,
                 cache_dir: str | None) -> None:
        unique = documents.drop_duplicates("doc_id")
        self.text = dict(zip(unique["doc_id"], unique["text"]))
        self.title = dict(zip(unique["doc_id"], unique["title"]))
        self.extractor, self.cache_dir = extractor, cache_dir
        self.known: dict[str, list[HyperTriple]] = {}

    def __call__(self, doc_ids: Sequence[str]) -> dict[str, list[HyperTriple]]:
        new = [d for d in dict.fromkeys(doc_ids) if d not in self.known]
        if new:
            triples = extract_documents(self.extractor, [(self.title[d], self.text[d])
                                                         for d in new], self.cache_dir)
            self.known.update(zip(new, triples))
        return {d: self.known[d] for d in doc_ids}


def traverse(questions: pd.DataFrame, graphs: dict[str, EntityDocumentGraph],
             entities: dict[str, list[str]], facts: DocumentFacts,
             levels: int) -> pd.DataFrame:
    """The hyper-relational KG of every question: the triples the level-order traversal from
    the question's entities keeps (§4.2.1)."""
    rows = []
    for q in track(list(questions.itertuples(index=False)), "holmes traversal", log=logger):
        graph = graphs.get(q.question_id)
        if graph is None:
            continue
        kept, read = level_order(graph, entities.get(q.question_id, []), facts, levels)
        rows += [(q.question_id, r.level, r.doc_id, r.index, r.via, r.triple.subject,
                  r.triple.relation, r.triple.object, r.triple.subject_type,
                  r.triple.object_type, json.dumps(r.triple.qualifiers, ensure_ascii=False),
                  r.triple.evidence, len(read)) for r in kept]
    return pd.DataFrame(rows, columns=TRIPLE_COLUMNS)


def parse_questions(questions: pd.DataFrame, graphs: dict[str, EntityDocumentGraph],
                    params: HolmesParams, llm=None) -> tuple[dict[str, QuestionParse],
                                                             dict[str, int]]:
    """Each question's entities and schema triples (offline parse, or the LLM), and the LLM
    calls it took. Entities always include the documents' titles named in the question."""
    parser = params.question_parser_class()()
    parsed, calls = {}, {}
    for q in questions.itertuples(index=False):
        titles = list(graphs[q.question_id].titles.values()) if q.question_id in graphs else []
        parsed[q.question_id], calls[q.question_id] = parser.parse(q.question, titles, llm,
                                                                    params)
    return parsed, calls


def schema_table(questions: pd.DataFrame, parsed: dict[str, QuestionParse],
                 calls: dict[str, int], auxiliary: pd.DataFrame,
                 embed: Callable[[list[str]], np.ndarray], params: HolmesParams
                 ) -> pd.DataFrame:
    """The query-aligned schema of every question (§4.2.2): its own triples (similarity 1)
    and the auxiliary triples selected for it."""
    aux = params.auxiliary
    # the auxiliary relations encoded once, not once a question
    aux_vecs = embed(auxiliary["relation"].tolist()) if not auxiliary.empty else None
    rows = []
    for q in track(list(questions.itertuples(index=False)), "holmes schema", log=logger):
        p = parsed[q.question_id]
        ents = json.dumps(p.entities, ensure_ascii=False)
        own = [(t, 1.0) for t in p.schema]
        chosen = select_auxiliary(p.schema, auxiliary, embed, aux.per_relation,
                                  aux.min_similarity, aux_vecs)
        rows += [(q.question_id, t.subject_type, t.relation, t.object_type, t.origin, sim, ents,
                  calls[q.question_id]) for t, sim in [*own, *chosen]]
        if not own and not chosen:   # keep the question's entities even without a schema
            rows.append((q.question_id, "", "", "", "none", np.nan, ents, calls[q.question_id]))
    return pd.DataFrame(rows, columns=SCHEMA_COLUMNS)


def schema_of(rows: pd.DataFrame) -> list[SchemaTriple]:
    return [SchemaTriple(s, r, o, origin) for s, r, o, origin in
            zip(rows["subject_type"], rows["relation"], rows["object_type"], rows["origin"])
            if origin != "none"]


def _triple(row) -> HyperTriple:
    return HyperTriple(row.subject, row.relation, row.object, json.loads(row.qualifiers),
                       row.evidence, row.subject_type, row.object_type)


def prune_table(triples: pd.DataFrame, schema: pd.DataFrame,
                embed: Callable[[list[str]], np.ndarray], params: HolmesParams) -> pd.DataFrame:
    """The top ``p`` hyper triples of each question by Eq. 2 with its schema, best first."""
    schemas = {qid: schema_of(g) for qid, g in schema.groupby("question_id", sort=False)}
    parts = []
    for qid, group in triples.groupby("question_id", sort=False):
        hyper = [_triple(r) for r in group.itertuples(index=False)]
        scores = relation_scores(hyper, schemas.get(qid, []), embed, params.type_match)
        kept = prune(hyper, scores, params.top_p)
        part = group.iloc[[i for i, _ in kept]].copy()
        part["rank"] = range(len(kept))
        part["score"] = [s for _, s in kept]
        parts.append(part)
    if not parts:
        return pd.DataFrame(columns=PRUNED_COLUMNS)
    return pd.concat(parts, ignore_index=True)[PRUNED_COLUMNS]


def _fit(question: str, facts: list[str], prompt: Callable[[list[str]], str], client,
         budget: int) -> list[str]:
    """The longest prefix of ``facts`` (best first) whose prompt fits ``budget`` tokens (none,
    with a warning, when the prompt alone does not: the call may then fail and is scored as a
    wrong answer, as the reader does)."""
    low, high = 0, len(facts)
    if client.count_tokens(prompt([])) > budget:
        logger.warning("the HOLMES prompt without facts exceeds the %d tokens left in the "
                       "window (llm n_ctx less holmes.reader_max_tokens): %r", budget,
                       question[:80])
        return []
    while low < high:
        mid = (low + high + 1) // 2
        if client.count_tokens(prompt(facts[:mid])) <= budget:
            low = mid
        else:
            high = mid - 1
    return facts[:low]


def _passages_of(passages: pd.DataFrame) -> dict[str, list[str]]:
    return {d: list(g) for d, g in passages.groupby("doc_id", sort=False)["passage_id"]}


def answer_with_facts(questions: pd.DataFrame, pruned: pd.DataFrame, schema: pd.DataFrame,
                      graphs: dict[str, EntityDocumentGraph], facts: DocumentFacts,
                      passages: pd.DataFrame, client, embed, params: HolmesParams,
                      method: MethodParams, name: str, other_calls: dict[str, int],
                      replay: dict[str, ReadFacts] | None = None, answer_form: str = "line"
                      ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """HOLMES' answers (§4.2.3): the pruned facts verbalised in score order in the A.4.5
    prompt; when the reply's Final Response is None, the documents of the entities it names
    as missing give their facts (scored against the schema, top ``p``), added after the first
    ones for one more call. ``other_calls``: the LLM calls each question took before reading
    (extraction, schema). Returns the answers and what the reader read
    (:mod:`kgp_kedro.holmes.recorded`); with ``replay`` (a recording's,
    :func:`~kgp_kedro.holmes.recorded.replayed_read_facts`) the reader reads that instead
    (``pruned``, ``schema``, ``graphs``, ``facts`` and ``embed`` are then not used). The
    Final Response is scored under ``read.answer_form`` ``answer_form``, as every method's."""
    doc_passages = _passages_of(passages)
    read = (_replayed_reader(replay, client, params) if replay is not None else
            _reader(pruned, schema, graphs, facts, client, embed, params, method, other_calls))
    rows, recorded = [], []
    for q in track(list(questions.itertuples(index=False)), f"read {name}", log=logger):
        completions, got = read(q)
        answer = formed_answer(parse_reply(completions[-1].text)[0], q.question, answer_form)
        error = next((c.error for c in completions if c.error), None)
        rows.append({
            "source": q.source, "question_id": q.question_id, "method": name,
            "answer": answer, "raw_response": CALLS_SEPARATOR.join(c.text for c in completions),
            "context_ids": [p for d in got.doc_ids for p in doc_passages.get(d, [])],
            "n_contexts": len(got.calls[-1]), "n_cut": 0, "cut_ids": [],
            "prompt_tokens": sum(c.prompt_tokens for c in completions),
            "completion_tokens": sum(c.completion_tokens for c in completions),
            "latency_ms": sum(c.latency_ms for c in completions),
            "cached": all(c.cached for c in completions), "error": error,
            "reader_calls": len(completions),
            "llm_calls": len(completions) + got.other_calls,
            "ran_as": params.description(name)})
        recorded += read_facts_rows(name, q.source, q.question_id, got)
    answers = pd.DataFrame(rows, columns=ANSWER_COLUMNS)
    log_read_summary(answers, name)
    return answers, pd.DataFrame(recorded, columns=READ_FACTS_COLUMNS)


def _ask(client, params: HolmesParams, question: str, lines: list[str], entities: list[str],
         relations: list[str]):
    return client.complete([{"role": "user",
                             "content": reader_prompt(question, lines, entities, relations)}],
                           max_tokens=params.reader_max_tokens)


def _replayed_reader(replay: dict[str, ReadFacts], client, params: HolmesParams):
    """Each question's recorded reader calls, asked again (their replies from the store)."""
    def read(q):
        got = replay[str(q.question_id)]
        return [_ask(client, params, q.question, lines, got.entities, got.relations)
                for lines in got.calls], got

    return read


def _reader(pruned: pd.DataFrame, schema: pd.DataFrame, graphs: dict[str, EntityDocumentGraph],
            facts: DocumentFacts, client, embed, params: HolmesParams, method: MethodParams,
            other_calls: dict[str, int]):
    """A question's reader calls over its pruned facts, and the complementary one."""
    budget = client.context_window - params.reader_max_tokens - params.margin_tokens
    by_q = dict(tuple(pruned.groupby("question_id", sort=False)))
    schema_by_q = dict(tuple(schema.groupby("question_id", sort=False)))
    empty_schema = schema.iloc[0:0]

    def read(q):
        s_rows = schema_by_q.get(q.question_id, empty_schema)
        entities = json.loads(s_rows["entities"].iloc[0]) if len(s_rows) else []
        relations = [r for r in dict.fromkeys(s_rows["relation"]) if r]
        triples = by_q.get(q.question_id, pruned.iloc[0:0])
        shown = [_triple(r) for r in triples.itertuples(index=False)]
        docs = list(dict.fromkeys(triples["doc_id"]))

        def prompt(lines: list[str]) -> str:
            return reader_prompt(q.question, lines, entities, relations)

        lines = _fit(q.question, [t.verbalise(method.qualifiers) for t in shown], prompt,
                     client, budget)
        calls = [lines]
        first = _ask(client, params, q.question, lines, entities, relations)
        completions = [first]
        _, further = parse_reply(first.text)
        if method.complementary and further is not None and not first.error:
            graph = graphs.get(q.question_id)
            extra_docs = _missing_documents(further, graph, params.spacy_model) if graph else []
            extra_docs = [d for d in extra_docs if d in facts.text]
            if extra_docs:
                have = {(t.subject, t.relation, t.object, t.source) for t in shown}
                new = [t for d in extra_docs for t in facts([d])[d]
                       if (t.subject, t.relation, t.object, t.source) not in have]
                scores = relation_scores(new, schema_of(s_rows), embed, params.type_match)
                picked = [new[i] for i, _ in prune(new, scores, params.top_p)]
                if picked:
                    docs += [d for d in extra_docs if d not in docs]
                    lines = _fit(q.question, lines + [t.verbalise(method.qualifiers)
                                                      for t in picked], prompt, client, budget)
                    calls.append(lines)
                    completions.append(_ask(client, params, q.question, lines, entities,
                                            relations))
        return completions, ReadFacts(calls, entities, relations, docs,
                                      other_calls.get(q.question_id, 0))

    return read


def _missing_documents(further: str, graph: EntityDocumentGraph, spacy_model: str
                       ) -> list[str]:
    """Documents of the entities a Further query names: quoted names, NER spans and the
    titles it mentions, looked up in the entity–document graph."""
    names = quoted_names(further) + [e.text for e in load_spacy(spacy_model)(further).ents]
    names += title_mentions(further, list(graph.titles.values()))
    return list(dict.fromkeys(d for n in names for d in graph.documents(n)))


def answer_base(questions: pd.DataFrame, docs_of: dict[str, pd.DataFrame],
                passages: pd.DataFrame, client, name: str, with_documents: bool,
                margin_tokens: int, system_prompt: str | None, ran_as: str = "",
                answer_form: str = "line") -> pd.DataFrame:
    """The paper's baselines (§5.1): Base, the question alone (Listing 2 of the reader), and
    Base with supporting documents, the question with its documents S_q as numbered contexts
    (``title: text``; the last cut first when the window is short). ``ran_as``: the row's
    label (:meth:`~kgp_kedro.holmes.params.HolmesParams.description`); the answer is read
    under ``read.answer_form`` ``answer_form``, as every method's."""
    doc_passages = _passages_of(passages)
    system, budget = prompt_budget(client, margin_tokens, system_prompt)
    prompts, meta = [], []
    for q in questions.itertuples(index=False):
        docs = docs_of.get(q.question_id)
        contexts = ([f"{t}: {x}" for t, x in zip(docs["title"], docs["text"])]
                    if with_documents and docs is not None else [])
        kept = fit_contexts(q.question, contexts, client.count_tokens, budget)
        ids = list(docs["doc_id"]) if with_documents and docs is not None else []
        prompts.append([*system, {"role": "user",
                                  "content": qa_prompt(q.question, contexts[:kept])}])
        meta.append({"source": q.source, "question_id": q.question_id, "method": name,
                     "question": q.question,
                     "context_ids": [p for d in ids[:kept] for p in doc_passages.get(d, [])],
                     "n_contexts": kept, "n_cut": len(contexts) - kept,
                     "cut_ids": [p for d in ids[kept:] for p in doc_passages.get(d, [])]})
    completions = client.complete_many(prompts, desc=f"read {name}")
    answers = pd.DataFrame([{**m, "answer": final_answer(c.text, m["question"], answer_form),
                             "raw_response": c.text,
                             "prompt_tokens": c.prompt_tokens,
                             "completion_tokens": c.completion_tokens,
                             "latency_ms": c.latency_ms, "cached": c.cached, "error": c.error,
                             "reader_calls": 1, "llm_calls": 1, "ran_as": ran_as}
                            for m, c in zip(meta, completions)], columns=ANSWER_COLUMNS)
    log_read_summary(answers, name)
    return answers
