"""Export HippoRAG 2's setting (issue 66) as plain files, so that a peer's own code, in its own
venv, indexes and answers exactly what ``benchmarks/bench_recall.py --env hipporag`` measures the
project's rows on, with nothing imported from the project.

    .venv/bin/python benchmarks/peers/export_corpus.py [--limit 1000] [--out data/peers/hipporag]
        [--sources hotpotqa musique 2wikimultihopqa]

Per source it writes ``<out>/<source>/``:

- ``corpus.jsonl``: one passage a line, ``{"passage_id", "title", "text"}`` in corpus order
  (order of first appearance), ``text`` being HippoRAG 2's ``title\\ntext``; ``passage_id`` is
  the project's content id (``kgp_kedro.evaluation.hipporag.content_id``), the id the
  recordings' ranked passages and gold use;
- ``questions.jsonl``: ``{"question_id", "question", "answer"}`` for every loaded question with
  gold paragraphs (the questions the project's rows score);
- ``gold.csv``: ``source,question_id,gold`` (gold passage ids joined by `` | ``), the rows of
  ``results/retrieval/<name>.gold.csv.gz``.

Nothing is re-implemented: the questions and documents come from the project's ingest stage
(the chain ``bench_recall.py`` runs, in env ``hipporag``), the corpus and the gold from
:func:`kgp_kedro.evaluation.hipporag.paragraph_corpus` and ``bench_recall.gold_rows``. No
encoder or NER model is loaded.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))


def export(out: Path, limit: int, sources: list[str] | None) -> None:
    os.chdir(ROOT)
    os.environ["KEDRO_ENV"] = "hipporag"
    from bench_recall import gold_rows, run_timed, without_feature_caches
    from kedro.framework.startup import bootstrap_project

    from kgp_kedro.evaluation.hipporag import paragraph_corpus
    from kgp_kedro.pipelines.parameters import project_parameters

    bootstrap_project(ROOT)
    raw = project_parameters()
    for source in raw["ingest"]["sources"]:
        name = source["dataset"]
        if sources and name not in sources:
            continue
        one = without_feature_caches(raw)
        one["ingest"]["sources"] = [{**source, "limit": limit}]
        data, _ = run_timed("embed", one, [["questions", "documents"]])
        questions, corpus, gold = paragraph_corpus(data["questions"], data["documents"])
        golds = gold_rows({"questions": questions, "gold": gold}, name)
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
            for pid, title, text in zip(corpus["passage_id"], corpus["title"], corpus["text"]):
                f.write(json.dumps({"passage_id": pid, "title": title, "text": text},
                                   ensure_ascii=False) + "\n")
        scored = set(golds["question_id"])
        answers = (questions["answer"] if "answer" in questions.columns
                   else [""] * len(questions))
        with open(folder / "questions.jsonl", "w", encoding="utf-8") as f:
            for qid, question, answer in zip(questions["question_id"], questions["question"],
                                             answers):
                if qid in scored:
                    f.write(json.dumps({"question_id": qid, "question": question,
                                        "answer": "" if answer is None else str(answer)},
                                       ensure_ascii=False) + "\n")
        golds.to_csv(folder / "gold.csv", index=False, lineterminator="\n")
        print(f"{name}: {len(corpus)} passages, {len(scored)} questions with gold -> "
              f"{folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder}",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=1000, help="questions per source")
    parser.add_argument("--out", default=str(ROOT / "data" / "peers" / "hipporag"))
    parser.add_argument("--sources", nargs="+", help="a subset of ingest.sources (datasets)")
    args = parser.parse_args()
    export(Path(args.out).resolve(), args.limit, args.sources)


if __name__ == "__main__":
    main()
