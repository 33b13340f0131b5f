"""Question routing (KGP §4: "we first apply LLM to classify whether the question is asking
about the document structure or content ... we extract the structural keywords such as Page or
Table"): the rule router and the paper's LLM router, on the same questions.

Questions: every structural question of the structural benchmark (its four templates, gold
page / table from the layout ground truth) and ``--content`` content questions drawn (seeded)
from the bundled HotpotQA, MuSiQue and 2WikiMultihopQA samples (every one of them is a content
question). Printed per router (``--routers rules llm``; ``llm`` is ``parameters_llm.yml``'s
client, the embedded reader model by default, with no call cache so each call is timed):

- accuracy (structural vs content), precision and recall of "structural";
- key accuracy over the structural questions: the page number the question names
  (``page_key``), the table number it names (``table_key``; 0 for "the table on page N"),
  both at once (``keys``); a question routed to content counts as wrong;
- page_hit / table_hit (budget 30) of KGP's retrieval with that router on the benchmark's
  TF-IDF KG with its structural layer: a question's keys lead to its structural nodes, a
  question routed to content goes to Algorithm 1, as in :class:`~kgp_kedro.retrievers.kgp.Kgp`;
- seconds per question (the LLM's load and first call timed apart), the machine load
  (``uptime``) before and after, and the misrouted questions.

Usage::

    python benchmarks/make_structural_benchmark.py            # the folder, first (~10 s)
    nice -n 10 python benchmarks/bench_routing.py --routers rules llm
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "data" / "01_raw" / "structural_benchmark"
RAW = ROOT / "data" / "01_raw"
BUNDLED = {"hotpotqa": RAW / "hotpotqa" / "hotpot_dev_distractor_v1_sample300.json",
           "musique": RAW / "musique" / "musique_ans_v1.0_dev_sample181.jsonl",
           "2wikimultihopqa": RAW / "2wikimultihopqa" / "dev_sample103.json"}
SOURCE = "bench"
PROGRESS_EVERY = 10   # questions routed between two progress lines


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def named_keys(template: str, structure: dict) -> tuple[int | None, int | None]:
    """The page and table numbers a structural question of the benchmark's ``template`` names
    (make_structural_benchmark.structural_questions): "the table on page N" names page N and
    the page's tables (0), "Table k" names table k, "the first section on page N" page N."""
    page, table = structure.get("page"), structure.get("table")
    named = {"cell_by_page": (page, 0), "cell_by_number": (None, table),
             "table_entity": (None, table), "page_heading": (page, None)}
    if template not in named:
        raise ValueError(f"unknown template {template!r}: update named_keys")
    return named[template]


def load_questions(folder: Path, n_content: int, seed: int,
                   n_structural: int | None = None) -> pd.DataFrame:
    """The benchmark's structural questions (``n_structural`` of them drawn, seeded; None:
    all) and ``n_content`` bundled content questions."""
    from kgp_kedro.corpus import read_source

    if not (folder / "questions.jsonl").is_file():
        raise SystemExit(f"no {folder}/questions.jsonl: run "
                         "`python benchmarks/make_structural_benchmark.py` first")
    rows = []
    for line in (folder / "questions.jsonl").read_text().splitlines():
        record = json.loads(line)
        if "structure" in record:
            page, table = named_keys(record["template"], record["structure"])
            rows.append({"question": record["question"], "template": record["template"],
                         "structural": True, "structure": record["structure"],
                         "page": page, "table": table})
    if n_structural is not None and n_structural < len(rows):
        rows = [rows[i] for i in sorted(random.Random(seed).sample(range(len(rows)),
                                                                   n_structural))]
    bundled = [q["question"] for dataset, path in BUNDLED.items()
               for q in read_source(dataset, path, dataset)[0]]
    for question in random.Random(seed).sample(bundled, min(n_content, len(bundled))):
        rows.append({"question": question, "template": "content", "structural": False,
                     "structure": None, "page": None, "table": None})
    return pd.DataFrame(rows)


def benchmark_kg(folder: Path):
    """The benchmark folder's passages, its TF-IDF KG with the structural layer (as a
    collection) and the page / table index of the hit rates."""
    from kgp_kedro.pipelines.parameter_tree import parse_variant
    from kgp_kedro.corpus import split_passages
    from kgp_kedro.corpus.collection import Collection
    from kgp_kedro.corpus.sources import read_source
    from kgp_kedro.evaluation.structure import StructureIndex
    from kgp_kedro.graphs.build import build_variant
    from kgp_kedro.graphs.model import Graph

    passages = split_passages(pd.DataFrame(read_source("documents", folder, SOURCE)[1]))
    spec = parse_variant("tfidf", {"builder": "tfidf"}, "kg.variants.tfidf")
    nodes, edges = build_variant(passages, spec.make_builder(), spec.settings, "tfidf")
    graph = Graph.from_tables(nodes, edges[edges["setting"] == edges["setting"].iloc[0]])
    return Collection.from_passages(f"{SOURCE}/all", passages, graph=graph), \
        StructureIndex(passages)


def make_router(name: str, n_threads: int | None):
    """``(classify(questions) -> keys, warm-up seconds)`` of the rule or LLM router."""
    from kgp_kedro.retrievers.structural import classify_llm, classify_rules

    if name == "rules":
        return (lambda questions: [classify_rules(q) for q in questions]), 0.0
    import yaml

    from kgp_kedro.llm import make_llm

    params = yaml.safe_load((ROOT / "conf" / "base" / "parameters_llm.yml").read_text())["llm"]
    params["cache"] = None   # every call made and timed
    if params["local"].get("cache_dir"):
        params["local"]["cache_dir"] = str(ROOT / params["local"]["cache_dir"])
    if n_threads:
        params["local"]["n_threads"] = n_threads
    start = time.perf_counter()
    llm = make_llm(params)   # the packaged model is assembled on first use (data/06_models)
    classify_llm(["What is on page 1 of notes.pdf?"], llm)   # load + first call, not timed
    return (lambda questions: classify_llm(questions, llm)), time.perf_counter() - start


def score(questions: pd.DataFrame, keys: list, collection, index, budget: int) -> dict:
    from kgp_kedro.retrievers.base import Resources
    from kgp_kedro.retrievers.kgp import Kgp
    from kgp_kedro.retrievers.structural import structural_visits

    routed = pd.Series([k is not None for k in keys], index=questions.index)
    gold = questions["structural"]
    tp, fp = int((routed & gold).sum()), int((routed & ~gold).sum())
    fn = int((~routed & gold).sum())
    structural = questions[gold]
    page_named = structural["page"].notna()
    table_named = structural["table"].notna()
    page_ok, table_ok, hits = [], [], []
    algorithm1 = Kgp(Kgp.Params(routing="off"), Resources(budget))
    for i, q in structural.iterrows():
        key = keys[i]
        page_ok.append(key is not None and key.page == _int(q["page"]))
        table_ok.append(key is not None and key.table == _int(q["table"]))
        visits = (structural_visits(key, q["question"], collection.graph, budget)
                  if key is not None else algorithm1.retrieve(q["question"], collection))
        hits.append(index.scores(q["structure"], SOURCE, 0.0,
                                 [p for v in visits for p in v.path]))
    page_ok, table_ok = pd.Series(page_ok, structural.index), pd.Series(table_ok,
                                                                         structural.index)
    hits = pd.DataFrame(hits)
    return {"accuracy": float((routed == gold).mean()),
            "precision": tp / (tp + fp) if tp + fp else float("nan"),
            "recall": tp / (tp + fn) if tp + fn else float("nan"),
            "page_key": float(page_ok[page_named].mean()),
            "table_key": float(table_ok[table_named].mean()),
            "keys": float((page_ok & table_ok).mean()),
            "page_hit": float(hits["page_hit"].mean()),
            "table_hit": float(hits["table_hit"].mean())}


def _int(value) -> int | None:
    return None if pd.isna(value) else int(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--content", type=int, default=100,
                        help="bundled content questions drawn (seeded)")
    parser.add_argument("--structural", type=int, default=None,
                        help="benchmark structural questions drawn (seeded; default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=int, default=30)
    parser.add_argument("--routers", nargs="+", choices=["rules", "llm"],
                        default=["rules", "llm"])
    parser.add_argument("--n-threads", type=int, default=None,
                        help="llama.cpp threads of the local LLM (default: its own)")
    args = parser.parse_args()

    questions = load_questions(args.folder, args.content, args.seed, args.structural)
    collection, index = benchmark_kg(args.folder)
    templates = questions["template"].value_counts().to_dict()
    print(f"{len(questions)} questions: {int(questions['structural'].sum())} structural "
          f"(benchmark {args.folder.name}) + {int((~questions['structural']).sum())} content "
          f"(bundled HotpotQA / MuSiQue / 2Wiki, seed {args.seed}); {templates}")
    rows, per_template = [], []
    for name in args.routers:
        before = _uptime()
        classify, warmup = make_router(name, args.n_threads)
        start = time.perf_counter()
        keys, texts = [], questions["question"].tolist()
        for at in range(0, len(texts), PROGRESS_EVERY):
            keys += classify(texts[at:at + PROGRESS_EVERY])
            if name != "rules":
                print(f"[{name}] routed {len(keys)} / {len(texts)} in "
                      f"{time.perf_counter() - start:.0f} s", flush=True)
        seconds = time.perf_counter() - start
        after = _uptime()
        rows.append({"router": name, **score(questions, keys, collection, index, args.budget),
                     "s_per_question": seconds / len(questions), "warmup_s": warmup})
        print(f"[{name}] load before: {before}\n[{name}] load after:  {after}")
        routed = [k is not None for k in keys]
        per_template.append(questions.assign(router=name, routed_structural=routed)
                            .groupby(["router", "template"])["routed_structural"].mean())
        wrong = questions[[r != g for r, g in zip(routed, questions["structural"])]]
        for q in wrong.itertuples():
            print(f"[{name}] misrouted ({'structural' if q.structural else 'content'} as "
                  f"{'content' if q.structural else 'structural'}): {q.question}"
                  + (f" -> {keys[q.Index]}" if keys[q.Index] is not None else ""))
        bad_keys = [(q.question, keys[q.Index]) for q in questions[questions["structural"]]
                    .itertuples() if keys[q.Index] is not None
                    and (keys[q.Index].page, keys[q.Index].table) != (_int(q.page),
                                                                      _int(q.table))]
        for question, key in bad_keys[:8]:
            print(f"[{name}] wrong keys: {question} -> {key}")
        if len(bad_keys) > 8:
            print(f"[{name}] ... {len(bad_keys) - 8} more with wrong keys")
    print("\nshare routed structural, per template:")
    print(pd.concat(per_template).unstack("template").round(3).to_string())
    print(f"\nrouting over {len(questions)} questions (keys and hits over the "
          f"{int(questions['structural'].sum())} structural ones; budget {args.budget}):")
    print(pd.DataFrame(rows).set_index("router").round(4).to_string())


if __name__ == "__main__":
    main()
