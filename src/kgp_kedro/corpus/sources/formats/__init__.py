"""File formats of a ``documents`` folder, one reader a format behind :class:`FileReader`:
PDF (:mod:`.pdf`), HTML (:mod:`.html`), DOCX (:mod:`.docx`), Markdown and text (:mod:`.text`).

:func:`read_file` picks the reader by the file's extension and returns a :class:`FileContent`:
the file's blocks in reading order (text, heading, table; a PDF block keeps its page and
position) and the pages it could not read. A file that cannot be read at all raises
:class:`FileReadError`, naming the file and, where known, the page.
"""
from kgp_kedro.corpus.sources.formats.base import (
    FILE_READERS,
    Block,
    FileContent,
    FileReader,
    FileReadError,
    PageProblem,
    markdown_table,
    read_file,
    reader_for,
    supported_suffixes,
)

__all__ = ["FILE_READERS", "Block", "FileContent", "FileReadError", "FileReader", "PageProblem",
           "markdown_table", "read_file", "reader_for", "supported_suffixes"]
