"""Figure 7(c): retrieval quality at the full budget as the collections grow."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from kgp_kedro.corpus import build_collections, split_passages
from kgp_kedro.evaluation.retrieval import RETRIEVAL_SUMMARY_COLUMNS, score_retrieval
from kgp_kedro.graphs.build import GraphTables, build_variant
from kgp_kedro.retrievers.run import retrieve_all


def sweep_collection_size(questions: pd.DataFrame, own_documents: pd.DataFrame,
                          methods: Mapping[str, object], budget: int, negatives: Sequence[int],
                          questions_per_source: int, seed: int, passages_params, graph_variant,
                          graph_setting: str, features: pd.DataFrame | None = None,
                          embeddings=None, encoder=None) -> pd.DataFrame:
    """For each value of ``negatives`` the first ``questions_per_source`` questions of each
    source get collections with that many negative documents (seeded as in ingest), split into
    passages (``passages_params``) and linked into the KGP graph (``graph_variant`` at
    ``graph_setting``, with its stored per-passage ``features`` and the passage
    ``embeddings``) as the pipelines do; each method of ``methods`` then runs on them, scored
    at the budget at both units (``unit``: passage, document)."""
    subset = questions.groupby("source", sort=False).head(int(questions_per_source))
    settings = [s for s in graph_variant.settings if s[0] == graph_setting]
    rows = []
    for count in negatives:
        documents = build_collections(subset, own_documents, int(count), seed)
        documents = documents[documents["collection_id"].isin(subset["collection_id"])]
        sized = split_passages(documents, passages_params.sentence_level,
                               passages_params.max_chars, passages_params.paragraph_datasets)
        uses_embeddings = graph_variant.embeddings is not None
        nodes, edges = build_variant(sized, graph_variant.make_builder(features), settings,
                                     f"{graph_variant.name}@{count}",
                                     embeddings if uses_embeddings else None)
        size = (sized.groupby(["source", "collection_id"])
                .agg(documents=("doc_id", "nunique"), passages=("passage_id", "size"))
                .groupby("source").mean())
        for name, method in methods.items():
            table = retrieve_all(subset, sized, method, budget, encoder=encoder,
                                 graphs=GraphTables(nodes, edges), setting=graph_setting,
                                 embeddings=embeddings, label=f"{name}@{count}")
            if table.empty:
                continue
            _, summary = score_retrieval(subset, sized, [budget], table)
            rows.append(summary.assign(method=name, negatives=int(count))
                        .merge(size, left_on="source", right_index=True))
    if not rows:
        return pd.DataFrame(columns=[*RETRIEVAL_SUMMARY_COLUMNS, "negatives", "documents",
                                     "passages"])
    return pd.concat(rows, ignore_index=True)
