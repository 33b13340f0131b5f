"""Which PDF text extractor the documents reader should use, measured against poppler's
``pdftotext`` on sampled pages of real PDFs.

For each parser and each sampled page: ``(cid:N)`` left (glyphs with no Unicode mapping),
ligature code points (U+FB00-FB06), line-end hyphen breaks left (``manu- al`` where the
document writes ``manual``), characters wrong or out of order (the normalized edit distance to
the reference, in %), the share of the reference's word 5-grams found (a column read across
breaks them), and pages a second. Parsers: pdfplumber's ``extract_text`` (what the reader used
before), pdfplumber following the file's text flow, PDFium's raw text (pypdfium2), and the
project's reader (:mod:`kgp_kedro.corpus.sources.formats.pdf`). Both texts are compared with
whitespace collapsed, table pipes dropped, and the reference's ligatures spelled out and its
line-end hyphens resolved the way the reader resolves them.

poppler is GPL: ``pdftotext`` is the reference only (``apt-get install poppler-utils``), never
a dependency. Usage::

    python benchmarks/bench_pdf_text.py [PDF or folder ...] [--pages 6] [--seed 0] [--per-file]

Without paths it reads the dev set's PDFs, ``benchmarks/data/real_docs/dev/``.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import time
from collections import defaultdict
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from kgp_kedro.corpus.sources.formats import pdf as reader

DEV = Path(__file__).resolve().parent / "data" / "real_docs" / "dev"
LIGATURE = re.compile("[\ufb00-\ufb06]")
HYPHEN_BREAK = re.compile(r"([^\W\d_]+)-\s+([^\W\d_]+)")
LINE_END_HYPHEN = re.compile(r"(\w*[^\W\d_])-\n(?=[a-z])")
WORD = re.compile(r"\w+(?:-\w+)*")
METRICS = ("cid", "ligatures", "hyphen breaks left", "chars wrong %", "5-grams found %",
           "pages/s")


def pdfplumber_text(path: Path, pages: list[int], flow: bool = False) -> list[str]:
    """pdfplumber's ``extract_text`` of each page (top to bottom, or in the file's flow)."""
    import pdfplumber

    with pdfplumber.open(str(path)) as pdf:
        return [pdf.pages[i].extract_text(use_text_flow=flow) or "" for i in pages]


def pdfplumber_flow(path: Path, pages: list[int]) -> list[str]:
    return pdfplumber_text(path, pages, flow=True)


def pdfium_text(path: Path, pages: list[int]) -> list[str]:
    """PDFium's text of each page, as pypdfium2 returns it."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return [document[i].get_textpage().get_text_range() for i in pages]
    finally:
        document.close()


def reader_text(path: Path, pages: list[int]) -> list[str]:
    """The project reader's blocks of each page, one a line."""
    plumber, document, plumber_pages = reader.open_pdf(path)
    try:
        texts = []
        for i in pages:
            blocks, _ = reader.page_blocks(plumber_pages[i], document[i], i + 1)
            texts.append("\n".join(b.text for b in reader.resolve_hyphens(blocks)))
        return texts
    finally:
        document.close()
        plumber.close()


PARSERS = {"pdfplumber extract_text (before)": pdfplumber_text,
           "pdfplumber text flow": pdfplumber_flow,
           "pypdfium2 raw text": pdfium_text,
           "reader: pypdfium2 + pdfplumber tables": reader_text}


def reference_text(path: Path, page: int) -> str:
    """poppler's ``pdftotext`` of one 0-based page, its ligatures spelled out."""
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", "-f", str(page + 1), "-l",
                          str(page + 1), str(path), "-"], capture_output=True, text=True,
                         check=True).stdout
    return reader.clean_text(out.replace("\f", "\n"))


def dehyphenated(text: str, compounds: set[str]) -> str:
    """``text`` with line-end hyphens inside words joined, unless the hyphenated form is one
    of ``compounds`` (the reader's rule)."""
    def join(match: re.Match) -> str:
        rest = re.match(r"\w+", text[match.end():])
        whole = f"{match[1]}-{rest[0] if rest else ''}"
        return f"{match[1]}-" if whole in compounds else match[1]

    return LINE_END_HYPHEN.sub(join, text)


def normalized(text: str) -> str:
    """Whitespace collapsed, table pipes and rules dropped."""
    return " ".join(re.sub(r"\|\s*(---\s*\|\s*)*", " ", text).split())


def grams(text: str, n: int = 5) -> set[tuple[str, ...]]:
    words = WORD.findall(text.lower())
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def page_scores(output: str, reference: str, vocabulary: set[str]) -> dict[str, float]:
    """The counts and distances of one parser's page text against the reference."""
    breaks = sum(1 for m in HYPHEN_BREAK.finditer(" ".join(output.split()))
                 if m[1] + m[2] in vocabulary and f"{m[1]}-{m[2]}" not in vocabulary)
    breaks += output.count(reader.LINE_END_HYPHEN)
    ours, theirs = normalized(output), normalized(reference)
    wanted = grams(theirs)
    return {"cid": output.count("(cid:"), "ligatures": len(LIGATURE.findall(output)),
            "hyphen breaks left": breaks,
            "edits": Levenshtein.distance(ours, theirs), "length": max(len(theirs), 1),
            "grams": len(wanted), "found": len(wanted & grams(ours))}


def sampled(path: Path, count: int, seed: int) -> list[int]:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    pages = len(document)
    document.close()
    return sorted(random.Random(f"{seed}:{path.name}").sample(range(pages), min(count, pages)))


def measure(paths: list[Path], count: int, seed: int) -> tuple[dict, dict]:
    """Per parser and per file: summed page scores and seconds."""
    totals: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    per_file: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for path in paths:
        pages = sampled(path, count, seed)
        references = [reference_text(path, i) for i in pages]
        words = {w for ref in references for w in WORD.findall(ref) if "-" in w}
        references = [dehyphenated(ref, words) for ref in references]
        vocabulary = {w for ref in references for w in WORD.findall(ref)}
        for name, parse in PARSERS.items():
            start = time.perf_counter()
            outputs = parse(path, pages)
            seconds = time.perf_counter() - start
            for row in (totals[name], per_file[(path.name, name)]):
                row["seconds"] += seconds
                row["pages"] += len(pages)
                for output, reference in zip(outputs, references):
                    for key, value in page_scores(output, reference, vocabulary).items():
                        row[key] += value
    return totals, per_file


def row_figures(row: dict[str, float]) -> list[str]:
    return [f"{row['cid']:.0f}", f"{row['ligatures']:.0f}", f"{row['hyphen breaks left']:.0f}",
            f"{100 * row['edits'] / row['length']:.1f}",
            f"{100 * row['found'] / max(row['grams'], 1):.1f}",
            f"{row['pages'] / row['seconds']:.1f}"]


def table(rows: list[tuple[list[str], dict[str, float]]], heads: list[str]) -> str:
    lines = ["| " + " | ".join([*heads, *METRICS]) + " |",
             "|" + "---|" * (len(heads) + len(METRICS))]
    lines += ["| " + " | ".join([*names, *row_figures(row)]) + " |" for names, row in rows]
    return "\n".join(lines)


def pdf_paths(given: list[str]) -> list[Path]:
    roots = [Path(p) for p in given] or [DEV]
    found = [p for root in roots for p in ([root] if root.is_file() else
                                           sorted(root.rglob("*.pdf")))]
    if not found:
        raise SystemExit(f"no PDFs in {', '.join(map(str, roots))}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="PDFs or folders (default: the dev set)")
    parser.add_argument("--pages", type=int, default=6, help="pages sampled a PDF")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-file", action="store_true", help="a row per file and parser")
    args = parser.parse_args()
    paths = pdf_paths(args.paths)
    totals, per_file = measure(paths, args.pages, args.seed)
    pages = int(next(iter(totals.values()))["pages"])
    print(f"{len(paths)} PDFs, {pages} pages sampled (up to {args.pages} a file, seed "
          f"{args.seed}); reference: pdftotext; {os.cpu_count()} CPUs at load "
          f"{os.getloadavg()[0]:.1f}\n")
    print(table([([name], row) for name, row in totals.items()], ["parser"]))
    if args.per_file:
        print()
        print(table([(list(key), row) for key, row in per_file.items()], ["file", "parser"]))


if __name__ == "__main__":
    main()
