"""Loading raw dataset records: JSON lists and JSONL files read as UTF-8 (a leading BOM
dropped), each record behind a typed accessor whose errors name the file and the record (index
or line, and id), and the check of a source's ``limit``.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kgp_kedro.corpus.errors import DatasetFormatError, ParameterError


def _type_name(kind: type | tuple[type, ...]) -> str:
    return kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    """``isinstance`` that does not take a bool for an int (JSON ``true`` is no number)."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def _decode(path: Path, data: bytes, where: str | None = None) -> str:
    """UTF-8 text of ``data`` (a leading BOM dropped); a bad byte names the file and line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if where is None:
            line = data[:exc.start].count(b"\n") + 1
            where = f"line {line}"
        raise DatasetFormatError(path, where, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at "
                                              f"offset {exc.start}: {exc.reason})") from exc


def _load_json_list(path: Path) -> list[Any]:
    text = _decode(path, path.read_bytes())
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DatasetFormatError(path, f"line {exc.lineno}", f"invalid JSON ({exc.msg})") from exc
    if not isinstance(data, list):
        raise DatasetFormatError(path, "top level", "expected a JSON list of question records")
    return data


def _iter_jsonl(path: Path) -> Iterator[tuple[str, Any]]:
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            where = f"line {line_no}"
            line = _decode(path, raw, where)
            if not line.strip():
                continue
            try:
                yield where, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetFormatError(path, where, f"invalid JSON ({exc.msg})") from exc


class _Record:
    """Typed access to one raw record, raising errors that name the file and the record."""

    def __init__(self, path: Path, where: str, raw: Any, id_key: str) -> None:
        self.path = path
        self.where = where
        if not isinstance(raw, dict):
            self.fail(f"expected a JSON object, got {type(raw).__name__}")
        self.raw = raw
        rid = raw.get(id_key)
        if rid is not None and not _is(rid, (str, int)):
            self.fail(f"field '{id_key}' should be str/int, got {type(rid).__name__}")
        self.id = str(rid).strip() if rid is not None else None
        if self.id:
            self.where = f"{where} (id {self.id})"

    def fail(self, reason: str) -> None:
        raise DatasetFormatError(self.path, self.where, reason)

    def get(self, key: str, kind: type | tuple[type, ...], optional: bool = False) -> Any:
        if key not in self.raw or self.raw[key] is None:
            if optional:
                return None
            self.fail(f"missing field '{key}'" if key not in self.raw
                      else f"field '{key}' is null")
        value = self.raw[key]
        if not _is(value, kind):
            self.fail(f"field '{key}' should be {_type_name(kind)}, got {type(value).__name__}")
        return value

    def get_list_of(self, key: str, kind: type | tuple[type, ...],
                    optional: bool = False) -> list[Any] | None:
        """A list field whose every item is ``kind``; a bad item is named by its index."""
        values = self.get(key, list, optional)
        for i, value in enumerate(values or []):
            if not _is(value, kind):
                self.fail(f"field '{key}' item {i} should be {_type_name(kind)}, got "
                          f"{type(value).__name__} ({value!r})")
        return values


def _records(path: Path, limit: int | None, id_key: str) -> Iterator[_Record]:
    """The first ``limit`` records of a JSON list (``.json``) or JSONL file, each with an id."""
    if path.suffix == ".jsonl":
        located: Iterator[tuple[str, Any]] = _iter_jsonl(path)
    else:
        located = ((f"record {i}", raw) for i, raw in enumerate(_load_json_list(path)))
    for index, (where, raw) in enumerate(located):
        if limit is not None and index >= limit:
            break
        rec = _Record(path, where, raw, id_key)
        if not rec.id:
            rec.fail(f"missing field '{id_key}'" if rec.raw.get(id_key) is None
                     else f"empty field '{id_key}'")
        yield rec



QUESTION_LIST_SUFFIXES = (".txt", ".jsonl", ".json")


def _given_questions(given: Path | list[str], limit: int | None, id_key: str
                     ) -> Iterator[_Record]:
    """The first ``limit`` question records of questions given apart from a dataset: a list of
    question texts, a ``.txt`` file (one question a line; blank lines and ``#`` comments
    skipped) or a JSON / JSONL file of records; a record without ``id_key`` gets ``q<n>``, its
    1-based position."""
    if isinstance(given, list):
        where_raw: Iterator[tuple[Path, str, Any]] = (
            (Path("(questions given)"), f"question {i + 1}", {"question": q})
            for i, q in enumerate(given))
    elif given.suffix.lower() == ".txt":
        lines = _decode(given, given.read_bytes()).splitlines()
        where_raw = ((given, f"line {n}", {"question": line.strip()})
                     for n, line in enumerate(lines, start=1)
                     if line.strip() and not line.lstrip().startswith("#"))
    elif given.suffix.lower() in (".jsonl", ".json"):
        located = _iter_jsonl(given) if given.suffix.lower() == ".jsonl" else (
            (f"record {i}", raw) for i, raw in enumerate(_load_json_list(given)))
        where_raw = ((given, where, raw) for where, raw in located)
    else:
        raise DatasetFormatError(given, "file", "questions are read from a "
                                 f"{', '.join(QUESTION_LIST_SUFFIXES)} file")
    for index, (path, where, raw) in enumerate(where_raw):
        if limit is not None and index >= limit:
            break
        if isinstance(raw, dict) and raw.get(id_key) is None:
            raw = {**raw, id_key: f"q{index + 1}"}
        yield _Record(path, where, raw, id_key)


def validate_limit(limit: Any, key: str = "limit") -> int | None:
    """``limit`` when it is null or a non-negative int; else a :class:`ParameterError` naming
    ``key`` (a string ``'2'``, a float ``1.5`` or a bool ``true`` are refused, not coerced)."""
    if limit is None:
        return None
    if not _is(limit, int):
        raise ParameterError(key, f"must be null or a non-negative integer, got "
                                  f"{type(limit).__name__} {limit!r}")
    if limit < 0:
        raise ParameterError(key, f"must be null or a non-negative integer, got {limit}")
    return limit
