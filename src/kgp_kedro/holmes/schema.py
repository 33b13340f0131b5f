"""The query-aligned graph schema (HOLMES §4.2.2): the question's own schema triples plus the
auxiliary schema's triples whose relations are similar to the question's (cosine similarity of
relation embeddings).

The auxiliary schema (Appendix A.5) is mined once from in-domain questions. The paper
decomposes 10,000 training questions with an LLM, clusters them and asks GPT-4 for a schema;
here each question's relations and types are read off its parse (:func:`parse_question`),
and the distinct triples are kept with how many questions gave them (a triple given by fewer
than ``min_count`` questions is dropped).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from kgp_kedro.holmes.question import SchemaTriple, parse_question
from kgp_kedro.plumbing.progress import track
from kgp_kedro.plumbing.registry import Registry
from kgp_kedro.search.ranking import rank_key, ranked

SCHEMA_COLUMNS = ["subject_type", "relation", "object_type", "count"]


def mine_auxiliary_schema(questions: Sequence[str], spacy_model: str,
                          min_count: int) -> pd.DataFrame:
    """Distinct ``(subject type, relation, object type)`` of the questions' parses, with the
    number of questions that gave each, most frequent first."""
    counts: Counter = Counter()
    for q in track(questions, "auxiliary schema"):
        for t in set(parse_question(q, (), spacy_model).schema):
            counts[(t.subject_type, t.relation, t.object_type)] += 1
    rows = [(*k, c) for k, c in counts.items() if c >= min_count]
    table = pd.DataFrame(rows, columns=SCHEMA_COLUMNS)
    return table.sort_values(["count", "relation"], ascending=[False, True],
                             kind="stable").reset_index(drop=True)


def select_auxiliary(question: Sequence[SchemaTriple], auxiliary: pd.DataFrame,
                     embed: Callable[[list[str]], np.ndarray], per_relation: int,
                     min_similarity: float, auxiliary_vectors: np.ndarray | None = None
                     ) -> list[tuple[SchemaTriple, float]]:
    """For each relation of the question's schema, the ``per_relation`` auxiliary triples
    whose relations are most similar to it (cosine similarity of the normalised embeddings
    ``embed`` gives), at least ``min_similarity``: a question unlike every auxiliary relation
    keeps its own schema only (§4.2.2). Each triple once, with its best similarity.
    ``auxiliary_vectors``: ``embed`` of the auxiliary relations, when already computed (one
    encoding for every question of a run)."""
    if not len(question) or auxiliary.empty:
        return []
    q_vecs = embed([t.relation for t in question])
    a_vecs = (embed(auxiliary["relation"].tolist()) if auxiliary_vectors is None
              else auxiliary_vectors)
    sims = q_vecs @ a_vecs.T
    own = {(t.subject_type, t.relation, t.object_type) for t in question}
    best: dict[int, float] = {}
    for row in sims:
        order = ranked(row)
        for j in order[:per_relation]:
            if row[j] >= min_similarity:
                best[int(j)] = max(best.get(int(j), -1.0), float(row[j]))
    chosen = []
    for j, sim in sorted(best.items(), key=lambda kv: (-float(rank_key(kv[1])), kv[0])):
        r = auxiliary.iloc[j]
        key = (r["subject_type"], r["relation"], r["object_type"])
        if key not in own:
            chosen.append((SchemaTriple(*key, origin="auxiliary"), sim))
    return chosen


class AuxiliaryMiner:
    """How ``holmes.auxiliary.method`` mines the auxiliary schema from questions: :meth:`mine`
    gives the schema table; ``needs_models`` miners are handed the LLM client and the question
    embedder (``holmes.encoder``), the others None."""

    name: str
    needs_models = False

    def mine(self, questions: Sequence[str], aux, spacy_model: str, llm=None,
             embed: Callable[[list[str]], np.ndarray] | None = None) -> pd.DataFrame:
        raise NotImplementedError


AUXILIARY_MINERS: Registry[AuxiliaryMiner] = Registry("HOLMES auxiliary schema method",
                                                      "kgp_kedro.holmes")


@AUXILIARY_MINERS.register("parse")
class ParseMiner(AuxiliaryMiner):
    """Offline: relations and types off each question's parse (:func:`mine_auxiliary_schema`)."""

    def mine(self, questions: Sequence[str], aux, spacy_model: str, llm=None,
             embed: Callable[[list[str]], np.ndarray] | None = None) -> pd.DataFrame:
        return mine_auxiliary_schema(questions, spacy_model, aux.min_count)
