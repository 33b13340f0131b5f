"""The answers report of an ask run, as Markdown and as HTML: each question as a heading with
its text verbatim, the answer with its mark (*supported*, *partly supported*, *not found*),
each claim with its verdict and the snippet that supports it, its cited sources one a line
(``[n] <file>, p. <page>`` or ``, § <heading>``) with a snippet (a *not found* answer: the
closest passages), the retrieval paths, time and tokens; then the same as one table."""
from __future__ import annotations

import html
import json

import pandas as pd

TABLE_COLUMNS = ["question_id", "question", "answer", "mark", "sources", "n_dropped", "top_file",
                 "sanity_top_file", "seconds", "tokens"]


def _table(answers: pd.DataFrame) -> pd.DataFrame:
    return answers.assign(
        seconds=((answers["retrieval_ms"] + answers["latency_ms"]) / 1000).round(1),
        tokens=answers["prompt_tokens"] + answers["completion_tokens"],
        sources=answers["sources"].str.replace("\n", "; "))[TABLE_COLUMNS]


def _label(citation: dict) -> str:
    return citation["label"] + (" (attributed: the answer cited nothing; the quote sharing "
                                "most words with it)" if citation.get("attributed") else "")


def _facts(row) -> str:
    sanity = (f"; {row.sanity_method}'s top file: {row.sanity_top_file}"
              if row.sanity_method else "")
    dropped = (f"; {row.n_dropped} citation(s) dropped (not in the context: "
               f"{', '.join(f'[{n}]' for n in row.dropped)})" if row.n_dropped else "")
    return (f"{row.method}; retrieval {row.retrieval_ms / 1000:.1f} s, answer "
            f"{row.latency_ms / 1000:.1f} s{' (cached)' if row.cached else ''}; tokens "
            f"{row.prompt_tokens} in, {row.completion_tokens} out{sanity}{dropped}")


def _claims(row) -> list[str]:
    """Each claim with its verdict, its supporting quotes and snippet, one a line."""
    out = []
    for c in json.loads(row.claims):
        held = (f" [{', '.join(str(n) for n in c['support'])}]: \"{c['snippet']}\""
                if c["support"] else "")
        moved = (f" (cited [{', '.join(str(n) for n in c['cited'])}])"
                 if c["verdict"] == "re-attributed" and c["cited"] else "")
        out.append(f"{c['claim']}: {c['verdict']}{moved}{held}")
    return out


def _sources(row) -> tuple[str, list[dict]]:
    """The heading of the sources and the citations under it: the closest passages of an
    answer not found, else the cited ones."""
    closest = json.loads(row.closest)
    if row.mark == "not found" and closest:
        return "Closest passages:", closest
    return "Sources:", json.loads(row.citations)


def answers_markdown(answers: pd.DataFrame, title: str = "Answers") -> str:
    """The report as Markdown."""
    lines = [f"# {title}", ""]
    for row in answers.itertuples(index=False):
        lines += [f"## {row.question_id}: {row.question}", ""]
        lines += [f"**Error:** {row.error}" if row.error else row.answer or "(no answer)", ""]
        lines += [f"*{row.mark}*", ""]
        if len(claims := _claims(row)):
            lines += ["Claims:", "", *[f"- {c}" for c in claims], ""]
        heading, citations = _sources(row)
        if citations:
            lines += [heading, ""]
            lines += [f"- [{c['n']}] {_label(c)}: \"{c['snippet']}\"" for c in citations]
        else:
            lines.append("Sources: none cited.")
        lines.append("")
        if len(row.paths):
            lines += ["Retrieval path(s) to the cited passages:", ""]
            lines += [f"- {path}" for path in row.paths]
            lines.append("")
        lines += [f"_{_facts(row)}_", ""]
    table = _table(answers)
    lines += ["## All answers", "", "| " + " | ".join(TABLE_COLUMNS) + " |",
              "| " + " | ".join("---" for _ in TABLE_COLUMNS) + " |"]
    for values in table.itertuples(index=False):
        cells = ["" if pd.isna(v) else " ".join(str(v).split()).replace("|", "\\|")
                 for v in values]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def answer_html(row, folded: bool = False) -> str:
    """One answer's block of the HTML report (a row of the answers table): the question as a
    heading, the answer, its mark, claims, sources with their snippets, paths and facts; each
    source a ``<details>`` element whose summary is ``[n] <file>, p. <page>`` (or ``, §
    <heading>``) and whose body is the passage's snippet, closed when ``folded`` (the app's
    clickable citations), open otherwise (the report)."""
    e = html.escape
    parts = [f"<h2>{e(row.question_id)}: {e(row.question)}</h2>",
             f"<p><b>Error:</b> {e(row.error)}</p>" if row.error
             else f"<p class='answer'>{e(row.answer or '(no answer)')}</p>",
             f"<p class='mark'><i>{e(row.mark)}</i></p>"]
    if len(claims := _claims(row)):
        parts.append("<p>Claims:</p><ul>" + "".join(f"<li>{e(c)}</li>" for c in claims)
                     + "</ul>")
    heading, citations = _sources(row)
    if citations:
        opened = "" if folded else " open"
        parts.append(f"<p>{e(heading)}</p><ul class='sources'>" + "".join(
            f"<li><details{opened}><summary>[{c['n']}] {e(_label(c))}</summary>"
            f"<blockquote>{e(c['snippet'])}</blockquote></details></li>" for c in citations)
            + "</ul>")
    else:
        parts.append("<p>Sources: none cited.</p>")
    if len(row.paths):
        parts.append("<p>Retrieval path(s) to the cited passages:</p><ul>"
                     + "".join(f"<li>{e(p)}</li>" for p in row.paths) + "</ul>")
    parts.append(f"<p class='facts'>{e(_facts(row))}</p>")
    return "\n".join(parts)


def answers_html(answers: pd.DataFrame, title: str = "Answers") -> str:
    """The report as one self-contained HTML page: each answer's block
    (:func:`answer_html`), then all answers as one table."""
    e = html.escape
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
             "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;}"
             ".facts{color:#555;font-size:90%;} blockquote{color:#333;margin:0.2em 1em;}"
             "table{border-collapse:collapse;} td,th{border:1px solid #ccc;padding:0.3em;"
             "vertical-align:top;}</style></head><body>", f"<h1>{e(title)}</h1>"]
    parts += [answer_html(row) for row in answers.itertuples(index=False)]
    parts.append("<h2>All answers</h2>")
    parts.append(_table(answers).to_html(index=False, na_rep="").replace("\\n", "<br>"))
    parts.append("</body></html>")
    return "\n".join(parts)
