"""What a new question costs in the ask app (issue 49: at most 10 s in an open session over a
1,000-file folder, 2 cores): the app of ``make app`` (:func:`kgp_kedro.pipelines.ask_folder.ask_app`
over the ask env's catalog: its reader, method and caches) opens a folder of ``--documents``
Markdown files of bundled paragraphs (bench_incremental.py's folder: every 100th file held back,
so 1011 gives 1,000 files) once, as OPEN FOLDER does, then answers ``--questions`` bundled
HotpotQA dev questions one after another, as SUBMIT does (:meth:`AskApp.ask`: the session's
retrieval and the reader's call, the answer's HTML and the traversal figure), with no browser.

Each part's wall and CPU seconds (user + system of the process, every thread: the machine's
other jobs move the wall time far more than the CPU seconds), the reader's call and tokens
apart, the CPU model and the load. Every cache and the LLM's call cache live in ``--work``,
emptied first (``--keep-cache``: a warm folder), so every answer is a real call of the reader.

    nice -n 19 .venv/bin/python benchmarks/bench_app.py [--documents 1011] [--questions 4]
        [--work data/09_bench/app] [--keep-cache] [--params key=value ...]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import time
from pathlib import Path

from bench_ask_question import cpu_seconds, run_params
from bench_incremental import DEV, make_folder, records

ROOT = Path(__file__).resolve().parents[1]


def questions(n: int) -> list[str]:
    """``n`` bundled HotpotQA dev questions (the first ones)."""
    return [q["question"] for q in records(DEV["hotpotqa"])[:n]]


def timed(step) -> tuple[float, float, object]:
    """``step()``'s wall and CPU seconds and its result."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    result = step()
    return time.perf_counter() - wall, cpu_seconds() - cpu, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=1011)
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--work", type=Path, default=ROOT / "data" / "09_bench" / "app")
    parser.add_argument("--keep-cache", action="store_true",
                        help="start from the caches of a previous run")
    parser.add_argument("--params", nargs="*", default=[],
                        help="more parameters, key=value (llm.local.model=qwen2.5-coder-0.5b-"
                             "instruct-q4_k_m: the smaller reader)")
    args = parser.parse_args()
    work = args.work.resolve()
    os.environ.update(KEDRO_DISABLE_TELEMETRY="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    os.chdir(ROOT)
    from kedro.framework.session import KedroSession
    from kedro.framework.startup import bootstrap_project
    from omegaconf import OmegaConf

    from kgp_kedro.pipelines.ask_folder import ask_app
    from kgp_kedro.reporting.measurements import cpu_model, load_line

    if not args.keep_cache:
        shutil.rmtree(work / "cache", ignore_errors=True)
    work.mkdir(parents=True, exist_ok=True)
    folder = work / "folder"
    make_folder(folder, args.documents)
    asked = questions(args.questions)
    bootstrap_project(ROOT)
    load = os.getloadavg()[0]
    params = OmegaConf.to_container(OmegaConf.merge(run_params(work, asked[0]),
                                                    OmegaConf.from_dotlist(args.params)))
    with KedroSession.create(ROOT, env="ask", runtime_params=params) as s:
        catalog = s.load_context().catalog
        llm = catalog.load("params:llm")
        model = (llm.get(llm["backend"]) or {}).get("model")
        app = ask_app(catalog, ROOT)
        wall, cpu, _ = timed(lambda: app.open(folder))
        if app.opened is None:
            raise SystemExit(f"the folder did not open: {app.status.value}")
        passages = app.opened.session.passages
        rows = [("open the folder (OPEN FOLDER)", wall, cpu, "")]
        for i, question in enumerate(asked):
            app.asked = None
            with contextlib.redirect_stdout(io.StringIO()):   # the figure, shown in no browser
                wall, cpu, _ = timed(lambda: app.ask(question))
            if app.asked is None or app.asked.answer["error"].notna().any():
                raise SystemExit(f"question {i + 1} failed: {app.answer.value}")
            answer = app.asked.answer.iloc[0]
            reader = float(answer["latency_ms"]) / 1000
            rows.append((f"question {i + 1} (SUBMIT){' (first)' if i == 0 else ''}", wall, cpu,
                         f"retrieval {app.asked.retrieval_seconds:.1f} s, the reader's call "
                         f"{reader:.1f} s ({answer['prompt_tokens']} + "
                         f"{answer['completion_tokens']} tokens), the page and figure "
                         f"{wall - app.asked.retrieval_seconds - app.asked.answer_seconds:.1f} "
                         f"s; {answer['mark']}"))
    print(f"\nthe ask app over {passages['doc_id'].nunique()} files ({len(passages)} passages), "
          f"the reader {model} ({llm['backend']}), no browser; {cpu_model()}; at the start "
          f"1-min load {load:.1f}, at the end {load_line()}")
    print("wall s / CPU s (user + system, every thread of the process)")
    for label, wall, cpu, note in rows:
        print(f"  {label:38} {wall:6.1f} s / {cpu:6.1f} CPU s  {note}")
    further = [wall for _, wall, _, _ in rows[2:]]
    if further:
        print(f"further questions: {min(further):.1f}-{max(further):.1f} s wall, mean "
              f"{sum(further) / len(further):.1f} s (target: at most 10 s)")


if __name__ == "__main__":
    main()
