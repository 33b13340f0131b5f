"""Precision of the offline fact extractor on a hand-checked sample.

Draws one triple from each of 12 seeded documents of the bundled HotpotQA, MuSiQue and 2Wiki
dev samples (documents without a triple skipped) and prints them with their sentence. The
judgements of that draw are in ``benchmarks/fact_precision_judged.tsv`` (``correct``: the
triple states, with subject and object as named, a fact the sentence states; ``lenient``:
also a true fact whose object is cut short, e.g. 'first work' of 'the first work of literary
Surrealism'); with ``--judged`` the script checks that the draw still matches the file and
prints strict and lenient precision.

    .venv/bin/python benchmarks/fact_precision.py [--judged]
"""
from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kgp_kedro.facts import EXTRACTORS  # noqa: E402
from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI, load  # noqa: E402

JUDGED = ROOT / "benchmarks" / "fact_precision_judged.tsv"


def draw(per_source: int = 12, seed: int = 11) -> list[tuple[str, str, object]]:
    extractor = EXTRACTORS.get("dependency")()
    rng = random.Random(seed)
    out = []
    for name, path in (("hotpotqa", HOTPOT), ("musique", MUSIQUE), ("2wikimultihopqa", TWOWIKI)):
        _, docs = load(name, path)
        docs = docs.drop_duplicates("doc_id").sample(n=per_source, random_state=3)
        for doc_id, triples in zip(docs["doc_id"], extractor.extract_many(
                list(zip(docs["title"], docs["text"])))):
            if triples:
                out.append((name, doc_id, rng.choice(triples)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--judged", action="store_true")
    args = parser.parse_args()
    sample = draw()
    rows = [[name, doc, t.subject, t.relation, t.object, t.evidence] for name, doc, t in sample]
    if not args.judged:
        for i, r in enumerate(rows):
            print(i, " | ".join(r))
        return
    with JUDGED.open() as handle:
        judged = list(csv.DictReader(handle, delimiter="\t"))
    for r, j in zip(rows, judged):
        if [j["source"], j["doc_id"], j["subject"], j["relation"], j["object"]] != r[:5]:
            raise SystemExit(f"the draw changed at {r[:5]}: judge it again")
    n = len(judged)
    strict = sum(j["correct"] == "1" for j in judged)
    lenient = sum(j["lenient"] == "1" for j in judged)
    print(f"dependency extractor, {n} hand-checked triples: precision {strict / n:.2f} "
          f"(strict), {lenient / n:.2f} (lenient)")


if __name__ == "__main__":
    main()
