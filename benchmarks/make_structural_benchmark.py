"""A structural benchmark nobody can tune by hand (issue 10), and its figures.

``make``: each of the first ``--questions`` 2WikiMultihopQA questions of the bundled sample
becomes one file holding its whole collection (its 10 Wikipedia paragraphs, the gold ones and
the dataset's distractors), each paragraph under its title, followed by a real table where the
dataset's evidence triples name the paragraph's entity (``relation | value`` rows, grouped per
entity). Files rotate PDF (A5 pages, fpdf2), DOCX (a hard page break every 3 paragraphs) and
HTML (no pages). The layout ground truth (each block's page, each table's number and rows) is
recorded while rendering (``layout_truth.json``); structural questions come from it in four
templates (a table's cell by page, a table's cell by number, a table's entity, a page's first
heading) and the content questions are the dataset's own. ``questions.jsonl`` makes the
folder a ``documents`` source (``kedro run --env documents``).

Figures printed (each from the files, never from the JSON):

- ingestion: files, pages and pages/s of the folder's reading;
- extraction loss: SP-EM (every supporting sentence inside the top-k TF-IDF passages) of the
  content questions over passages extracted from the files vs over the JSON paragraphs split
  the same way, and the share of JSON sentences found verbatim in the extracted text;
- routing accuracy of the rule router (``--llm``: also the LLM router of parameters_llm.yml);
- the structural questions' page / table hit rates (budget 30) of KGP with routing (its
  structural retrieval on the KG with its structural layer), KGP without routing (Algorithm 1)
  and BM25;
- ``--real-pdfs DIR``: how each PDF under DIR (e.g. pypdf's source ``resources/``) is handled.

Needs fpdf2, the ``benchmark`` extra (``pip install -e ".[benchmark]"``; ``make bench-speed``
installs it, and the ``test`` extra has it too).

Usage::

    python benchmarks/make_structural_benchmark.py --out data/01_raw/structural_benchmark
    python benchmarks/make_structural_benchmark.py --real-pdfs /tmp/pypdf-7.1.0/resources
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
TWOWIKI = ROOT / "data" / "01_raw" / "2wikimultihopqa" / "dev_sample103.json"
HOTPOT = ROOT / "data" / "01_raw" / "hotpotqa" / "hotpot_dev_distractor_v1_sample300.json"
MUSIQUE = ROOT / "data" / "01_raw" / "musique" / "musique_ans_v1.0_dev_sample181.jsonl"
FORMATS = ("pdf", "docx", "html")


def _latin(text: str) -> str:
    """fpdf2's core fonts are latin-1: other characters become '?' (counted as loss)."""
    return text.encode("latin-1", "replace").decode("latin-1")


def _tables(record: dict) -> dict[str, list[list[str]]]:
    """The record's evidence triples grouped per subject: ``relation | value`` rows."""
    grouped: dict[str, list[list[str]]] = {}
    for subject, relation, value in record["evidences"]:
        grouped.setdefault(subject, [["relation", "value"]]).append([relation, value])
    return grouped


def render_pdf(path: Path, record: dict) -> list[dict]:
    from fpdf import FPDF

    tables = _tables(record)
    pdf = FPDF(format=(148, 210))   # A5 in mm
    pdf.set_auto_page_break(True, 15)
    pdf.add_page()
    truth: list[dict] = []
    for title, sentences in record["context"]:
        pdf.set_font("Helvetica", "B", 14)
        pdf.multi_cell(0, 7, _latin(title), new_x="LMARGIN", new_y="NEXT")
        truth.append({"kind": "heading", "text": title, "page": pdf.page_no()})
        pdf.ln(2)
        pdf.set_font("Helvetica", size=10)
        start = pdf.page_no()
        pdf.multi_cell(0, 5, _latin(" ".join(s.strip() for s in sentences)),
                       new_x="LMARGIN", new_y="NEXT")
        truth.append({"kind": "text", "title": title, "page": start, "end_page": pdf.page_no()})
        pdf.ln(4)
        if title in tables:
            rows = tables[title]
            if pdf.get_y() + 7 * len(rows) > pdf.h - 20:
                pdf.add_page()   # a table never split over two pages: its page is known
            with pdf.table() as table:
                for cells in rows:
                    row = table.row()
                    for cell in cells:
                        row.cell(_latin(cell))
            truth.append({"kind": "table", "subject": title, "rows": rows,
                          "page": pdf.page_no()})
            pdf.ln(4)
    pdf.output(str(path))
    return truth


def render_docx(path: Path, record: dict) -> list[dict]:
    import docx

    tables = _tables(record)
    document = docx.Document()
    truth: list[dict] = []
    page = 1
    for i, (title, sentences) in enumerate(record["context"]):
        if i and i % 3 == 0:
            document.add_page_break()
            page += 1
        document.add_heading(title, level=1)
        truth.append({"kind": "heading", "text": title, "page": page})
        document.add_paragraph(" ".join(s.strip() for s in sentences))
        truth.append({"kind": "text", "title": title, "page": page, "end_page": page})
        if title in tables:
            rows = tables[title]
            table = document.add_table(rows=len(rows), cols=2)
            for r, cells in enumerate(rows):
                for c, cell in enumerate(cells):
                    table.cell(r, c).text = cell
            truth.append({"kind": "table", "subject": title, "rows": rows, "page": page})
    document.save(str(path))
    return truth


def render_html(path: Path, record: dict) -> list[dict]:
    from html import escape

    tables = _tables(record)
    parts = [f"<html><head><title>{escape(record['_id'])}</title></head><body>"]
    truth: list[dict] = []
    for title, sentences in record["context"]:
        parts.append(f"<h2>{escape(title)}</h2><p>"
                     f"{escape(' '.join(s.strip() for s in sentences))}</p>")
        truth.append({"kind": "heading", "text": title, "page": None})
        truth.append({"kind": "text", "title": title, "page": None, "end_page": None})
        if title in tables:
            rows = tables[title]
            parts.append("<table>" + "".join(
                "<tr>" + "".join(f"<{'th' if r == 0 else 'td'}>{escape(c)}"
                                 f"</{'th' if r == 0 else 'td'}>" for c in cells) + "</tr>"
                for r, cells in enumerate(rows)) + "</table>")
            truth.append({"kind": "table", "subject": title, "rows": rows, "page": None})
    parts.append("</body></html>")
    path.write_text("\n".join(parts), encoding="utf-8")
    return truth


RENDER = {"pdf": render_pdf, "docx": render_docx, "html": render_html}


def structural_questions(name: str, truth: list[dict]) -> list[dict]:
    """Questions from the layout ground truth, four templates; answers are real cells."""
    out = []
    tables = [b for b in truth if b["kind"] == "table"]
    for k, table in enumerate(tables, start=1):
        relation, value = table["rows"][1]
        subject = table["subject"]
        if table["page"] is not None:
            out.append({"template": "cell_by_page", "question":
                        f"According to the table on page {table['page']} of {name}, what is "
                        f"the {relation} of {subject}?", "answer": value,
                        "structure": {"file": name, "page": table["page"], "table": k}})
        out.append({"template": "cell_by_number", "question":
                    f"In {name}, what does Table {k} give as the {relation} of {subject}?",
                    "answer": value, "structure": {"file": name, "table": k}})
        out.append({"template": "table_entity", "question":
                    f"Which entity is Table {k} of {name} about?", "answer": subject,
                    "structure": {"file": name, "table": k}})
    first_heading: dict[int, str] = {}
    for block in truth:
        if block["kind"] == "heading" and block["page"] is not None:
            first_heading.setdefault(block["page"], block["text"])
    for page, heading in sorted(first_heading.items())[:2]:
        out.append({"template": "page_heading", "question":
                    f"What is the title of the first section on page {page} of {name}?",
                    "answer": heading, "structure": {"file": name, "page": page}})
    return out


def make(out: Path, n_questions: int) -> None:
    records = json.loads(TWOWIKI.read_text())[:n_questions]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    lines, truths = [], {}
    for i, record in enumerate(records):
        fmt = FORMATS[i % len(FORMATS)]
        name = f"q{i:03d}_{record['_id']}.{fmt}"
        truth = RENDER[fmt](out / name, record)
        truths[name] = truth
        lines.append({"id": record["_id"], "question": record["question"],
                      "answer": record["answer"], "supporting_docs": [name],
                      "template": "content"})
        for j, q in enumerate(structural_questions(name, truth)):
            lines.append({"id": f"{record['_id']}_s{j}", **q})
    (out / "questions.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    (out / "layout_truth.json").write_text(json.dumps(truths, indent=1))
    n_struct = sum(1 for x in lines if "structure" in x)
    print(f"wrote {len(records)} files and {len(lines)} questions ({n_struct} structural, "
          f"{len(lines) - n_struct} content) to {out}")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]", " ", text.lower()).split())


def measure(out: Path, top: int, use_llm: bool) -> None:
    from kgp_kedro.pipelines.parameter_tree import parse_variant
    from kgp_kedro.corpus import split_passages
    from kgp_kedro.corpus.sources import read_source_with_skipped
    from kgp_kedro.corpus.sources.formats import read_file
    from kgp_kedro.evaluation.structure import StructureIndex
    from kgp_kedro.graphs.build import build_variant
    from kgp_kedro.graphs.model import Graph
    from kgp_kedro.corpus.collection import Collection
    from kgp_kedro.retrievers.base import RETRIEVERS, Resources
    from kgp_kedro.retrievers.kgp import Kgp
    from kgp_kedro.retrievers.structural import classify_llm, classify_rules
    from kgp_kedro.search.tfidf import TfidfIndex

    # ingestion speed: every file read once, pages counted
    files = sorted(p for p in out.iterdir() if p.suffix in {".pdf", ".docx", ".html"})
    start = time.perf_counter()
    pages = {}
    for path in files:
        pages[path.suffix] = pages.get(path.suffix, 0) + (read_file(path).pages or 1)
    seconds = time.perf_counter() - start
    pdf_start = time.perf_counter()
    pdf_pages = sum(read_file(p).pages for p in files if p.suffix == ".pdf")
    pdf_seconds = time.perf_counter() - pdf_start
    print(f"ingestion: {len(files)} files, {sum(pages.values())} pages/units "
          f"({pages}), {seconds:.2f} s: {sum(pages.values()) / seconds:.1f} pages/s; "
          f"PDF only: {pdf_pages} pages in {pdf_seconds:.2f} s: "
          f"{pdf_pages / pdf_seconds:.1f} pages/s")

    read = read_source_with_skipped("documents", out, "bench")
    questions = pd.DataFrame(read.questions)
    passages = split_passages(pd.DataFrame(read.documents))
    raw = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    template = {r["id"]: r["template"] for r in raw}

    # extraction loss: SP-EM over file passages vs JSON passages split the same way
    records = {r["_id"]: r for r in json.loads(TWOWIKI.read_text())}
    content = [r for r in raw if r["template"] == "content"]
    json_docs = pd.DataFrame([
        {"source": "json", "collection_id": "json/all", "doc_id": f"json/{r['id']}/{t}",
         "title": t, "text": " ".join(s.strip() for s in sents), "sentences": None,
         "sentence_support": None, "is_supporting": False, "is_negative": False,
         "position": 0, "layout": None}
        for r in content for t, sents in records[r["id"]]["context"]])
    json_passages = split_passages(json_docs)
    all_sentences = []
    hits = {"files": [], "json": []}
    for name, table in (("files", passages), ("json", json_passages)):
        texts = table["text"].tolist()
        index = TfidfIndex(texts)
        for r in content:
            record = records[r["id"]]
            by_title = dict((t, s) for t, s in record["context"])
            gold = [_norm(by_title[t][i]) for t, i in record["supporting_facts"]
                    if t in by_title and i < len(by_title[t])]
            positions, _ = index.search(r["question"], top)
            seen = _norm(" ".join(texts[i] for i in positions))
            hits[name].append(all(g in seen for g in gold))
    extracted = _norm(" ".join(passages["text"]))
    for r in content:
        all_sentences.extend(_norm(s) for _, sents in records[r["id"]]["context"]
                             for s in sents if _norm(s))
    recovered = sum(s in extracted for s in all_sentences) / len(all_sentences)
    sp_files = sum(hits["files"]) / len(content)
    sp_json = sum(hits["json"]) / len(content)
    print(f"extraction loss: SP-EM@{top} (TF-IDF, {len(content)} content questions) files "
          f"{sp_files:.3f} vs JSON {sp_json:.3f}: gap {sp_json - sp_files:+.3f}; JSON sentences "
          f"found verbatim in the extracted text: {recovered:.3f} ({len(all_sentences)})")

    # routing accuracy
    gold_structural = {r["id"]: "structure" in r for r in raw}
    rules = {q: classify_rules(t) is not None for q, t in zip(questions["question_id"],
                                                            questions["question"])}
    accuracy = sum(rules[q] == gold_structural[q] for q in rules) / len(rules)
    print(f"routing accuracy (rules): {accuracy:.3f} over {len(rules)} questions "
          f"({sum(gold_structural.values())} structural)")
    # every bundled dataset question is a content question: the router's false positives
    bundled = [r["question"] for r in json.loads(TWOWIKI.read_text())]
    bundled += [r["question"] for r in json.loads(HOTPOT.read_text())]
    bundled += [json.loads(line)["question"] for line in MUSIQUE.read_text().splitlines()]
    wrong = [q for q in bundled if classify_rules(q) is not None]
    print(f"routing accuracy (rules) on the {len(bundled)} bundled content questions "
          f"(HotpotQA, MuSiQue, 2Wiki): {1 - len(wrong) / len(bundled):.3f}"
          + (f"; routed as structural: {wrong[:3]}" if wrong else ""))
    if use_llm:
        from kgp_kedro.llm import make_llm
        from omegaconf import OmegaConf

        llm = make_llm(OmegaConf.to_container(OmegaConf.load(
            ROOT / "conf" / "base" / "parameters_llm.yml"))["llm"])
        found = classify_llm(questions["question"].tolist(), llm)
        llm_acc = sum((f is not None) == gold_structural[q]
                      for q, f in zip(questions["question_id"], found)) / len(found)
        print(f"routing accuracy (llm): {llm_acc:.3f}")

    # structural retrieval on the TF-IDF KG with its structural layer
    spec = parse_variant("tfidf", {"builder": "tfidf"}, "kg.variants.tfidf")
    nodes, edges = build_variant(passages, spec.make_builder(), spec.settings, "tfidf")
    setting = edges["setting"].iloc[0]
    graph = Graph.from_tables(nodes, edges[edges["setting"] == setting])
    index = StructureIndex(passages)
    collection = Collection.from_passages("bench/all", passages, graph=graph)
    methods = {"kgp_tfidf (routing: rules)": Kgp(Kgp.Params(), Resources(30)),
               "kgp_tfidf (routing: off)": Kgp(Kgp.Params(routing="off"), Resources(30)),
               "bm25": RETRIEVERS.get("bm25")(RETRIEVERS.get("bm25").Params(), Resources(30))}
    rows = []
    structural = [q for q in questions.itertuples(index=False)
                  if "structure" in json.loads(q.meta)]
    for label, method in methods.items():
        for q in structural:
            visits = method.retrieve(q.question, collection)
            scores = index.scores(json.loads(q.meta)["structure"], q.source, 0.0,
                                  [p for v in visits for p in v.path])
            rows.append({"method": label, "template": template[q.question_id], **scores})
    hits = pd.DataFrame(rows)
    print(f"structural retrieval, budget 30, {len(structural)} structural questions "
          "(page / table hit: the gold page / table among the retrieved passages):")
    print(hits.groupby(["method", "template"], sort=False)[["page_hit", "table_hit"]]
          .mean().round(3).to_string())
    print(hits.groupby("method", sort=False)[["page_hit", "table_hit"]].mean().round(3)
          .to_string())


def real_pdfs(folder: Path) -> None:
    """Every PDF under ``folder`` read: pages, blocks, tables, problems or the named error."""
    from kgp_kedro.corpus.sources.formats import FileReadError, read_file

    counts: dict[str, int] = {}
    for path in sorted(folder.rglob("*.pdf")):
        rel = path.relative_to(folder)
        start = time.perf_counter()
        try:
            content = read_file(path)
        except FileReadError as exc:
            outcome = "skipped (named error)"
            print(f"- {rel}: {outcome}: {exc.reason[:110]}")
        except Exception as exc:  # noqa: BLE001 - a crash is what this measures
            outcome = "CRASH"
            print(f"- {rel}: CRASH {type(exc).__name__}: {exc}")
        else:
            tables = sum(b.kind == "table" for b in content.blocks)
            problems = "; ".join(p.reason for p in content.problems)[:110]
            outcome = "read with page problems" if content.problems else "read"
            print(f"- {rel}: {outcome}: {content.pages} pages, {len(content.blocks)} blocks, "
                  f"{tables} tables, {time.perf_counter() - start:.2f} s"
                  + (f"; {problems}" if problems else ""))
        counts[outcome] = counts.get(outcome, 0) + 1
    print(f"real-world PDFs: {counts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "01_raw" /
                        "structural_benchmark")
    parser.add_argument("--questions", type=int, default=12)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--llm", action="store_true", help="also the LLM router (slow on CPU)")
    parser.add_argument("--no-make", action="store_true", help="measure an existing folder")
    parser.add_argument("--real-pdfs", type=Path, help="read every PDF under this folder")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} "
          f"({subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores)")
    if args.real_pdfs:
        real_pdfs(args.real_pdfs)
        return
    if not args.no_make:
        make(args.out, args.questions)
    measure(args.out, args.top, args.llm)


if __name__ == "__main__":
    main()
