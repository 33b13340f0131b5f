"""The structural layer of a KG (paper §3: "we add pages and tables as structural nodes ...
the feature of page nodes is the page number and we add directed edges from it to
sentence/table nodes in that page"), added on top of any passage KG variant whose collection
has passages read from files (a ``page`` or a ``kind`` other than passage).

On top of the builder's graph it adds:

- a ``document`` node per file (``node_id`` = the doc id, text = its title);
- a ``page`` node per page of a paged file (``<doc_id>@page<n>``, text ``Page n``);
- edges ``contains`` (directed): document -> page -> passage / table / heading in that page
  (an unpaged file: document -> its passages), each with qualifier ``order`` (its rank in
  reading order); ``next`` (directed): each page to the following one.

A table passage's node becomes kind ``table`` (its text is the table's markdown). The passage
nodes and the builder's edges are kept as they are, and no edge leads from a passage to a
structural node, so Algorithm 1 (which walks passage neighbours) is unchanged.
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd

from kgp_kedro.graphs.model import Edges, Graph, Nodes


def page_node_id(doc_id: str, page: int) -> str:
    return f"{doc_id}@page{int(page)}"


def has_structure(passages: pd.DataFrame) -> bool:
    """Whether these passages come from files with a layout (a page, a table, a heading)."""
    if "page" not in passages.columns:
        return False
    return bool(passages["page"].notna().any()
                or (passages["kind"].fillna("passage") != "passage").any())


def add_structure(graph: Graph, passages: pd.DataFrame) -> Graph:
    """``graph`` (one collection's passage KG) with the structural layer of its ``passages``
    (that collection's rows of the passages table); unchanged when they have none."""
    if not has_structure(passages):
        return graph
    nodes = graph.nodes
    ids, kinds = list(nodes.ids), list(nodes.kinds)
    texts, pids = list(nodes.texts), list(nodes.passage_ids)
    attributes = list(nodes.attributes) or ["{}"] * len(ids)
    position = {n: i for i, n in enumerate(ids)}
    src: list[int] = []
    dst: list[int] = []
    relation: list[str] = []
    qualifiers: list[str] = []

    def node(node_id: str, kind: str, text: str, attrs: dict) -> int:
        if node_id not in position:
            position[node_id] = len(ids)
            ids.append(node_id), kinds.append(kind), texts.append(text), pids.append(None)
            attributes.append(json.dumps(attrs))
        return position[node_id]

    def edge(u: int, v: int, rel: str, quals: dict) -> None:
        src.append(u), dst.append(v), relation.append(rel), qualifiers.append(json.dumps(quals))

    for doc_id, rows in passages.groupby("doc_id", sort=False):
        rows = rows.sort_values("order", kind="stable")
        paged = rows["page"].notna()
        doc = node(str(doc_id), "document", str(rows["title"].iloc[0]),
                   {"pages": int(rows["page"].max()) if paged.any() else None})
        pages: list[int] = []
        for rank, row in enumerate(rows.itertuples(index=False)):
            at = position.get(row.passage_id)
            if at is None:
                continue
            kind = row.kind if isinstance(row.kind, str) else "passage"
            page = None if pd.isna(row.page) else int(row.page)
            if kind == "table":
                kinds[at] = "table"
            attrs = json.loads(attributes[at] or "{}")
            attrs.update({"doc_id": str(doc_id), "page": page, "order": rank,
                          "unit": kind})
            attributes[at] = json.dumps(attrs)
            parent = doc
            if page is not None:
                if page not in pages:
                    pages.append(page)
                    parent = node(page_node_id(str(doc_id), page), "page", f"Page {page}",
                                  {"doc_id": str(doc_id), "page": page})
                    edge(doc, parent, "contains", {"order": len(pages) - 1})
                parent = position[page_node_id(str(doc_id), page)]
            edge(parent, at, "contains", {"order": rank})
        ordered = sorted(pages)
        for a, b in zip(ordered, ordered[1:]):
            edge(position[page_node_id(str(doc_id), a)], position[page_node_id(str(doc_id), b)],
                 "next", {})
    old = graph.edges
    n = len(src)
    edges = Edges(np.concatenate([old.src, np.asarray(src, dtype=np.int64)]),
                  np.concatenate([old.dst, np.asarray(dst, dtype=np.int64)]),
                  np.concatenate([old.weight, np.ones(n)]),
                  list(old.evidence) + [""] * n, list(old.relation) + relation,
                  list(old.directed) + [True] * n, list(old.qualifiers) + qualifiers)
    return Graph(Nodes(ids, kinds, texts, pids, attributes), edges)
