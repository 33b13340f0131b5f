"""Precision of the fact extractors on hand-checked samples.

Runs one extractor (``--extractor dependency``, the offline default, or ``llm``, the paper's
A.4.4 prompt through the project's LLM: ``parameters_llm.yml``, the embedded model by default)
on the same documents, 12 seeded ones of each of the bundled HotpotQA, MuSiQue and 2Wiki dev
samples (``--first N``: the first N of each source's 12), and draws one triple from each
document that gave one (``--every``: takes every triple). It prints the sample (with the
evidence sentence, or the document for the LLM, which gives no sentence), the triples per
document and the seconds per document (the model's load apart: spaCy's, or assembling and
loading the LLM).

Judged samples (:data:`JUDGED`): the dependency extractor, one triple drawn from each of the 36
documents (``data/fact_precision/fact_precision_judged.tsv``); the dependency extractor and the
LLM, every triple of the first 2 documents of each source (``fact_precision_judged_every.tsv``,
``fact_precision_judged_llm.tsv`` beside it: the embedded model on CPU takes minutes a
document).
``correct``: the triple states, with subject and object as named, a fact the document states;
``lenient``: also a true fact whose subject or object is cut short ('first work' of 'the first
work of literary Surrealism') or folded into the relation ('was crowned Miss USA 2006' ->
'Miss USA'). With ``--judged`` the script checks that the sample still matches the file and
prints strict and lenient precision.

LLM replies are cached (``llm.cache``): a second run makes no call, and the seconds it prints
are those the calls took when they were made; ``--no-cache`` makes them again.

    nice .venv/bin/python benchmarks/fact_precision.py [--judged]
    nice .venv/bin/python benchmarks/fact_precision.py --first 2 --every [--judged]
    nice .venv/bin/python benchmarks/fact_precision.py --extractor llm --first 2 --every [--judged]
"""
from __future__ import annotations

import argparse
import csv
import os
import random
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kgp_kedro.config.sections import LLMParams  # noqa: E402
from kgp_kedro.facts import EXTRACTORS  # noqa: E402
from kgp_kedro.prompts.holmes import triple_prompt
from kgp_kedro.llm import make_llm  # noqa: E402
from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI, load  # noqa: E402

# the judged samples: (extractor, documents a source, every triple or one drawn) -> file
DATA = ROOT / "benchmarks" / "data" / "fact_precision"
JUDGED = {("dependency", 12, False): DATA / "fact_precision_judged.tsv",
          ("dependency", 2, True): DATA / "fact_precision_judged_every.tsv",
          ("llm", 2, True): DATA / "fact_precision_judged_llm.tsv"}
SOURCES = (("hotpotqa", HOTPOT), ("musique", MUSIQUE), ("2wikimultihopqa", TWOWIKI))


def documents(first: int = 12, per_source: int = 12) -> list[tuple[str, str, str, str]]:
    """``(source, doc_id, title, text)`` of the sample, the same for every extractor: the
    ``first`` of the ``per_source`` documents drawn from each source."""
    out = []
    for name, path in SOURCES:
        _, docs = load(name, path)
        docs = docs.drop_duplicates("doc_id").sample(n=per_source, random_state=3).head(first)
        out += [(name, d, t, x) for d, t, x in zip(docs["doc_id"], docs["title"], docs["text"])]
    return out


def make_extractor(name: str, cache: bool):
    """The extractor, and the seconds its model (spaCy's, the LLM) took to load."""
    if name != "llm":
        start = time.perf_counter()
        extractor = EXTRACTORS.get(name)()
        extractor.extract("Warm", "The parser loads on the first call.")
        return extractor, time.perf_counter() - start
    conf = yaml.safe_load((ROOT / "conf/base/parameters_llm.yml").read_text())["llm"]
    if not cache:
        conf["cache"] = None
    start = time.perf_counter()
    client = make_llm(LLMParams.model_validate(conf).model_dump())
    client.count_tokens("warm")
    return EXTRACTORS.get("llm")(llm=client), time.perf_counter() - start


def draw(extracted, every: bool, seed: int = 11) -> list[tuple[str, str, object]]:
    """One seeded triple of each document that gave one, or ``every`` triple."""
    if every:
        return [(name, doc_id, t) for (name, doc_id, _, _), triples in extracted for t in triples]
    rng = random.Random(seed)
    return [(name, doc_id, rng.choice(triples))
            for (name, doc_id, _, _), triples in extracted if triples]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--extractor", choices=sorted({k[0] for k in JUDGED}),
                        default="dependency")
    parser.add_argument("--judged", action="store_true")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--first", type=int, default=12,
                        help="the first N of each source's 12 documents (a slow extractor)")
    parser.add_argument("--every", action="store_true",
                        help="every triple of each document, not one drawn")
    args = parser.parse_args()
    os.chdir(ROOT)   # the LLM's cache and model folders are relative to the project
    docs = documents(args.first)
    extractor, load_s = make_extractor(args.extractor, not args.no_cache)
    start = time.perf_counter()
    triples = extractor.extract_many([(title, text) for _, _, title, text in docs])
    seconds = time.perf_counter() - start
    extracted = list(zip(docs, triples))
    sample = draw(extracted, args.every)
    if args.extractor == "llm":   # each call's time as it was made (cached calls included)
        replies = extractor.llm.complete_many(
            [[{"role": "user", "content": triple_prompt(text)}] for _, _, _, text in docs],
            max_tokens=extractor.params.max_tokens)
        seconds = sum(r.latency_ms for r in replies) / 1000
        print(f"LLM {extractor.llm.name}: {sum(r.prompt_tokens for r in replies) / len(docs):.0f}"
              f" prompt and {sum(r.completion_tokens for r in replies) / len(docs):.0f} reply "
              f"tokens a document; {extractor.llm.calls} of {len(docs)} calls made now")
    print(f"{args.extractor} extractor on {len(docs)} documents: "
          f"{sum(map(len, triples)) / len(docs):.2f} triples a document, "
          f"{seconds / len(docs):.2f} s a document (+ {load_s:.1f} s to load the model); "
          f"load average now {os.getloadavg()[0]:.1f}")
    rows = [[name, doc, t.subject, t.relation, t.object, t.evidence] for name, doc, t in sample]
    if not args.judged:
        text_of, shown = {d: x for _, d, _, x in docs}, set()
        for i, r in enumerate(rows):
            if not r[5] and r[1] not in shown:   # the LLM gives no sentence: the document
                shown.add(r[1])
                print(f"--- {r[1]}: {text_of[r[1]]}")
            print(i, " | ".join(r[:5]), "|", r[5])
        return
    key = (args.extractor, args.first, args.every)
    if key not in JUDGED:
        raise SystemExit(f"no judgements of {key}; judged: {sorted(JUDGED)}")
    with JUDGED[key].open() as handle:
        judged = list(csv.DictReader(handle, delimiter="\t"))
    if len(judged) != len(rows):
        raise SystemExit(f"{len(rows)} triples drawn, {len(judged)} judged: judge them again")
    for r, j in zip(rows, judged):
        if [j["source"], j["doc_id"], j["subject"], j["relation"], j["object"]] != r[:5]:
            raise SystemExit(f"the draw changed at {r[:5]}: judge it again")
    n = len(judged)
    strict = sum(j["correct"] == "1" for j in judged)
    lenient = sum(j["lenient"] == "1" for j in judged)
    taken = "every triple" if args.every else "one drawn a document"
    print(f"{args.extractor} extractor, {n} hand-checked triples ({taken} of {args.first} "
          f"documents a source): precision "
          f"{strict / n:.2f} (strict), {lenient / n:.2f} (lenient)")


if __name__ == "__main__":
    main()
