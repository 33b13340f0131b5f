"""``make replay``: every committed benchmark piece (``results/pieces.yml``) run again from the
reply store alone and from its recorded prompt inputs, then compared, content for content, with
the committed answers and recordings.

A piece is ``kedro run --env ENV --params ...`` with ``llm.store_only=true`` (a call the store
lacks stops the run with ``MissingReplyError``; nothing is sent to a model, and the local call
cache is not read), ``retrieve.replay``, ``ewek.replay`` and ``holmes.replay`` reading
``results/<benchmark>/``'s recordings, and ``report.results.root`` a folder under ``data/``
(``--output``, default ``data/replay``): the replay's answers, recordings and run record go
there, never into ``results/``, so the working tree stays as it was. Then each replayed
benchmark's ``answers.csv`` and recordings (``*.csv.gz``) are compared with the committed
ones as tables of text cells: a row that differs, one the replay lacks or one it added fails
the command, naming the file and the first such rows. A part of the replay (``--only`` some
pieces, or ``--questions`` fewer than a piece's) compares the rows it replayed alone.

``--params PIECE`` prints a piece's parameter groups and its benchmark as one ``--params``
string, for the ``kedro run`` that advances it (docs/results-store.md), ``--group GROUP`` one
group,
``--size PIECE`` the piece's questions a source."""
from __future__ import annotations

import argparse
import logging
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
import yaml
from pydantic import Field, model_validator

from kgp_kedro.config import Params, validate
from kgp_kedro.config.base import PosInt
from kgp_kedro.plumbing.recordings import COMPOSED_FILE, READ_FACTS_FILE, RETRIEVED_FILE

logger = logging.getLogger(__name__)

PIECES = "results/pieces.yml"
KEY = ["source", "question_id", "method"]   # every compared table's row key
ANSWERS = "answers.csv"
# a benchmark's recordings (RETRIEVED_FILE, COMPOSED_FILE, READ_FACTS_FILE)
RECORDINGS = "*.csv.gz"
Value = str | int | float | bool | None


class Piece(Params):
    env: str                       # the Kedro env (conf/<env>/)
    benchmark: str                 # results/<benchmark>/: what it writes and replays
    questions: PosInt              # the first N questions a source
    groups: list[str] = Field(default_factory=list)   # parameter groups added to the env


class Archived(Params):
    """A piece that needs code a later issue removed: its results stay committed, ``make
    replay`` skips it, and ``commit``'s code replays it."""

    env: str
    benchmark: str
    questions: PosInt
    params: dict[str, Value] = Field(default_factory=dict)   # the groups it added at ``commit``
    commit: str = Field(pattern=r"^[0-9a-f]{40}$")   # the last commit whose code replays it
    removed: str                                       # what went, and why


class Pieces(Params):
    groups: dict[str, dict[str, Value]] = Field(default_factory=dict)
    pieces: dict[str, Piece]
    archived: dict[str, Archived] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _groups_exist_and_split(self) -> Pieces:
        for name, piece in self.pieces.items():
            unknown = [g for g in piece.groups if g not in self.groups]
            if unknown:
                raise ValueError(f"pieces.{name}.groups: no group {unknown[0]!r} (groups: "
                                 f"{', '.join(self.groups)})")
        for name in set(self.pieces) & set(self.archived):
            raise ValueError(f"archived.{name}: also a replayed piece")
        for name, group in self.groups.items():
            for key, value in group.items():
                if "," in key or "," in _text(value):
                    raise ValueError(f"groups.{name}.{key}: a comma would split Kedro's "
                                     "--params")
        return self


def read_pieces(path: str | Path = PIECES) -> Pieces:
    """The committed pieces, validated (an error names the key)."""
    return validate(Pieces, yaml.safe_load(Path(path).read_text(encoding="utf-8")),
                    str(path))


def _text(value: Value) -> str:
    """A value as Kedro's ``--params`` reads it back."""
    return "null" if value is None else str(value).lower() if isinstance(value, bool) \
        else str(value)


def piece_params(pieces: Pieces, name: str) -> dict[str, str]:
    """The parameters piece ``name``'s groups add to its env, in the groups' order."""
    return {key: _text(value) for group in pieces.pieces[name].groups
            for key, value in pieces.groups[group].items()}


def replay_command(pieces: Pieces, name: str, results: str, output: str,
                   questions: int | None = None) -> list[str]:
    """The ``kedro run`` that replays piece ``name`` (``questions`` a source: the piece's
    unless given) from the store and ``results``' recordings into ``output`` (the replay's
    own keys win over a group's)."""
    piece = pieces.pieces[name]
    recorded = f"{results}/{piece.benchmark}"
    params = {**piece_params(pieces, name),
              "ingest.qa_questions_per_source": str(questions or piece.questions),
              "llm.store_only": "true",
              "retrieve.replay": f"{recorded}/{RETRIEVED_FILE}",
              "ewek.replay": f"{recorded}/{COMPOSED_FILE}",
              "holmes.replay": f"{recorded}/{READ_FACTS_FILE}",
              "report.results.root": output, "report.results.benchmark": piece.benchmark}
    kedro = Path(sys.executable).with_name("kedro")
    return [str(kedro) if kedro.exists() else "kedro", "run", "--env", piece.env, "--params",
            params_text(params)]


def params_text(params: Mapping[str, str]) -> str:
    """``params`` as one Kedro ``--params`` string (``key=value`` pairs, comma-separated)."""
    return ",".join(f"{k}={v}" for k, v in params.items())


def _table(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def _within(table: pd.DataFrame, keys: pd.DataFrame | None) -> pd.DataFrame:
    """The rows of ``table`` whose (source, question, method) ``keys`` holds (None: all)."""
    if keys is None:
        return table
    return table[pd.MultiIndex.from_frame(table[KEY]).isin(pd.MultiIndex.from_frame(keys[KEY]))]


def differences(committed: Path, replayed: Path, within: pd.DataFrame | None = None,
                shown: int = 3) -> list[str]:
    """How the replayed table at ``replayed`` differs from the committed one (every cell as
    text): rows of one that the other lacks, a changed row counting on both sides. Only the
    committed rows of the (source, question, method) keys of ``within`` are compared (None:
    every committed row). Empty when they are equal."""
    ours = _within(_table(committed), within) if committed.exists() else None
    if not replayed.exists():
        return [f"{committed}: {len(ours)} rows not replayed"] if ours is not None and len(
            ours) else []
    theirs = _table(replayed)
    if ours is None:
        return [f"{committed}: not committed, {len(theirs)} rows replayed"]
    if list(ours.columns) != list(theirs.columns):
        return [f"{committed}: columns {list(ours.columns)} replayed as {list(theirs.columns)}"]
    merged = ours.merge(theirs, how="outer", on=list(ours.columns), indicator=True)
    found = []
    for side, what in (("left_only", "committed, not replayed as is"),
                       ("right_only", "replayed, not committed as is")):
        rows = merged[merged["_merge"] == side]
        if len(rows):
            keys = "; ".join("/".join(r) for r in rows[KEY].head(shown).itertuples(index=False))
            found.append(f"{committed}: {len(rows)} rows {what} (first: {keys})")
    return found


def compare(benchmarks: Sequence[str], results: Path, output: Path, whole: bool) -> list[str]:
    """Every difference between the replayed ``output/<benchmark>/`` answers and recordings
    and the committed ``results/<benchmark>/`` ones. ``whole``: every committed answer must
    be replayed, and every recorded row of a committed answer's question and method (a
    recording may hold questions read ahead of the answers); else the rows the replay wrote
    are compared alone."""
    found = []
    for benchmark in benchmarks:
        committed, replayed = results / benchmark, output / benchmark
        answers = _table(committed / ANSWERS) if (committed / ANSWERS).exists() else None
        names = {p.name for folder in (committed, replayed)
                 for p in [*folder.glob(ANSWERS), *folder.glob(RECORDINGS)]}
        for name in sorted(names):
            if whole:
                within = None if name == ANSWERS else answers
            elif (replayed / name).exists():
                within = _table(replayed / name)
            else:
                continue
            found += differences(committed / name, replayed / name, within)
    return found


def replay(pieces: Pieces, names: Sequence[str], results: str, output: str,
           questions: int | None = None, run=None) -> list[str]:
    """Replay pieces ``names`` in order into a fresh ``output`` (each command given to
    ``run``, :func:`subprocess.run` by default), then :func:`compare` (the whole committed
    tables when every piece ran at its own size). A piece that fails stops the replay with
    :class:`subprocess.CalledProcessError`."""
    benchmarks = list(dict.fromkeys(pieces.pieces[n].benchmark for n in names))
    for benchmark in benchmarks:
        shutil.rmtree(Path(output) / benchmark, ignore_errors=True)
    for name in names:
        command = replay_command(pieces, name, results, output, questions)
        logger.info("replay %s: %s", name, " ".join(command))
        (run or subprocess.run)(command, check=True)
    whole = set(names) == set(pieces.pieces) and questions is None
    return compare(benchmarks, Path(results), Path(output), whole)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pieces", default=PIECES, help=f"the pieces file (default: {PIECES})")
    parser.add_argument("--results", default="results",
                        help="the committed results store (default: results)")
    parser.add_argument("--output", default="data/replay",
                        help="where the replay writes (default: data/replay)")
    parser.add_argument("--only", nargs="+", metavar="PIECE", help="these pieces alone")
    parser.add_argument("--questions", type=int,
                        help="questions a source for every piece (default: each piece's own)")
    parser.add_argument("--params", metavar="PIECE",
                        help="print the piece's parameter groups as one --params string")
    parser.add_argument("--group", metavar="GROUP",
                        help="print one parameter group as one --params string")
    parser.add_argument("--size", metavar="PIECE", help="print the piece's questions a source")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    pieces = read_pieces(args.pieces)
    chosen = args.only or list(pieces.pieces)
    unknown = [n for n in [*chosen, args.params, args.size] if n and n not in pieces.pieces]
    if unknown and unknown[0] in pieces.archived:
        old = pieces.archived[unknown[0]]
        parser.error(f"piece {unknown[0]!r} is archived ({old.removed}); its code is at "
                     f"commit {old.commit[:8]}: replay it there")
    if unknown:
        parser.error(f"no piece {unknown[0]!r} in {args.pieces} ({', '.join(pieces.pieces)})")
    if args.group and args.group not in pieces.groups:
        parser.error(f"no group {args.group!r} in {args.pieces} ({', '.join(pieces.groups)})")
    if args.params or args.group:
        params = ({**piece_params(pieces, args.params),
                   "report.results.benchmark": pieces.pieces[args.params].benchmark}
                  if args.params else
                  {k: _text(v) for k, v in pieces.groups[args.group].items()})
        sys.stdout.write(params_text(params) + "\n")
        return 0
    if args.size:
        sys.stdout.write(f"{pieces.pieces[args.size].questions}\n")
        return 0
    try:
        found = replay(pieces, chosen, args.results, args.output, args.questions)
    except subprocess.CalledProcessError as exc:
        logger.error("replay failed: %s exited with %d", " ".join(exc.cmd[:4]), exc.returncode)
        return 1
    for line in found:
        logger.error("replay differs: %s", line)
    if not found:
        logger.info("replay: every replayed answer and recording equals the committed one "
                    "(%s)", ", ".join(chosen))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
