"""TF-IDF KG (paper §3) on a hand-checkable collection and on real records."""
from __future__ import annotations

import numpy as np

from kgp_kedro.graphs import Adjacency, build_tfidf_graph, edge_frame, extract_tfidf_keywords

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


def _pairs(edges):
    return {(int(s), int(d)) for s, d in zip(edges.src, edges.dst)}


def test_keywords_are_the_top_tfidf_terms_of_each_document():
    docs = [" ".join(p for p, d in zip(PASSAGES, DOC_INDEX) if d == k) for k in range(3)]
    kws = extract_tfidf_keywords(docs, n_kw=1)
    # 'clausen' occurs twice in doc 0 and nowhere else; 'sitcom' twice in doc 1
    assert kws[0] == ["clausen"] and kws[1] == ["sitcom"]
    assert kws[2] == ["basalt"]  # all of doc 2's terms tie; the alphabetical first wins


def test_passages_sharing_a_keyword_or_title_are_joined():
    edges = build_tfidf_graph(PASSAGES, DOC_INDEX, TITLES, n_kw=1)
    # W = {clausen, sitcom, basalt} + titles {alf clausen, the simpsons, basalt (rock)->basalt}
    # clausen: 0-1; sitcom: 2-3; 'the simpsons' phrase: 0, 2 (passage 1 says 'Simpsons' only)
    assert _pairs(edges) == {(0, 1), (2, 3), (0, 2)}
    assert not edges.directed
    evidence = dict(zip(zip(edges.src.tolist(), edges.dst.tolist()), edges.evidence))
    assert evidence[(0, 2)] == "the simpsons"
    assert evidence[(0, 1)] == "clausen"


def test_more_keywords_make_a_denser_graph():
    few = build_tfidf_graph(PASSAGES, DOC_INDEX, TITLES, n_kw=1)
    many = build_tfidf_graph(PASSAGES, DOC_INDEX, TITLES, n_kw=5)
    assert _pairs(few) <= _pairs(many)
    assert (1, 2) in _pairs(many)  # 'simpsons' becomes a keyword of doc 0


def test_tfidf_graph_on_a_real_collection(hotpot_passages):
    questions, passages = hotpot_passages
    cid = questions["collection_id"].iloc[0]
    ps = passages[passages["collection_id"] == cid]
    docs = list(dict.fromkeys(ps["doc_id"]))
    doc_index = ps["doc_id"].map({d: i for i, d in enumerate(docs)}).to_numpy()
    titles = ps.drop_duplicates("doc_id")["title"].tolist()
    edges = build_tfidf_graph(ps["text"].tolist(), doc_index, titles, n_kw=10)
    frame = edge_frame(edges, ps["passage_id"].tolist(), cid, "n_kw=10")
    assert len(frame) > 0 and (frame["src"] < frame["dst"]).all()
    # every edge's evidence is a term present in both passages
    text = dict(zip(ps["passage_id"], ps["text"].str.lower()))
    for row in frame.head(50).itertuples():
        first = row.evidence.split("; ")[0]
        assert first.split()[0] in text[row.src] and first.split()[0] in text[row.dst]
    adj = Adjacency.from_edges(ps["passage_id"].tolist(), frame)
    assert np.isclose(adj.avg_neighbors(), 2 * len(frame) / len(ps))
