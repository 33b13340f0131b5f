"""Score a peer's recorded retrievals (``results/peers/NAME.retrieved.csv.gz``, written by a
driver in ``benchmarks/peers/``) with the project's scorer, HippoRAG 2's passage recall@2 / @5
(:func:`kgp_kedro.evaluation.hipporag.passage_recall_table`, what ``bench_recall.py --env
hipporag`` and its ``--check`` score the project's rows with), and write its rows in the form of
``results/retrieval/*.csv``: ``results/peers/NAME.csv`` (the cost columns from the driver's
``NAME.timings.csv``, measured where the peer ran).

    .venv/bin/python benchmarks/peers/score_peers.py --record linearrag-minilm
    .venv/bin/python benchmarks/peers/score_peers.py --check linearrag-minilm   # 1 on a difference
    .venv/bin/python benchmarks/peers/score_peers.py --table linearrag-minilm \\
        [--beside hipporag-minilm --methods dpr kgp]   # markdown: the peer beside the rows

No model, corpus or peer code is loaded: only the recorded files.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "results" / "peers"
SOURCES = ["hotpotqa", "musique", "2wikimultihopqa"]   # HotpotQA / MuSiQue / 2Wiki, as the tables


def score(ranked: pd.DataFrame, gold: pd.DataFrame) -> pd.DataFrame:
    """Per source and method of ``ranked`` (the ``*.retrieved.csv.gz`` form): passage recall@2 /
    @5, SP-EM@30 (every gold paragraph in the top 30) and the questions scored, against
    ``gold`` (the ``*.gold.csv.gz`` form)."""
    from kgp_kedro.evaluation.hipporag import passage_recall_table
    from kgp_kedro.evaluation.retrieval import PATH_SEPARATOR

    rows = []
    for (source, method), mine in ranked.groupby(["source", "method"], sort=False):
        g = gold[gold["source"] == source]
        questions = pd.DataFrame({"source": source, "question_id": g["question_id"],
                                  "collection_id": g["question_id"]})
        golds = {q: ids.split(" | ") for q, ids in zip(g["question_id"], g["gold"])}
        mine = mine.assign(rank=mine["rank"].astype(int)).sort_values(["question_id", "rank"])
        contexts: dict[str, list[tuple[str, ...]]] = {}
        for qid, path in zip(mine["question_id"], mine["passages"]):
            contexts.setdefault(qid, []).append(tuple(path.split(PATH_SEPARATOR)))
        scores = passage_recall_table(questions, golds, contexts, (2, 5, 30))
        rows.append({"source": source, "method": method, "questions": len(scores),
                     "recall_at_2": scores["recall_at_2"].mean(),
                     "recall_at_5": scores["recall_at_5"].mean(),
                     "sp_em_at_30": float((scores["recall_at_30"] == 1.0).mean())})
    return pd.DataFrame(rows)


def read(name: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    ranked = pd.read_csv(PEERS / f"{name}.retrieved.csv.gz", dtype=str, keep_default_na=False)
    gold = pd.read_csv(PEERS / f"{name}.gold.csv.gz", dtype=str, keep_default_na=False)
    return ranked, gold


def scored_rows(name: str) -> pd.DataFrame:
    """``NAME``'s rows in the columns of ``results/retrieval/*.csv``."""
    from kgp_kedro.reporting.retrieval_results import RETRIEVAL_COLUMNS

    rows = score(*read(name))
    timings = pd.read_csv(PEERS / f"{name}.timings.csv")
    rows = rows.merge(timings, on=["source", "method"], suffixes=("", "_timed"))
    bad = rows[rows["questions"] != rows["questions_timed"]]
    if len(bad):
        raise SystemExit(f"{name}: questions scored differ from questions run: "
                         f"{bad[['source', 'questions', 'questions_timed']].to_dict('records')}")
    rows["calls_per_question"] = float("nan")   # encoder + spaCy calls: not counted alike
    rows["unit"] = "passage"
    rows["run"] = [run_text(r) for r in rows.to_dict("records")]
    return rows[RETRIEVAL_COLUMNS]


def run_text(row: dict) -> str:
    """What ran: the peer's code (its commit, or its package version), what extracted its
    entities (spaCy for LinearRAG, an LLM's OpenIE for HippoRAG 2), its hyperparameters."""
    code = (row["peer_commit"][:12] if isinstance(row.get("peer_commit"), str)
            else row["peer_version"])
    extraction = (f"spaCy {row['spacy_model']}" if isinstance(row.get("spacy_model"), str)
                  else f"OpenIE by {row['llm']}")
    return (f"{row['peer']} @ {code} (its own code, nothing changed but the driver), "
            f"{extraction}, hyperparameters {row['hyperparameters']}; env hipporag's corpus "
            f"exported by benchmarks/peers/export_corpus.py; encoder {row['encoder']}")


def record(name: str) -> None:
    from kgp_kedro.reporting.measurements import record_measurement
    from kgp_kedro.reporting.retrieval_results import (RETRIEVAL_COLUMNS, RETRIEVAL_KEY,
                                                       RETRIEVAL_OPTIONAL)

    rows = scored_rows(name)
    record_measurement(rows, PEERS / f"{name}.csv", RETRIEVAL_COLUMNS, RETRIEVAL_KEY,
                       RETRIEVAL_OPTIONAL)
    show(rows)
    print(f"recorded in {(PEERS / f'{name}.csv').relative_to(ROOT)}")


def show(rows: pd.DataFrame) -> None:
    for r in rows.itertuples(index=False):
        print(f"{r.source:16s} {r.method:10s} R@2 {r.recall_at_2:.3f}  R@5 {r.recall_at_5:.3f}  "
              f"SP-EM@30 {r.sp_em_at_30:.3f}  ({r.questions} questions)  index "
              f"{1000 * r.index_s / r.passages:,.1f} s / 1,000 passages  "
              f"{r.ms_per_question:,.1f} ms/q  peak {r.peak_rss_mb:,.0f} MB", flush=True)


def check(name: str) -> int:
    """0 when ``NAME.csv``'s recall@2 / @5 and SP-EM@30 are what the recorded retrievals
    score, else 1, naming the rows that differ."""
    committed = pd.read_csv(PEERS / f"{name}.csv")
    again = score(*read(name)).set_index(["source", "method"])
    differ = 0
    for row in committed.itertuples(index=False):
        mine = again.loc[(row.source, row.method)]
        bad = {k: (getattr(row, k), mine[k]) for k in ("recall_at_2", "recall_at_5",
                                                        "sp_em_at_30", "questions")
               if abs(float(getattr(row, k)) - float(mine[k])) > 1e-9}
        print(f"{row.source:16s} {row.method:10s} R@2 {mine['recall_at_2']:.3f}  R@5 "
              f"{mine['recall_at_5']:.3f}: " + ("as recorded" if not bad else f"DIFFERS {bad}"))
        differ += bool(bad)
    print(f"{name}: {len(committed) - differ} of {len(committed)} rows as recorded")
    return 1 if differ else 0


def table(name: str, beside: str | None, methods: list[str]) -> str:
    """Markdown: passage R@2 and R@5, HotpotQA / MuSiQue / 2Wiki, and the cost of the peer's
    rows and of ``methods`` of the project's recording ``beside``."""
    frames = [pd.read_csv(PEERS / f"{name}.csv")]
    if beside:
        project = pd.read_csv(ROOT / "results" / "retrieval" / f"{beside}.csv")
        frames.insert(0, project[project["method"].isin(methods)])
    rows = pd.concat(frames, ignore_index=True)

    def cell(method: str, fmt) -> str:
        by = rows[rows["method"] == method].set_index("source")
        return " / ".join(fmt(by.loc[s]) if s in by.index else "–" for s in SOURCES)

    def share(x: float) -> str:
        return f"{x:.3f}"[1:] if x < 1 else f"{x:.3f}"

    figures = [("passage R@2", lambda r: share(r["recall_at_2"])),
               ("passage R@5", lambda r: share(r["recall_at_5"])),
               ("index s / 1,000 passages",
                lambda r: f"{1000 * r['index_s'] / r['passages']:,.1f}"),
               ("ms / question", lambda r: f"{r['ms_per_question']:,.1f}"),
               ("peak MB", lambda r: f"{r['peak_rss_mb']:,.0f}")]
    lines = ["| method | " + " | ".join(label for label, _ in figures) + " |",
             "| --- |" + " --- |" * len(figures)]
    for method in dict.fromkeys(rows["method"]):
        lines.append(f"| `{method}` | " + " | ".join(cell(method, f) for _, f in figures) + " |")
    timings = pd.read_csv(PEERS / f"{name}.timings.csv").set_index("source")
    if "index_cpu_s" in timings.columns:   # the driver's CPU seconds (waits for a CPU left out)
        def cpu(column: str, scale) -> str:
            return " / ".join(f"{scale(timings.loc[s]):,.1f}"
                              if s in timings.index and timings.loc[s, column] == timings.loc[s, column]
                              else "–" for s in SOURCES)
        lines += ["", f"{name} in CPU seconds (user + system): index CPU s / 1,000 passages "
                  + cpu("index_cpu_s", lambda r: 1000 * r["index_cpu_s"] / r["passages"])
                  + "; CPU ms / question " + cpu("cpu_ms_per_question",
                                                 lambda r: r["cpu_ms_per_question"])]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--record", metavar="NAME")
    group.add_argument("--check", metavar="NAME")
    group.add_argument("--table", metavar="NAME")
    parser.add_argument("--beside", help="a results/retrieval recording (hipporag-minilm)")
    parser.add_argument("--methods", nargs="+", default=["dpr", "kgp"])
    args = parser.parse_args()
    if args.record:
        record(args.record)
    elif args.check:
        sys.exit(check(args.check))
    else:
        print(table(args.table, args.beside, args.methods))


if __name__ == "__main__":
    main()
