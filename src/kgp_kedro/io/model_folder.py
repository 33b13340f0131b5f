"""A trained model as a versioned Kedro dataset (EWEK-QA's cross-encoder, the train stage's
bi-encoders and generators): a model folder under ``<filepath>/<version>/<name>``;
saving calls the model's ``save(path)``, loading gives the folder's path (the node loads the
model on its device)."""
from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from kedro.io.core import AbstractVersionedDataset, Version, get_filepath_str, get_protocol_and_path


class ModelFolderDataset(AbstractVersionedDataset[Any, str]):
    def __init__(self, filepath: str, version: Version | None = None,
                 metadata: dict[str, Any] | None = None) -> None:
        import fsspec

        protocol, path = get_protocol_and_path(filepath, version)
        self._protocol = protocol
        self._fs = fsspec.filesystem(protocol)
        self.metadata = metadata
        super().__init__(filepath=PurePosixPath(path), version=version,
                         exists_function=self._fs.exists, glob_function=self._fs.glob)

    def _load(self) -> str:
        return get_filepath_str(self._get_load_path(), self._protocol)

    def _save(self, model: Any) -> None:
        model.save(get_filepath_str(self._get_save_path(), self._protocol))

    def _exists(self) -> bool:
        try:
            path = self._get_load_path()
        except Exception:  # noqa: BLE001 - no version saved yet
            return False
        return self._fs.exists(get_filepath_str(path, self._protocol))

    def _describe(self) -> dict[str, Any]:
        return {"filepath": self._filepath, "version": self._version}
