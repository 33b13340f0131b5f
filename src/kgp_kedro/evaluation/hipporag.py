"""HippoRAG 2's retrieval setting and metric (Gutiérrez et al., ICML 2025), as its code builds
and scores them, so a row here sits in the field's table.

- **The corpus** (:func:`paragraph_corpus`): one per source, every context paragraph of its
  loaded questions, a passage being ``title\\ntext``, deduplicated on both (the same title with
  another text is another passage; a paragraph several questions share is one passage). Its
  ids are content ids (:func:`content_id`), so a question's gold paragraph is found whichever
  question's copy of it a method ranks.
- **Passage recall@k** (:func:`passage_recall`): per question, the share of its gold
  (supporting) paragraphs among the top k distinct passages ranked; averaged over questions.
  A ranked context that is a path of several passages contributes its passages in path order,
  and k counts distinct passages (HippoRAG 2 ranks passages, never paths).

The per-question collections and the ``pooled`` setting (:mod:`kgp_kedro.corpus.collections`)
keep one passage per question's copy of a paragraph, and score a document unit: this module is
what ``benchmarks/bench_recall.py --env hipporag`` scores with instead.
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

import pandas as pd

from kgp_kedro.evaluation.retrieval import ranked_contexts

HIPPORAG_KS = (2, 5)


def passage_text(title: str, text: str) -> str:
    """A passage as HippoRAG 2 indexes it: ``title\\ntext`` (both stripped)."""
    return f"{str(title).strip()}\n{str(text).strip()}"


def content_id(source: str, title: str, text: str) -> str:
    """The id of the passage ``title\\ntext`` of ``source``: the same for every copy of it,
    another for the same title with another text. Shaped ``<doc_id>#0`` like every passage id
    (a paragraph is a document of one passage)."""
    digest = hashlib.sha1(passage_text(title, text).encode("utf-8")).hexdigest()[:16]
    return f"{source}/{digest}#0"


def paragraph_corpus(questions: pd.DataFrame, documents: pd.DataFrame
                     ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """HippoRAG 2's corpus of each source from the ingest stage's ``questions`` and
    ``documents`` (each document a dataset's context paragraph; sampled negatives, which
    belong to other questions, are left out: each question brings its own context).

    Returns ``(pooled_questions, corpus, gold)``:

    - ``pooled_questions``: the questions, ``collection_id`` ``<source>/pooled`` (their own
      in ``own_collection_id``);
    - ``corpus``: the passages (:data:`~kgp_kedro.corpus.schema.PASSAGE_COLUMNS`), one per
      distinct ``title\\ntext`` of a source, in order of first appearance, ``text`` being
      ``title\\ntext``, ``passage_id`` / ``doc_id`` its :func:`content_id`;
    - ``gold``: per question's own collection the passages of its context, ``is_supporting``
      for its gold paragraphs (the table :func:`passage_recall_table` scores against).
    """
    docs = documents
    if "is_negative" in docs.columns:
        docs = docs[~docs["is_negative"].astype(bool)]
    docs = docs[docs["text"].fillna("").str.strip() != ""]
    ids = [content_id(s, t, x) for s, t, x in zip(docs["source"], docs["title"], docs["text"])]
    rows = pd.DataFrame({
        "source": docs["source"].to_numpy(), "collection_id": docs["collection_id"].to_numpy(),
        "passage_id": ids, "doc_id": [i.removesuffix("#0") for i in ids],
        "title": docs["title"].astype(str).str.strip().to_numpy(),
        "text": [passage_text(t, x) for t, x in zip(docs["title"], docs["text"])],
        "order": 0, "page": None, "kind": "passage",
        "is_supporting": docs["is_supporting"].astype(bool).to_numpy()})
    # a question's context holding the same paragraph twice: one passage, gold if either is
    gold = (rows.groupby(["collection_id", "passage_id"], sort=False, as_index=False)
            .agg({c: ("max" if c == "is_supporting" else "first") for c in rows.columns
                  if c not in ("collection_id", "passage_id")}))
    gold = gold[rows.columns.tolist()]
    corpus = (rows.drop_duplicates(["source", "passage_id"])
              .assign(collection_id=lambda p: p["source"] + "/pooled", is_supporting=False)
              .reset_index(drop=True))
    pooled_questions = questions.assign(own_collection_id=questions["collection_id"],
                                        collection_id=questions["source"] + "/pooled")
    return pooled_questions, corpus, gold.reset_index(drop=True)


def distinct_passages(ranked: Sequence[str | Sequence[str]]) -> list[str]:
    """The distinct passages of ranked contexts (a passage id or a path of them), in order of
    first appearance."""
    seen: dict[str, None] = {}
    for entry in ranked:
        for passage in ((entry,) if isinstance(entry, str) else entry):
            seen.setdefault(passage, None)
    return list(seen)


def passage_recall(ranked: Sequence[str | Sequence[str]], gold: Iterable[str],
                   ks: Sequence[int] = HIPPORAG_KS) -> dict[int, float]:
    """HippoRAG 2's passage recall@k of one question: |gold ∩ top-k passages| / |gold|, the
    top k being the first k distinct passages of ``ranked``; ``gold`` is deduplicated."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("no gold passages: passage recall is undefined")
    order = distinct_passages(ranked)
    return {k: len(wanted & set(order[:k])) / len(wanted) for k in ks}


def gold_passages(gold: pd.DataFrame) -> dict[str, list[str]]:
    """``own collection id -> its gold passage ids`` from :func:`paragraph_corpus`'s
    ``gold``."""
    labelled = gold[gold["is_supporting"].astype(bool)]
    return {str(c): g["passage_id"].tolist()
            for c, g in labelled.groupby("collection_id", sort=False)}


def passage_recall_table(questions: pd.DataFrame, gold: Mapping[str, Sequence[str]],
                         ranked: Mapping[str, Sequence[Sequence[str]]],
                         ks: Sequence[int] = HIPPORAG_KS) -> pd.DataFrame:
    """Per question with gold passages (``gold``: own collection id -> gold ids; a question's
    own collection is ``own_collection_id``, else ``collection_id``): its passage recall at
    each k of ``ranked`` (question id -> ranked contexts; none ranked scores 0), one column
    ``recall_at_<k>`` each."""
    own = (questions["own_collection_id"] if "own_collection_id" in questions.columns
           else questions["collection_id"])
    rows = []
    for source, qid, cid in zip(questions["source"], questions["question_id"], own):
        if not gold.get(cid):
            continue
        recall = passage_recall(ranked.get(qid, []), gold[cid], ks)
        rows.append({"source": source, "question_id": qid,
                     **{f"recall_at_{k}": recall[k] for k in ks}})
    return pd.DataFrame(rows, columns=["source", "question_id",
                                       *(f"recall_at_{k}" for k in ks)])


def score_passage_recall(questions: pd.DataFrame, gold: pd.DataFrame, table: pd.DataFrame,
                         ks: Sequence[int] = HIPPORAG_KS) -> pd.DataFrame:
    """:func:`passage_recall_table` of a retrieve node's table (one method's
    ``retrieved_<name>``), ``gold`` being :func:`paragraph_corpus`'s."""
    return passage_recall_table(questions, gold_passages(gold), ranked_contexts(table), ks)
