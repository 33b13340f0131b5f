"""The ask app (KGP's demo, §8.7 and Figures 11-18: upload documents, ask, SUBMIT, the answer
with its sources), as ipywidgets over an ask session: upload files (written into the uploads
folder) or name a folder, and the folder is opened (its tables built and the session over them,
by the ``open_folder`` it is given: :func:`kgp_kedro.pipelines.ask_folder.open_folder`); type a
question, press SUBMIT, and see the answer with its mark (*supported*, *partly supported*,
*not found*), its citations (file, page or heading; a click shows the passage's snippet), the
retrieval paths and the traversal figure over the folder's KG (the cited passages outlined).
Served by Voilà (``make app``) or run in JupyterLab (notebooks/ask_app.ipynb)."""
from __future__ import annotations

import html
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ipywidgets as w
from IPython.display import display

from kgp_kedro.asking.report import answer_html
from kgp_kedro.asking.session import Asked
from kgp_kedro.corpus.sources.formats import supported_suffixes
from kgp_kedro.reporting.notebook import traversal_figure

logger = logging.getLogger(__name__)

# opens a folder: (the folder, the folder open before or None) -> an object with ``session`` (an
# AskSession), ``nodes``, ``edges`` and ``setting`` (the KG drawn under each answer)
FolderOpener = Callable[[Path, Any], Any]


def save_uploads(files, folder: Path) -> list[str]:
    """Write FileUpload's ``files`` (``name`` and ``content`` each) into ``folder``, each under
    its own base name (a name with a folder part keeps only its last part); the names
    written."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for file in files:
        name = Path(str(file["name"])).name
        if not name or name.startswith("."):
            continue
        (folder / name).write_bytes(bytes(file["content"]))
        names.append(name)
    return names


class AskApp:
    """The app's widgets (module docstring); ``open_folder`` builds a folder's session,
    ``uploads`` is where uploaded files go, ``folder`` the folder field's first value."""

    def __init__(self, open_folder: FolderOpener, uploads: Path,
                 folder: str | None = None) -> None:
        self._open, self.uploads, self.opened = open_folder, Path(uploads), None
        self.asked: Asked | None = None   # the last question's answer row and retrieved rows
        self.upload = w.FileUpload(accept=",".join(supported_suffixes()), multiple=True,
                                   description="UPLOAD FILES")
        self.folder = w.Text(value=folder or "", placeholder="/path/to/your/documents",
                             description="Folder")
        self.open_button = w.Button(description="OPEN FOLDER")
        self.status = w.HTML("Upload files or name a folder of PDF, DOCX, HTML, Markdown or "
                             "text files.")
        self.question = w.Textarea(placeholder="Ask a question about your documents",
                                   layout=w.Layout(width="100%", height="5em"))
        self.submit = w.Button(description="SUBMIT", button_style="primary", disabled=True)
        self.answer = w.HTML()
        self.answer.add_class("kgp-answer")
        self.figure = w.Output()
        self.upload.observe(self._uploaded, names="value")
        self.open_button.on_click(self._open_named)
        self.submit.on_click(lambda _: self.ask(self.question.value))
        self.view = w.HBox([
            w.VBox([self.upload, w.HBox([self.folder, self.open_button]), self.status,
                    self.question, self.submit], layout=w.Layout(width="40%")),
            w.VBox([self.answer, self.figure], layout=w.Layout(width="60%"))])

    def show(self) -> None:
        display(self.view)

    def _busy(self, busy: bool) -> None:
        for widget in (self.upload, self.open_button, self.submit):
            widget.disabled = busy
        if not busy:
            self.submit.disabled = self.opened is None

    def _open_named(self, _) -> None:
        if not self.folder.value.strip():
            self.status.value = "Name a folder first (or upload files)."
            return
        self.open(Path(self.folder.value.strip()))

    def _uploaded(self, change) -> None:
        names = save_uploads(change["new"], self.uploads)
        if names:
            self.upload.value = ()   # the same file uploaded again is a change again
            self.folder.value = str(self.uploads)
            self.open(self.uploads, f"uploaded {', '.join(names)}; ")

    def open(self, folder: Path, said: str = "") -> None:
        """OPEN FOLDER: open ``folder`` (its tables built, its session opened); a folder that
        cannot be read says why in the status line (the folder open before stays open)."""
        self._busy(True)
        self.status.value = html.escape(f"{said}reading {folder} ...")
        try:
            self.opened = self._open(folder, self.opened)
        except Exception as exc:   # the app's boundary: the reason shown, not a traceback
            logger.exception("opening %s failed", folder)
            self.status.value = f"<b>Could not open {html.escape(str(folder))}:</b> " \
                                f"{html.escape(str(exc))}"
        else:
            passages = self.opened.session.passages
            files = sorted(passages["doc_id"].str.split("/", n=1).str[1].unique())
            self.status.value = html.escape(
                f"{said}{len(files)} file{'s' * (len(files) != 1)}, {len(passages)} passages: "
                f"{', '.join(files)}. Ask a question.")
        finally:
            self._busy(False)

    def ask(self, question: str) -> None:
        """SUBMIT: ``question``'s answer, its sources and its traversal figure."""
        if self.opened is None or not question.strip():
            return
        self._busy(True)
        self.answer.value = "<p>Answering ...</p>"
        self.figure.clear_output()
        try:
            asked = self.asked = self.opened.session.ask(question)
        except Exception as exc:   # the app's boundary: the reason shown, not a traceback
            logger.exception("asking %r failed", question)
            self.answer.value = f"<p><b>Could not answer:</b> {html.escape(str(exc))}</p>"
            return
        finally:
            self._busy(False)
        row = next(asked.answer.itertuples(index=False))
        self.answer.value = answer_html(row, folded=True)
        if len(asked.retrieved):   # the cited passages outlined and labelled, as supporting
            passages = self.opened.session.passages
            cited = {c["passage_id"] for c in json.loads(row.citations)}
            with self.figure:
                display(traversal_figure(
                    self.opened.nodes, self.opened.edges,
                    passages.assign(is_supporting=passages["passage_id"].isin(cited)),
                    asked.retrieved.assign(question=row.question), row.question_id,
                    self.opened.setting))
