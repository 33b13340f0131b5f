"""Issue 22's figures: `kedro run --env ask` from a fresh clone over PDFs the project has never
seen, and the top cited file on the structural benchmark.

``--pdfs N`` (default 6): N 2WikiMultihopQA questions of the bundled sample that no test or
benchmark renders (from ``--offset``, default 60) each become one PDF holding its whole
collection (its 10 real paragraphs, gold and distractors, and its evidence tables: the
structural benchmark's PDF renderer); their questions go in a ``questions.txt`` without ids.
The project is cloned (``git clone`` of HEAD) and the clone runs ``kedro run --env ask
--params ask.folder=..,ask.questions=..`` with the embedded reader (a fresh LLM call cache):
printed are the wall time, the LLM's part (the sum of the answer calls' latencies), whether
every answer cites a passage by file and page, and the share of questions whose top cited file
is their own PDF (and BM25's top file, the sanity column). A second run with one new question
must parse no file (its log says so).

``--structural``: the same over the structural benchmark folder
(``make_structural_benchmark.py``: 12 files, PDF / DOCX / HTML) and its 12 content questions
(a ``.jsonl`` with their ``supporting_docs``): the share whose top cited file is a supporting
document.

Usage::

    python benchmarks/bench_ask.py [--pdfs 6] [--structural] [--workdir /tmp/ask_bench]
        [--params llm.local.n_threads=1]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location(
        "make_structural_benchmark", ROOT / "benchmarks" / "make_structural_benchmark.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_pdfs(folder: Path, n: int, offset: int) -> list[tuple[str, str]]:
    """``n`` PDFs of unseen 2Wiki collections: ``[(question, its PDF's name)]``."""
    generator = _generator()
    records = json.loads(generator.TWOWIKI.read_text())[offset:offset + n]
    folder.mkdir(parents=True, exist_ok=True)
    asked = []
    for i, record in enumerate(records):
        name = f"report_{i + 1}.pdf"
        generator.render_pdf(folder / name, record)
        asked.append((record["question"], name))
    return asked


def run_ask(project: Path, folder: Path, questions: Path | None, question: str | None,
            cache: str, extra: list[str]) -> tuple[float, str]:
    """One ``kedro run --env ask`` in ``project`` (``extra``: more ``--params``): its wall time
    (s) and log."""
    params = [f"ask.folder={folder}", f"llm.cache={cache}", *extra]
    params.append(f"ask.questions={questions}" if questions else f"ask.question={question}")
    env = dict(os.environ, KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(project / "src"), COLUMNS="200")
    env.pop("KEDRO_ENV", None)
    start = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).with_name("kedro")), "run", "--env", "ask",
                           "--params", ",".join(params)], cwd=project, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode:
        sys.exit(f"kedro run failed:\n{done.stderr[-4000:]}")
    return wall, done.stdout + done.stderr


def newest_answers(project: Path) -> pd.DataFrame:
    versions = sorted((project / "data/ask/08_reporting/ask_answers.parquet").glob("*/*.parquet"))
    return pd.read_parquet(versions[-1])


def report(answers: pd.DataFrame, supporting: dict[str, set[str]], wall: float) -> None:
    cites = answers["citations"].map(json.loads)
    cited = cites.map(bool)
    paged = cites.map(lambda cs: any(c["page"] is not None for c in cs))
    model_cited = answers["n_cited"] > 0
    top_ok = [row.top_file in supporting[row.question] for row in answers.itertuples()]
    sanity_ok = [row.sanity_top_file in supporting[row.question] for row in answers.itertuples()]
    llm = answers["latency_ms"].sum() / 1000
    n = len(answers)
    print(f"  wall {wall:.0f} s for {n} questions; LLM answer calls {llm:.0f} s "
          f"({llm / n:.1f} s a question, {answers['prompt_tokens'].mean():.0f} prompt + "
          f"{answers['completion_tokens'].mean():.0f} completion tokens), the rest "
          f"{wall - llm:.0f} s")
    print(f"  answers citing a passage: {int(cited.sum())}/{n}, by file and page: "
          f"{int(paged.sum())}/{n}, the others by file and heading (cited by the "
          f"model: {int(model_cited.sum())}, attributed: {int(answers['attributed'].sum())}; "
          f"citations dropped: {int(answers['n_dropped'].sum())})")
    print(f"  top cited file a supporting document: {sum(top_ok)}/{n} = {sum(top_ok) / n:.2f} "
          f"(BM25's top file: {sum(sanity_ok)}/{n} = {sum(sanity_ok) / n:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdfs", type=int, default=6)
    parser.add_argument("--offset", type=int, default=60)
    parser.add_argument("--structural", action="store_true")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ask_bench"))
    parser.add_argument("--params", default="", help="more kedro --params, e.g. "
                        "llm.local.n_threads=1")
    args = parser.parse_args()
    extra = [p for p in args.params.split(",") if p]
    work = args.workdir
    project = work / "clone"
    if not project.exists():
        subprocess.run(["git", "clone", "-q", str(ROOT), str(project)], check=True)
    commit = subprocess.run(["git", "-C", str(project), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    print(f"project: fresh clone of {ROOT} at {commit}; "
          f"load {os.getloadavg()[0]:.1f}; {os.cpu_count()} CPUs")
    if args.structural:
        folder = project / "data/01_raw/structural_benchmark"
        _generator().make(folder, 12)
        content = [json.loads(line) for line in (folder / "questions.jsonl").read_text()
                   .splitlines() if json.loads(line).get("template") == "content"]
        questions = work / "structural_content.jsonl"
        questions.write_text("\n".join(json.dumps({"question": q["question"],
                                                   "supporting_docs": q["supporting_docs"]})
                                       for q in content) + "\n")
        supporting = {q["question"]: set(q["supporting_docs"]) for q in content}
        wall, _ = run_ask(project, folder, questions, None, f"{work}/calls_structural.sqlite",
                          extra)
        print(f"structural benchmark: {len(content)} content questions over 12 files")
        report(newest_answers(project), supporting, wall)
        return
    folder = work / "unseen_pdfs"
    asked = make_pdfs(folder, args.pdfs, args.offset)
    questions = work / "questions.txt"
    questions.write_text("".join(f"{q}\n" for q, _ in asked))
    supporting = {q: {name} for q, name in asked}
    cache = f"{work}/calls_{int(time.time())}.sqlite"
    wall, log = run_ask(project, folder, questions, None, cache, extra)
    print(f"{len(asked)} questions over {args.pdfs} unseen PDFs ({folder}), embedded reader:")
    report(newest_answers(project), supporting, wall)
    parsed = re.findall(r"Parsed files: (.*?)in [\d.]+ s", " ".join(log.split()))
    print(f"  parse cache, first run: {parsed}")
    again = f"What does {asked[0][1]} say about {asked[0][0].split()[-1].rstrip('?')}?"
    wall, log = run_ask(project, folder, None, again, cache, extra)
    parsed = re.findall(r"Parsed files: (.*?)in [\d.]+ s", " ".join(log.split()))
    print(f"  second run, one new question: wall {wall:.0f} s; parse cache: {parsed}")


if __name__ == "__main__":
    main()
