"""A model shipped as split-zip part wheels (all-mpnet-base-v2): assembled from its parts, every
file checked against its sha256, a corrupted part or file failing with an error that names it.
Worked on a tiny model folder made here, split in parts as the real one is."""
from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from kgp_kedro.models import packaged
from kgp_kedro.models.packaged import (PackagedModelError, assemble, check_files,
                                       packaged_model_path)

FILES = {"config.json": b'{"hidden_size": 4}', "1_Pooling/config.json": b'{"mean": true}',
         "model.safetensors": bytes(range(256)) * 40}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _parts(tmp_path: Path, n: int = 3) -> list[Path]:
    """The folder zipped under one top folder (with a desktop.ini, as the real zip has) and cut
    in ``n`` pieces."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in FILES.items():
            archive.writestr(f"model/{name}", data)
        archive.writestr("model/desktop.ini", b"[.ShellClassInfo]")
    data = buffer.getvalue()
    size = -(-len(data) // n)
    paths = []
    for i in range(n):
        path = tmp_path / f"model.zip.{i:03d}"
        path.write_bytes(data[i * size:(i + 1) * size])
        paths.append(path)
    return paths


def test_assemble_checks_and_extracts(tmp_path):
    parts = _parts(tmp_path)
    folder = assemble(parts, tmp_path / "out", [_sha(p.read_bytes()) for p in parts],
                      {name: _sha(data) for name, data in FILES.items()})
    assert {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()} == set(FILES)
    assert (folder / "2_Normalize").is_dir()           # the empty module folder, made
    assert not (folder / "desktop.ini").exists()
    assert not list(tmp_path.glob("*.partial"))


def test_corrupted_part_is_named(tmp_path):
    parts = _parts(tmp_path)
    hashes = [_sha(p.read_bytes()) for p in parts]
    parts[1].write_bytes(parts[1].read_bytes()[:-1] + b"\0")
    with pytest.raises(PackagedModelError, match=r"model\.zip\.001: sha256 .* corrupted"):
        assemble(parts, tmp_path / "out", hashes, {n: _sha(d) for n, d in FILES.items()})
    assert not (tmp_path / "out").exists()


def test_corrupted_file_is_named(tmp_path):
    parts = _parts(tmp_path)
    expected = {name: _sha(data) for name, data in FILES.items()}
    folder = assemble(parts, tmp_path / "out", [_sha(p.read_bytes()) for p in parts], expected)
    check_files(folder, expected)
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])    # truncated
    with pytest.raises(PackagedModelError, match=r"model\.safetensors: sha256 .* not the "
                                                 r"expected"):
        check_files(folder, expected)
    (folder / "config.json").unlink()
    with pytest.raises(PackagedModelError, match=r"config\.json: missing"):
        check_files(folder, expected)


def test_real_hashes_are_pinned():
    # every file the model's modules.json loads has its sha256 pinned, the five parts theirs
    assert {"model.safetensors", "config.json", "modules.json", "tokenizer.json",
            "1_Pooling/config.json", "vocab.txt"} <= set(packaged.MPNET_FILES)
    assert len(packaged.MPNET_PARTS) == 5
    assert all(len(sha) == 64 for *_, sha in packaged.MPNET_PARTS)


def test_other_names_are_not_packaged(tmp_path):
    assert packaged_model_path("all-MiniLM-L6-v2") is None
    assert packaged_model_path(str(tmp_path)) is None


def test_packaged_folder_checked_on_load(tmp_path, monkeypatch):
    """A folder that is there but corrupted fails on load, naming the file (the real model's
    hashes; the folder here holds a wrong config.json)."""
    folder = tmp_path / "all-mpnet-base-v2"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    monkeypatch.setattr(packaged, "_CHECKED", set())
    with pytest.raises(PackagedModelError, match="config.json: sha256"):
        packaged_model_path("sentence-transformers/all-mpnet-base-v2", folder)
