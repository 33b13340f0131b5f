"""What adding files to a documents folder does to its TF-IDF KG (issue 38, item 1): whether
an exact per-document update could be cheaper than the exact rebuild the project does.

A folder of ``--documents`` Markdown files (bench_incremental.py's: bundled paragraphs, every
100th file held back), split into passages by the project's ingest and passages nodes, then the
TF-IDF KG (conf/base's ``kg.variants.tfidf``: every ``n_kw`` of its sweep) built over the
whole folder; then the held-back 1 % added and built again. Printed, per setting: the build's
CPU seconds (the collection's keyword ranking apart, shared by the settings), how many
documents of the folder kept their keyword set, how many keywords the keyword space gained and
lost, and how many of the old passages' edges the grown folder's graph changed (added,
removed or reweighted).

A document's TF-IDF keywords depend on the collection's IDF, so adding one document moves
every term's IDF (the document count) and can reorder any document's keywords: an exact
update ranks every document again (the ranking's cost), and its edges then change wherever a
keyword entered or left the keyword space. The figures say how much of a rebuild that leaves
to save.

    nice .venv/bin/python benchmarks/bench_tfidf_update.py [--documents 1011]
        [--work data/09_bench/tfidf_update]
"""
from __future__ import annotations

import argparse
import copy
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd

from bench_incremental import make_folder

ROOT = Path(__file__).resolve().parents[1]


def folder_passages(folder: Path) -> pd.DataFrame:
    """The folder's passages, by the project's ingest and passages nodes (conf/base)."""
    from kgp_kedro.pipelines.chains import build_pipelines
    from kgp_kedro.pipelines.in_memory import run_in_memory
    from kgp_kedro.pipelines.parameter_tree import complete_parameters
    from kgp_kedro.pipelines.parameters import project_parameters

    raw = copy.deepcopy(project_parameters())
    raw["ingest"]["sources"] = [{"dataset": "documents", "path": str(folder), "limit": None}]
    raw["ingest"]["parse_cache"] = None
    raw = complete_parameters(raw)
    return run_in_memory(build_pipelines(raw)["passages"], raw)["passages"]


def edge_set(edges) -> dict[tuple[int, int], float]:
    return {(int(min(s, d)), int(max(s, d))): float(w)
            for s, d, w in zip(edges.src, edges.dst, edges.weight)}


def builds(passages: pd.DataFrame, settings) -> tuple[float, list, dict]:
    """The keyword ranking's CPU seconds, each setting's ``(label, CPU s, edges)`` and the
    documents' keyword sets per setting."""
    from kgp_kedro.corpus.collection import Collection
    from kgp_kedro.graphs.builders.tfidf import (build_tfidf_graph, document_texts,
                                                 rank_tfidf_keywords)

    collection = Collection.from_passages("folder", passages)
    first = settings[0][1]
    start = time.process_time()
    ranking = rank_tfidf_keywords(document_texts(collection.texts, collection.doc_index,
                                                 len(collection.doc_titles)),
                                  first.ngram_range, first.stop_words)
    ranked = time.process_time() - start
    docs = list(dict.fromkeys(collection.doc_ids))
    out, keywords = [], {}
    for label, setting in settings:
        start = time.process_time()
        edges = build_tfidf_graph(collection.texts, collection.doc_index, collection.doc_titles,
                                  setting.n_kw, setting.ngram_range, setting.stop_words,
                                  setting.max_evidence, keyword_ranking=ranking)
        out.append((label, time.process_time() - start, edges))
        keywords[label] = {d: frozenset(r[:setting.n_kw]) for d, r in zip(docs, ranking)}
    return ranked, out, keywords


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=1011)
    parser.add_argument("--work", type=Path, default=ROOT / "data" / "09_bench" / "tfidf_update")
    args = parser.parse_args()
    from kgp_kedro.pipelines.parameter_tree import complete_parameters, parse_variant
    from kgp_kedro.pipelines.parameters import project_parameters
    from kgp_kedro.reporting.measurements import cpu_model

    raw = complete_parameters(copy.deepcopy(project_parameters()))
    variant = parse_variant("tfidf", raw["kg"]["variants"]["tfidf"], "kg.variants.tfidf")
    work = args.work.resolve()
    held = make_folder(work / "folder", args.documents)
    before = folder_passages(work / "folder")
    for file in held:   # the 1 % added
        file.rename(work / "folder" / file.name)
    after = folder_passages(work / "folder")
    load = os.getloadavg()[0]
    r0, built0, kw0 = builds(before, variant.settings)
    r1, built1, kw1 = builds(after, variant.settings)
    # the old passages' positions in the grown folder, to compare their edges
    old_ids = before["passage_id"].tolist()
    where = {p: i for i, p in enumerate(after["passage_id"])}
    old_at = np.array([where[p] for p in old_ids])
    print(f"\n{before['doc_id'].nunique()} files ({len(before)} passages), then "
          f"{after['doc_id'].nunique() - before['doc_id'].nunique()} added "
          f"({len(after) - len(before)} passages); {cpu_model()}, {os.cpu_count()} CPUs, "
          f"load {load:.1f}")
    print(f"keyword ranking: {r0:.2f} CPU s before, {r1:.2f} after")
    print(f"{'setting':10}{'build CPU s':>12}{'edges':>10}{'docs kept kw':>14}"
          f"{'kw +/-':>10}{'old edges changed':>19}")
    for (label, _, e0), (_, cpu1, e1) in zip(built0, built1):
        docs = list(kw0[label])
        kept = sum(kw0[label][d] == kw1[label][d] for d in docs)
        space0 = frozenset().union(*kw0[label].values())
        space1 = frozenset().union(*kw1[label].values())
        old = edge_set(e0)
        new = edge_set(e1)
        remap = {(int(min(old_at[a], old_at[b])), int(max(old_at[a], old_at[b]))): w
                 for (a, b), w in old.items()}
        old_set = set(old_at.tolist())
        new_among_old = {k: w for k, w in new.items() if k[0] in old_set and k[1] in old_set}
        changed = (len(set(remap) ^ set(new_among_old))
                   + sum(remap[k] != new_among_old[k] for k in set(remap) & set(new_among_old)))
        print(f"{label:10}{cpu1:12.2f}{len(e1):10d}{f'{kept}/{len(docs)}':>14}"
              f"{f'+{len(space1 - space0)}/-{len(space0 - space1)}':>10}"
              f"{f'{changed} of {len(old)}':>19}")


if __name__ == "__main__":
    main()
