"""HOLMES' auxiliary schema induced by an LLM (Appendix A.5), the paper's four steps:

1. A.5.1 each in-domain multi-hop question is decomposed into single-hop questions (one LLM
   call per question; optional: ``decompose: false`` clusters the questions themselves);
2. A.5.2 the (sub-)questions' embeddings are clustered with K-Means, the number of clusters k
   chosen over ``k_min..k_max`` by the combined clustering evaluation score (CCES): the mean,
   equal weights, of the silhouette, the inverted Davies-Bouldin and the Calinski-Harabasz
   scores, each min-max normalised to [0, 1] over the k tried;
3. A.5.3 per cluster, the question nearest its centroid and the five next nearest are given to
   the LLM, which names the cluster's latent question categories (one call per cluster);
4. A.5.4 one last call turns all the categories into a graph schema: a list of
   ``("Entity type", "relation", "Entity type")`` triples.

The prompts are the paper's, verbatim (bold markers dropped; the question or questions are
appended where the paper leaves the slot implicit). The triples become the table
:func:`kgp_kedro.holmes.schema.mine_auxiliary_schema` writes (``subject_type``, ``relation``,
``object_type``, ``count``), with types mapped to the coarse types the KG's facts carry
(:func:`coarse_type`, as the A.4.3 question parser does) so that the type match of pruning
compares them, plus ``induced_from``: the reply's triples, as written, that gave the row.
"""
from __future__ import annotations

import ast
import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from kgp_kedro.holmes.schema import AUXILIARY_MINERS, SCHEMA_COLUMNS, AuxiliaryMiner
from kgp_kedro.holmes.types import coarse_type
from kgp_kedro.prompts.holmes import category_prompt, decompose_prompt, schema_prompt

logger = logging.getLogger(__name__)

INDUCED_COLUMNS = [*SCHEMA_COLUMNS, "induced_from"]


N_NEAREST = 5   # A.5.3: the centroid question and the five questions closest to the centroid


_NUMBERED = re.compile(r"^\s*(?:[-*•]\s*)?(?:\(?\d+[.):]|[a-z][.)]|[-*•])\s*(.+)$")
_BULLET = re.compile(r"^\s*(?:[-*•]+|\(?\d+[.):]|\(?[ivx]+[.)])\s*")


def parse_subquestions(reply: str, question: str) -> list[str]:
    """The single-hop questions of an A.5.1 reply: its numbered or bulleted lines (those after
    its last 'Output:' when it echoes the chain of thought; headers ending in ':' left out),
    else its lines ending in '?'; the question itself when there is none."""
    at = reply.lower().rfind("output:")
    body = reply[at + len("output:"):] if at >= 0 else reply
    lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
    found = [m.group(1).strip() for ln in lines if (m := _NUMBERED.match(ln))]
    found = [q for q in found if not q.endswith(":")]
    if not found:
        found = [ln for ln in lines if ln.endswith("?") and not ln.lower().startswith(
            "question:")]
    return list(dict.fromkeys(found)) or [question]


def parse_categories(reply: str) -> list[str]:
    """The latent question categories of an A.5.3 reply: its lines, bullets stripped."""
    cats = [_BULLET.sub("", ln).strip().strip("*").strip() for ln in reply.splitlines()]
    return [c for c in cats if c]


_GROUP = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
_QUOTES = "\"'`“”‘’"
_DASH = re.compile(r"\s+(?:-+>?|–|—|→)\s+")


def parse_schema_triples(reply: str) -> list[tuple[str, str, str]]:
    """The ``(entity type, relation, entity type)`` triples of an A.5.4 reply, in order, each
    once: every innermost ``(...)`` or ``[...]`` group that reads as three non-empty items
    (a Python tuple of strings, or three comma-separated words with or without quotes); text
    around the list is ignored, and a group with a comma that is no triple is skipped (their
    number is logged). A reply with no such group is read as lines ``type - relation - type``
    (instruction iii's wording; bullets, quotes and backticks stripped)."""
    triples: list[tuple[str, str, str]] = []
    skipped = 0
    for match in _GROUP.finditer(reply):
        body = match.group(1)
        if "," not in body:
            continue
        items = None
        try:
            value = ast.literal_eval(f"({body},)")
            if all(isinstance(v, str) for v in value):
                items = list(value)
        except (SyntaxError, ValueError, MemoryError, RecursionError, TypeError):
            pass
        if items is None:
            items = body.split(",")
        items = [i.strip().strip(_QUOTES).strip() for i in items]
        items = [i for i in items if i] if len(items) == 4 and not items[-1] else items
        if len(items) != 3 or not all(items):
            skipped += 1
            continue
        triple = (items[0], items[1], items[2])
        if triple not in triples:
            triples.append(triple)
    if not triples:   # no list: lines "entity type - relation type - entity type" (iii.)
        skipped = 0
        for line in reply.splitlines():
            parts = [p.strip().strip(_QUOTES).strip() for p in _DASH.split(
                _BULLET.sub("", line).strip())]
            if len(parts) == 1:
                continue
            if len(parts) != 3 or not all(parts):
                skipped += 1
            elif (triple := (parts[0], parts[1], parts[2])) not in triples:
                triples.append(triple)
    if skipped:
        logger.info("schema induction: %d malformed item(s) of the reply skipped", skipped)
    return triples


def schema_table(triples: Sequence[tuple[str, str, str]]) -> pd.DataFrame:
    """The auxiliary schema table of parsed triples: types mapped to coarse types, relations
    lower-cased (underscores as spaces); ``count`` is how many reply triples gave the row,
    ``induced_from`` those triples as ``type | relation | type``; most frequent first."""
    counts: Counter = Counter()
    sources: dict[tuple[str, str, str], list[str]] = {}
    for s, r, o in triples:
        relation = " ".join(r.replace("_", " ").lower().split())
        key = (coarse_type(s), relation, coarse_type(o))
        counts[key] += 1
        sources.setdefault(key, []).append(f"{s} | {r} | {o}")
    rows = [(*k, c, "; ".join(sources[k])) for k, c in counts.items()]
    table = pd.DataFrame(rows, columns=INDUCED_COLUMNS)
    table["count"] = table["count"].astype("int64")
    return table.sort_values(["count", "relation"], ascending=[False, True],
                             kind="stable").reset_index(drop=True)


def clustering_scores(vectors: np.ndarray, ks: Sequence[int], seed: int) -> pd.DataFrame:
    """K-Means (``seed``, 10 starts) for each k of ``ks``, with its raw silhouette,
    Davies-Bouldin and Calinski-Harabasz scores; ``labels`` and ``centroids`` per row."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import (calinski_harabasz_score, davies_bouldin_score,
                                 silhouette_score)

    rows = []
    for k in ks:
        km = KMeans(n_clusters=int(k), random_state=seed, n_init=10).fit(vectors)
        labels = km.labels_
        if len(set(labels)) < 2:   # duplicated vectors: fewer distinct clusters than k
            continue
        rows.append({"k": int(k), "silhouette": float(silhouette_score(vectors, labels)),
                     "davies_bouldin": float(davies_bouldin_score(vectors, labels)),
                     "calinski_harabasz": float(calinski_harabasz_score(vectors, labels)),
                     "labels": labels, "centroids": km.cluster_centers_})
    return pd.DataFrame(rows)


def _minmax(values: pd.Series) -> pd.Series:
    span = values.max() - values.min()
    if not np.isfinite(span) or span == 0:
        return pd.Series(1.0, index=values.index)   # one k, or all alike: no preference
    return (values - values.min()) / span


def cces(scores: pd.DataFrame) -> pd.Series:
    """The combined clustering evaluation score of each row (A.5.2): the equal-weight mean of
    the min-max normalised silhouette, inverted Davies-Bouldin (lower is better, so
    ``1 - normalised``) and Calinski-Harabasz scores."""
    s = _minmax(scores["silhouette"])
    db = 1.0 - _minmax(scores["davies_bouldin"])
    if scores["davies_bouldin"].nunique() <= 1:
        db = pd.Series(1.0, index=scores.index)
    ch = _minmax(scores["calinski_harabasz"])
    return (s + db + ch) / 3.0


@dataclass(frozen=True)
class Clustering:
    k: int
    labels: np.ndarray
    centroids: np.ndarray
    scores: pd.DataFrame   # k, silhouette, davies_bouldin, calinski_harabasz, cces


def choose_clusters(vectors: np.ndarray, k_min: int, k_max: int, seed: int) -> Clustering:
    """K-Means with the k of ``k_min..k_max`` (capped at n - 1, the silhouette's bound) of the
    highest CCES, the smallest such k on a tie. Fewer than 3 distinct vectors, or no k left:
    one cluster of all."""
    vectors = np.asarray(vectors, dtype=np.float64)
    n = len(vectors)
    ks = list(range(k_min, min(k_max, n - 1) + 1))
    scores = clustering_scores(vectors, ks, seed) if ks else pd.DataFrame()
    if scores.empty:
        centroid = vectors.mean(axis=0, keepdims=True) if n else np.zeros((0, 0))
        return Clustering(1, np.zeros(n, dtype=int), centroid,
                          pd.DataFrame(columns=["k", "silhouette", "davies_bouldin",
                                                "calinski_harabasz", "cces"]))
    scores["cces"] = cces(scores)
    best = int(scores["cces"].to_numpy().argmax())   # first maximum: the smallest k
    row = scores.iloc[best]
    table = scores.drop(columns=["labels", "centroids"]).reset_index(drop=True)
    return Clustering(int(row["k"]), np.asarray(row["labels"]), np.asarray(row["centroids"]),
                      table)


def representatives(vectors: np.ndarray, labels: np.ndarray, centroids: np.ndarray,
                    n_nearest: int = N_NEAREST) -> list[list[int]]:
    """Per cluster (in label order), the indices of its centroid question (the member nearest
    the centroid, Euclidean distance as K-Means) and of the ``n_nearest`` next nearest members,
    nearest first (ties: lower index first); empty clusters are left out."""
    vectors = np.asarray(vectors, dtype=np.float64)
    out = []
    for c, centroid in enumerate(np.asarray(centroids, dtype=np.float64)):
        members = np.flatnonzero(np.asarray(labels) == c)
        if not len(members):
            continue
        dist = np.linalg.norm(vectors[members] - centroid, axis=1)
        order = np.lexsort((members, dist))
        out.append([int(members[i]) for i in order[:1 + n_nearest]])
    return out


@dataclass(frozen=True)
class Induction:
    table: pd.DataFrame        # INDUCED_COLUMNS
    calls: int                 # LLM requests: decompositions + clusters + 1
    subquestions: list[str]
    clustering: Clustering
    categories: list[str]
    reply: str                 # the A.5.4 reply


def induce_auxiliary_schema(questions: Sequence[str], llm,
                            embed: Callable[[list[str]], np.ndarray], *, decompose: bool = True,
                            k_min: int = 2, k_max: int = 20, seed: int = 0,
                            step_max_tokens: int = 256, max_tokens: int = 1024) -> Induction:
    """The four steps of A.5 on ``questions`` with the client ``llm`` (``complete`` /
    ``complete_many``, :mod:`kgp_kedro.llm`) and the question encoder ``embed``."""
    questions = list(questions)
    calls = 0
    if decompose:
        replies = llm.complete_many([[{"role": "user", "content": decompose_prompt(q)}]
                                     for q in questions], max_tokens=step_max_tokens,
                                    desc="A.5.1 decomposition")
        calls += len(replies)
        subs = [s for q, r in zip(questions, replies) for s in parse_subquestions(r.text, q)]
    else:
        subs = questions
    subs = list(dict.fromkeys(s.strip() for s in subs if s.strip()))
    if not subs:
        raise ValueError("holmes.auxiliary: no questions to induce a schema from")
    vectors = np.asarray(embed(subs))
    clustering = choose_clusters(vectors, k_min, k_max, seed)
    logger.info("schema induction: %d single-hop questions in %d clusters (CCES over k=%d..%d)",
                len(subs), clustering.k, k_min, k_max)
    groups = representatives(vectors, clustering.labels, clustering.centroids)
    replies = llm.complete_many([[{"role": "user", "content": category_prompt(
        [subs[i] for i in g])}] for g in groups],
        max_tokens=step_max_tokens, desc="A.5.3 categories")
    calls += len(replies)
    categories = list(dict.fromkeys(c for r in replies for c in parse_categories(r.text)))
    reply = llm.complete([{"role": "user", "content": schema_prompt(categories)}],
                         max_tokens=max_tokens).text
    calls += 1
    triples = parse_schema_triples(reply)
    table = schema_table(triples)
    logger.info("schema induction: %d triples in the reply, %d schema rows, %d LLM calls",
                len(triples), len(table), calls)
    return Induction(table, calls, subs, clustering, categories, reply)


@AUXILIARY_MINERS.register("llm")
class InductionMiner(AuxiliaryMiner):
    """A.5's four steps through the LLM (:func:`induce_auxiliary_schema`)."""

    needs_models = True

    def mine(self, questions: Sequence[str], aux, spacy_model: str, llm=None,
             embed: Callable[[list[str]], np.ndarray] | None = None) -> pd.DataFrame:
        return induce_auxiliary_schema(questions, llm, embed, decompose=aux.decompose,
                                       k_min=aux.k_min, k_max=aux.k_max, seed=aux.seed,
                                       step_max_tokens=aux.step_max_tokens,
                                       max_tokens=aux.max_tokens).table
