"""Dataset readers are found through their registry: a new format is one registered class,
usable from ``ingest.sources`` at once; the config names the registered datasets."""
from __future__ import annotations

import pytest

from kgp_kedro.config import validate
from kgp_kedro.config.base import ParameterError
from kgp_kedro.config.sections import IngestParams
from kgp_kedro.corpus.sources import DATASET_READERS, DatasetReader, read_hotpotqa, read_source
from kgp_kedro.llm.backends import LLM_BACKENDS, LocalBackend, OpenAIBackend
from tests.conftest import HOTPOT


def test_the_bundled_formats_and_backends_are_registered():
    assert DATASET_READERS.names() == ["2wikimultihopqa", "documents", "hotpotqa", "musique"]
    assert LLM_BACKENDS.get("openai") is OpenAIBackend
    assert LLM_BACKENDS.get("local") is LocalBackend


def test_a_registered_reader_reads_a_source_and_passes_validation():
    @DATASET_READERS.register("toy_hotpot")
    class FakeHotpotReader(DatasetReader):
        """A fake format for this test: HotpotQA's file under another dataset name."""

        def read(self, path, source, limit, skipped):
            return read_hotpotqa(path, source, limit)

    try:
        params = validate(IngestParams, {"sources": [{"dataset": "toy_hotpot",
                                                      "path": str(HOTPOT), "limit": 2}]},
                          "ingest")
        source = params.sources[0]
        assert read_source(source.dataset, source.path, "h", source.limit) == \
            read_source("hotpotqa", HOTPOT, "h", 2)
    finally:
        DATASET_READERS.unregister("toy_hotpot")
    with pytest.raises(ParameterError, match="unknown dataset 'toy_hotpot'"):
        read_source("toy_hotpot", HOTPOT, "h", 2)


def test_an_unknown_dataset_is_a_parameter_error_naming_the_key():
    with pytest.raises(ParameterError, match=r"ingest\.sources\[0\]\.dataset: .*unknown dataset "
                                             r"'squad'; known: 2wikimultihopqa, documents"):
        validate(IngestParams, {"sources": [{"dataset": "squad", "path": str(HOTPOT)}]},
                 "ingest")
