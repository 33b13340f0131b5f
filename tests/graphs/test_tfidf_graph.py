"""TF-IDF KG (paper §3) on a hand-checkable collection and on real records."""
from __future__ import annotations

import numpy as np

from kgp_kedro.corpus.collection import iter_collections
from kgp_kedro.graphs import BUILDERS, Graph
from kgp_kedro.graphs.builders.tfidf import (TfidfBuilder, build_tfidf_graph, document_texts,
                                             extract_tfidf_keywords, rank_tfidf_keywords)

# three documents, five passages; keyword extraction can be followed by hand
PASSAGES = [
    "Alf Clausen composed music for the Simpsons.",       # doc 0 "Alf Clausen"
    "Clausen scored many Simpsons episodes.",             # doc 0
    "The Simpsons is an animated sitcom.",                # doc 1 "The Simpsons"
    "Matt Groening created the sitcom.",                  # doc 1
    "Basalt is volcanic rock.",                           # doc 2 "Basalt (rock)"
]
DOC_INDEX = [0, 0, 1, 1, 2]
TITLES = ["Alf Clausen", "The Simpsons", "Basalt (rock)"]
P = TfidfBuilder.Params()  # the paper's defaults: unigrams, English stop words, 3 evidence terms


def _pairs(edges):
    return {(int(s), int(d)) for s, d in zip(edges.src, edges.dst)}


def _graph(n_kw):
    return build_tfidf_graph(PASSAGES, DOC_INDEX, TITLES, n_kw, P.ngram_range, P.stop_words,
                             P.max_evidence)


def test_keywords_are_the_top_tfidf_terms_of_each_document():
    docs = [" ".join(p for p, d in zip(PASSAGES, DOC_INDEX) if d == k) for k in range(3)]
    assert document_texts(PASSAGES, DOC_INDEX, 3) == docs
    kws = extract_tfidf_keywords(docs, 1, P.ngram_range, P.stop_words)
    # 'clausen' occurs twice in doc 0 and nowhere else; 'sitcom' twice in doc 1
    assert kws[0] == ["clausen"] and kws[1] == ["sitcom"]
    assert kws[2] == ["basalt"]  # all of doc 2's terms tie; the alphabetical first wins
    # the ranking behind it: doc 2's three terms, tied, alphabetically
    assert rank_tfidf_keywords(docs, P.ngram_range, P.stop_words)[2] == ["basalt", "rock",
                                                                         "volcanic"]


def test_passages_sharing_a_keyword_or_title_are_joined():
    edges = _graph(1)
    # W = {clausen, sitcom, basalt} + titles {alf clausen, the simpsons, basalt (rock)->basalt}
    # clausen: 0-1; sitcom: 2-3; 'the simpsons' phrase: 0, 2 (passage 1 says 'Simpsons' only)
    assert _pairs(edges) == {(0, 1), (2, 3), (0, 2)}
    assert not any(edges.directed) and set(edges.relation) == {"keyword"}
    evidence = dict(zip(zip(edges.src.tolist(), edges.dst.tolist()), edges.evidence))
    assert evidence[(0, 2)] == "the simpsons"
    assert evidence[(0, 1)] == "clausen"


def test_more_keywords_make_a_denser_graph():
    few = _graph(1)
    many = _graph(5)
    assert _pairs(few) <= _pairs(many)
    assert (1, 2) in _pairs(many)  # 'simpsons' becomes a keyword of doc 0


def test_the_builder_is_registered_and_builds_the_same_graph():
    assert BUILDERS.get("tfidf") is TfidfBuilder
    from kgp_kedro.corpus.collection import Collection

    collection = Collection("c", [f"p{i}" for i in range(5)], PASSAGES,
                            ["d0", "d0", "d1", "d1", "d2"], [TITLES[d] for d in DOC_INDEX])
    assert collection.doc_index.tolist() == DOC_INDEX and collection.doc_titles == TITLES
    builder = TfidfBuilder(P)
    graph = builder.build(collection, TfidfBuilder.Params(n_kw=1))
    assert _pairs(graph.edges) == _pairs(_graph(1))
    assert graph.neighbors("p0") == ["p1", "p2"] and graph.neighbors("p4") == []
    # a second density setting on the same collection reuses its keyword ranking
    assert _pairs(builder.build(collection, TfidfBuilder.Params(n_kw=5)).edges) == \
        _pairs(_graph(5))


def test_tfidf_graph_on_a_real_collection(hotpot_passages):
    questions, passages = hotpot_passages
    cid = questions["collection_id"].iloc[0]
    ps = passages[passages["collection_id"] == cid]
    collection = next(c for c in iter_collections(passages) if c.collection_id == cid)
    setting = TfidfBuilder.Params(n_kw=10)
    graph = TfidfBuilder(setting).build(collection, setting)
    _, frame = graph.tables(cid, "n_kw=10")
    assert len(frame) > 0 and (frame["setting"] == "n_kw=10").all()
    # undirected edges are stored once, the earlier passage first
    position = {p: i for i, p in enumerate(ps["passage_id"])}
    assert (frame["src"].map(position).astype(int) < frame["dst"].map(position).astype(int)).all()
    # the same edges as the function on the collection's documents
    docs = list(dict.fromkeys(ps["doc_id"]))
    doc_index = ps["doc_id"].map({d: i for i, d in enumerate(docs)}).to_numpy()
    titles = ps.drop_duplicates("doc_id")["title"].tolist()
    direct = build_tfidf_graph(ps["text"].tolist(), doc_index, titles, 10, P.ngram_range,
                               P.stop_words, P.max_evidence)
    assert _pairs(direct) == _pairs(graph.edges)
    # every edge's evidence is a term present in both passages
    text = dict(zip(ps["passage_id"], ps["text"].str.lower()))
    for row in frame.head(50).itertuples():
        first = row.evidence.split("; ")[0]
        assert first.split()[0] in text[row.src] and first.split()[0] in text[row.dst]
    adj = Graph.from_tables(graph.tables(cid, "n_kw=10")[0], frame)
    assert np.isclose(adj.avg_neighbors(), 2 * len(frame) / len(ps))
