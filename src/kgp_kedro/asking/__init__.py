"""Asking your own documents: cited answers (EWEK-QA's composer format, ``[n]``) over one
retrieval method's contexts, each citation resolved to its file, page or heading and passage,
and the answers report (Markdown and HTML). Kedro-free; the ``ask`` stage wraps it."""
from kgp_kedro.asking.answers import ASK_COLUMNS, answer_with_citations
from kgp_kedro.asking.citations import Located, check_citations, locate_passages, source_label
from kgp_kedro.asking.report import answers_html, answers_markdown

__all__ = ["ASK_COLUMNS", "Located", "answer_with_citations", "answers_html",
           "answers_markdown", "check_citations", "locate_passages", "source_label"]
