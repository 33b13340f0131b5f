"""HOLMES beside its baselines on the bundled dev samples: EM, F1, precision, recall, reader
input tokens, LLM calls and wall time per question, overall, by MuSiQue hop count and by
question type. Offline facts (dependency extractor) by default; the LLM is the project's
(``parameters_llm.yml``: the embedded model) or any OpenAI-compatible server (``--base-url``).

    nice .venv/bin/python benchmarks/bench_holmes.py --per-source 50 [--base-url URL --model M]
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kgp_kedro.config.sections import EncoderParams, LLMParams  # noqa: E402
from kgp_kedro.evaluation.qa_metrics import exact_match, f1_score, precision_recall  # noqa: E402
from kgp_kedro.holmes import run as holmes  # noqa: E402
from kgp_kedro.holmes.params import HolmesParams  # noqa: E402
from kgp_kedro.holmes.schema import mine_auxiliary_schema  # noqa: E402
from kgp_kedro.llm import make_llm  # noqa: E402
from kgp_kedro.models import load_encoder  # noqa: E402
from tests.conftest import HOTPOT, MUSIQUE, load  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-source", type=int, default=3)
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="gpt-3.5-turbo")
    parser.add_argument("--extractor", default="dependency")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    llm_conf = yaml.safe_load((ROOT / "conf/base/parameters_llm.yml").read_text())["llm"]
    if args.base_url:
        llm_conf.update(backend="openai", openai={**llm_conf["openai"], "model": args.model,
                                                  "base_url": args.base_url})
    llm_conf = LLMParams.model_validate(llm_conf).model_dump()
    os.chdir(ROOT)
    params = HolmesParams(extractor=args.extractor)
    encoder = load_encoder(EncoderParams())
    embed = lambda texts: encoder.encode(list(texts))  # noqa: E731
    rows = []
    for name, path in (("hotpotqa", HOTPOT), ("musique", MUSIQUE)):
        questions, documents = load(name, path)
        documents["is_negative"] = False
        qa, rest = questions.head(args.per_source), questions.iloc[args.per_source:]
        documents = documents[documents["collection_id"].isin(qa["collection_id"])]
        passages = pd.DataFrame({"doc_id": documents["doc_id"],   # context ids: one a document
                                 "passage_id": documents["doc_id"] + "#0"})
        aux = mine_auxiliary_schema(rest["question"].tolist(), params.spacy_model, 1)
        start = time.perf_counter()
        edg = holmes.entity_document_table(qa, documents, params)
        graphs = holmes.graphs_of(edg)
        parsed, calls = holmes.parse_questions(qa, graphs, params)
        client = make_llm(llm_conf)
        facts = holmes.DocumentFacts(documents, holmes.make_extractor(params, client),
                                     params.cache_dir)
        triples = holmes.traverse(qa, graphs, {k: v.entities for k, v in parsed.items()},
                                  facts, params.levels)
        schema = holmes.schema_table(qa, parsed, calls, aux, embed, params)
        pruned = holmes.prune_table(triples, schema, embed, params)
        prep = (time.perf_counter() - start) / len(qa)
        docs_of = holmes.question_documents(qa, documents, True)
        for method, spec in params.methods.items():
            start = time.perf_counter()
            if spec.kind == "holmes":
                answers, _ = holmes.answer_with_facts(qa, pruned, schema, graphs, facts,
                                                      passages, client, embed, params, spec,
                                                      method, {})
            else:
                answers = holmes.answer_base(qa, docs_of, passages, client, method,
                                             spec.kind == "base_docs", 32, None)
            wall = (time.perf_counter() - start) / len(qa) + (prep if spec.kind == "holmes"
                                                                else 0.0)
            for q, a in zip(qa.itertuples(index=False), answers.itertuples(index=False)):
                golds = list(q.answers) or [q.answer]
                p, r = precision_recall(a.answer, golds)
                rows.append({"source": name, "method": method, "qtype": q.qtype,
                             "n_hops": q.n_hops, "em": exact_match(a.answer, golds),
                             "f1": f1_score(a.answer, golds), "precision": p, "recall": r,
                             "reader_tokens": a.prompt_tokens, "llm_calls": a.llm_calls,
                             "wall_s": wall, "failed": a.error is not None})
    scores = pd.DataFrame(rows)
    metrics = ["em", "f1", "precision", "recall", "reader_tokens", "llm_calls", "wall_s"]
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", None)
    print(f"LLM {make_llm(llm_conf).name}; {args.per_source} questions per source; "
          f"extractor {args.extractor}; load {os.getloadavg()[0]:.1f}")
    print(scores.groupby(["source", "method"], sort=False)[metrics].mean().round(3))
    print(scores.groupby(["source", "method", "qtype"], sort=False)[["em", "f1"]].mean()
          .round(3))
    hops = scores[scores["source"] == "musique"]
    print(hops.groupby(["method", "n_hops"], sort=False)[["em", "f1"]].agg(["mean", "count"])
          .round(3))


if __name__ == "__main__":
    main()
