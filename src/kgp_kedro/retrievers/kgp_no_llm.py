"""KGP w/o LLM (the KGP reference code's ``KG_retriever``, Table 2's LLM-free KG row): rounds of
TF-IDF ranking over the union of the last round's passages' KG neighbours, on a shrinking
schedule.

What it does, exactly (``schedule`` defaults to the reference's ``retrieve_num``
``[10, 5, 5, 5, 3, 2, 2, 2, 2, 2, 2]``):

1. The candidates start as every passage of the collection.
2. Round ``t`` ranks the candidates by TF-IDF cosine to the question, the vectorizer fitted
   on the candidates' texts alone (the reference's ``tf_idf``: ``fit_transform`` on the
   candidates, ``transform`` of the question), and takes the best ``schedule[t]`` of them
   (ties to the earlier candidate; the reference's reversed ``argsort`` gives them to the
   later one), up to what is left of the budget.
3. The next round's candidates are the union of the KG neighbours of **all** the passages this
   round took (in order of first appearance), less every passage retrieved so far.
4. It stops when the budget is spent, when a round adds nothing (no candidate left, or no
   word to fit), or when the schedule runs out.

The passages come in retrieval order; a passage taken in round ``t > 0`` records the path from
the first passage of round ``t - 1`` it neighbours, its ``hop`` is ``t`` and its score its
round's TF-IDF cosine. Every passage is retrieved once, so the budget counts distinct
passages (unlike ``kgp`` in ``mode: paper``, which counts reasoning paths).
"""
from __future__ import annotations

from pydantic import Field

from kgp_kedro.config.base import Params, PosInt
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.retrievers.base import RETRIEVERS, Requirements, Retriever, Visit
from kgp_kedro.search.ranking import top_k
from kgp_kedro.search.tfidf import TfidfIndex

REFERENCE_SCHEDULE = [10, 5, 5, 5, 3, 2, 2, 2, 2, 2, 2]   # KG_retriever's retrieve_num


@RETRIEVERS.register("kgp_no_llm")
class KgpNoLlm(Retriever):
    class Params(Params):
        schedule: list[PosInt] = Field(default_factory=lambda: list(REFERENCE_SCHEDULE),
                                       min_length=1)

    needs = Requirements(graph=True)

    def search(self, question: str, collection: Collection) -> list[Visit]:
        graph = collection.graph
        if graph is None:
            raise ValueError("KGP w/o LLM needs the collection's KG")
        text_of = collection.text_of
        candidates = list(collection.passage_ids)
        parents: dict[str, str] = {}      # a candidate -> the first last-round pick it neighbours
        paths: dict[str, tuple[str, ...]] = {}
        visits: list[Visit] = []
        for hop, take in enumerate(self.params.schedule):
            if len(visits) >= self.budget or not candidates:
                break
            index = TfidfIndex([text_of[c] for c in candidates])
            if not len(index.rows.words):   # no word to fit: the reference's tf_idf gives []
                break
            order, scores = top_k(index.scores(question), min(take, len(candidates)))
            picks = [candidates[j] for j in order]
            for pid, score in list(zip(picks, scores))[:self.budget - len(visits)]:
                path = (*paths[parents[pid]], pid) if pid in parents else (pid,)
                paths[pid] = path
                visits.append(Visit(pid, path, hop, float(score)))
            parents = {}
            for pick in picks:
                for n in graph.neighbors(pick, kind="passage"):
                    if n not in paths and n not in parents:
                        parents[n] = pick
            candidates = list(parents)
        return visits
