"""A documents folder asked question after question with everything loaded once (the
notebook's session, notebooks/ask.ipynb): the run's passages, KG and vectors, the retriever
with its per-collection work (the entity walk's entity–passage graph, a faiss index) kept
between questions, the encoder and the reader loaded once. A further question costs its
retrieval and the reader's call, as in the ask stage (the same retriever, the same
:func:`~kgp_kedro.asking.answers.answer_with_citations`)."""
from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd

from kgp_kedro.asking.answers import AskOptions, answer_with_citations
from kgp_kedro.corpus.schema import QUESTION_COLUMNS
from kgp_kedro.graphs.build import GraphTables
from kgp_kedro.llm import LLMClient
from kgp_kedro.models.embeddings import EmbeddingLookup
from kgp_kedro.retrievers.base import Resources
from kgp_kedro.retrievers.run import CollectionSource, run_retriever


@dataclass(frozen=True)
class Asked:
    """One question's answer row (:data:`~kgp_kedro.asking.answers.ASK_COLUMNS`), its
    retrieved rows (``retrieved_<method>``'s columns) and the wall seconds of each part."""

    answer: pd.DataFrame
    retrieved: pd.DataFrame
    retrieval_seconds: float
    answer_seconds: float


class AskSession:
    """One folder's collection, asked repeatedly (module docstring). ``method`` is a parsed
    ``retrieve.methods`` entry (``name``, ``retriever``, ``params``, ``requirements``, as
    :func:`kgp_kedro.pipelines.parameter_tree.parse_method` gives); ``nodes``/``edges`` and
    ``setting`` the KG the method walks or routes over, ``embeddings`` the passage vectors of
    ``encoder`` (a loaded :class:`~kgp_kedro.models.encoders.SentenceEncoder`), each where the
    method requires it; ``client`` the reader; ``options`` the ask stage's."""

    def __init__(self, passages: pd.DataFrame, method, budget: int, client: LLMClient,
                 options: AskOptions, *, nodes: pd.DataFrame | None = None, edges=None,
                 setting: str | None = None, embeddings: pd.DataFrame | None = None,
                 encoder=None) -> None:
        if passages["collection_id"].nunique() != 1:
            raise ValueError(f"an ask session asks one folder's collection; the passages hold "
                             f"{passages['collection_id'].nunique()} collections")
        needs = method.requirements
        self.passages, self.method, self.client = passages, method, client
        self.options = options
        self.retriever = method.retriever(method.params, Resources(
            int(budget), encoder, client if needs.llm else None))
        graphs = GraphTables(nodes, edges) if needs.graph else None
        vectors = EmbeddingLookup(embeddings, encoder.name) if needs.embeddings else None
        self.collections = CollectionSource(passages, graphs, setting, vectors)
        first = passages.iloc[0]
        self._source, self._collection = first["source"], first["collection_id"]
        self._asked = 0

    def ask(self, question: str, question_id: str | None = None) -> Asked:
        """``question``'s cited answer over the method's contexts (``question_id``: ``new``,
        ``new2``, ... by default); the question stripped of surrounding blanks, as the ingest
        stage reads a run's questions."""
        question = question.strip()
        self._asked += 1
        qid = question_id or ("new" if self._asked == 1 else f"new{self._asked}")
        asked = pd.DataFrame([{"source": self._source, "dataset": "documents", "question_id": qid,
                               "collection_id": self._collection, "question": question,
                               "answer": "", "answers": [], "qtype": None, "n_hops": None,
                               "meta": "{}"}], columns=QUESTION_COLUMNS)
        start = time.perf_counter()
        found = run_retriever(self.retriever, asked, self.collections, self.method.name)
        middle = time.perf_counter()
        answer = answer_with_citations(asked, found, self.passages, self.client,
                                       self.method.name, self.options)
        return Asked(answer, found, middle - start, time.perf_counter() - middle)
