"""TF-IDF KG (paper §3): passages are joined when they share a document keyword or title."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgp_kedro.config.base import PosInt, Params
from kgp_kedro.corpus.collection import Collection
from kgp_kedro.graphs.builders.base import BUILDERS, GraphBuilder
from kgp_kedro.graphs.features import shared_feature_edges
from kgp_kedro.graphs.linking import strip_disambiguation
from kgp_kedro.graphs.model import Edges, Graph, Nodes
from kgp_kedro.search.ranking import rank_key


def _title_phrase(title: str, analyzer) -> str:
    """A title as a matchable phrase: its disambiguation suffix ('(film)') dropped."""
    return " ".join(analyzer(strip_disambiguation(title)))


def document_texts(passages: Sequence[str], doc_index: Sequence[int], n_docs: int) -> list[str]:
    """Each document's text: its passages joined in order."""
    parts: list[list[str]] = [[] for _ in range(n_docs)]
    for passage, doc in zip(passages, doc_index):
        parts[doc].append(passage)
    return [" ".join(p) for p in parts]


def rank_tfidf_keywords(doc_texts: Sequence[str], ngram_range: tuple[int, int],
                        stop_words: str | None) -> list[list[str]]:
    """Every term of each document, best TF-IDF score first (IDF over the collection's
    documents), compared at :data:`~kgp_kedro.search.ranking.RANK_DIGITS` significant digits.
    Ties are broken alphabetically, so the ranking is deterministic."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(stop_words=stop_words, ngram_range=tuple(ngram_range))
    try:
        scores = vectorizer.fit_transform(doc_texts).tocsr()
    except ValueError:  # every document is empty or stop words only
        return [[] for _ in doc_texts]
    terms = vectorizer.get_feature_names_out()
    ranking = []
    for i in range(scores.shape[0]):
        start, end = scores.indptr[i], scores.indptr[i + 1]
        indices, data = scores.indices[start:end], scores.data[start:end]
        ranking.append([terms[indices[j]] for j in np.lexsort((terms[indices], -rank_key(data)))])
    return ranking


def extract_tfidf_keywords(doc_texts: Sequence[str], n_kw: int, ngram_range: tuple[int, int],
                           stop_words: str | None) -> list[list[str]]:
    """Top ``n_kw`` TF-IDF terms of each document (see :func:`rank_tfidf_keywords`)."""
    if n_kw < 1:
        raise ValueError(f"n_kw must be >= 1, got {n_kw}")
    return [r[:n_kw] for r in rank_tfidf_keywords(doc_texts, ngram_range, stop_words)]


def build_tfidf_graph(passages: Sequence[str], doc_index: Sequence[int],
                      doc_titles: Sequence[str], n_kw: int, ngram_range: tuple[int, int],
                      stop_words: str | None, max_evidence: int,
                      keyword_ranking: Sequence[Sequence[str]] | None = None) -> Edges:
    """TF-IDF KG construction (paper §3, "TF-IDF KG Construction").

    1. Extract the top ``n_kw`` TF-IDF keywords of each document (a document is the
       concatenation of its passages, ``doc_index[i]`` gives passage ``i``'s document).
    2. Add each document's title (without its disambiguation suffix) to the keyword set.
    3. The union over all documents is the keyword space W; two passages are joined when they
       both contain a keyword of W (weight = number of shared keywords).

    Keywords are matched with the same analyzer that extracted them (lower-cased, stop words
    removed); titles are matched as literal lower-cased phrases. ``keyword_ranking`` (from
    :func:`rank_tfidf_keywords` on :func:`document_texts`) saves re-ranking when several
    ``n_kw`` are built on one collection.
    """
    from scipy import sparse
    from sklearn.feature_extraction.text import CountVectorizer

    if n_kw < 1:
        raise ValueError(f"n_kw must be >= 1, got {n_kw}")
    if keyword_ranking is None:
        keyword_ranking = rank_tfidf_keywords(document_texts(passages, doc_index, len(doc_titles)),
                                              ngram_range, stop_words)
    keywords = sorted({kw for ranked in keyword_ranking for kw in ranked[:n_kw]})
    plain = CountVectorizer(lowercase=True).build_analyzer()
    titles = sorted({t for t in (_title_phrase(t, plain) for t in doc_titles) if t}
                    - set(keywords))

    blocks, names = [], []
    if keywords:
        kw_vec = CountVectorizer(vocabulary=keywords, binary=True, stop_words=stop_words,
                                 ngram_range=tuple(ngram_range))
        blocks.append(kw_vec.transform(passages))
        names.extend(keywords)
    if titles:
        longest = max(len(t.split()) for t in titles)
        title_vec = CountVectorizer(vocabulary=titles, binary=True, ngram_range=(1, longest))
        blocks.append(title_vec.transform(passages))
        names.extend(titles)
    incidence = sparse.hstack(blocks).tocsr() if blocks else sparse.csr_matrix((len(passages), 0))
    return shared_feature_edges(incidence, names, "keyword", max_evidence)


@BUILDERS.register("tfidf")
class TfidfBuilder(GraphBuilder):
    """TF-IDF KG: passages joined by a shared document keyword or title (§3)."""

    class Params(Params):
        n_kw: PosInt = 10                            # keywords per document (swept in Fig. 5)
        ngram_range: tuple[PosInt, PosInt] = (1, 1)
        stop_words: str | None = "english"
        max_evidence: PosInt = 3                     # shared keywords kept as an edge's evidence

    def build(self, collection: Collection, setting: Params) -> Graph:
        # one TF-IDF ranking per collection, shared by every n_kw of a sweep
        ranking = collection.memo(("tfidf keywords", setting.ngram_range, setting.stop_words),
                                  lambda: rank_tfidf_keywords(
                                      document_texts(collection.texts, collection.doc_index,
                                                     len(collection.doc_titles)),
                                      setting.ngram_range, setting.stop_words))
        edges = build_tfidf_graph(collection.texts, collection.doc_index, collection.doc_titles,
                                  setting.n_kw, setting.ngram_range, setting.stop_words,
                                  setting.max_evidence, keyword_ranking=ranking)
        return Graph(Nodes.of_passages(collection.passage_ids, collection.texts), edges)
