"""The text of a plain file's bytes, whatever common encoding it was saved in: a byte-order mark
names the codec (UTF-8, UTF-16 or UTF-32, little or big endian); without one, UTF-8 when the
bytes are valid UTF-8, else Windows-1252 (which reads Latin-1 text too) when they decode to
printable text. Bytes that are none of these raise :class:`FileReadError` naming the file, so
the folder's other files are still read."""
from __future__ import annotations

import codecs
import re
from pathlib import Path

from kgp_kedro.corpus.sources.formats.base import FileReadError

# longest first: UTF-32 LE's mark begins with UTF-16 LE's
BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
                    (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                    (codecs.BOM_UTF16_BE, "utf-16-be"))
EIGHT_BIT = "cp1252"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")  # not tab, newline, form feed, return


def _with_mark(path: Path, data: bytes, mark: bytes, codec: str) -> str:
    try:
        return data[len(mark):].decode(codec)
    except UnicodeDecodeError as exc:
        offset = len(mark) + exc.start
        raise FileReadError(path, f"not {codec.upper()} text despite its byte-order mark "
                                  f"(bad bytes at offset {offset}: {exc.reason})") from exc


def decode_text(path: Path, data: bytes) -> str:
    """``data`` (the bytes of ``path``) as text: by its byte-order mark, else UTF-8, else
    Windows-1252 when that gives printable text; :class:`FileReadError` otherwise."""
    for mark, codec in BYTE_ORDER_MARKS:
        if data.startswith(mark):
            return _with_mark(path, data, mark, codec)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as utf8_error:
        try:
            text = data.decode(EIGHT_BIT)
        except UnicodeDecodeError:
            text = None
        if text is not None and not _CONTROL.search(text):
            return text
        raise FileReadError(path, "not text: neither UTF-8 (byte "
                                  f"0x{data[utf8_error.start]:02x} at offset {utf8_error.start}"
                                  "), nor UTF-16/32 with a byte-order mark, nor printable "
                                  "Windows-1252 / Latin-1") from utf8_error
