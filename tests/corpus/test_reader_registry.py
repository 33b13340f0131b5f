"""Dataset readers are found through their registry: a new format is one registered class,
usable from ``ingest.sources`` at once; the config names the registered datasets."""
from __future__ import annotations

import copy

import pytest

from kgp_kedro.config import validate
from kgp_kedro.config.base import ParameterError
from kgp_kedro.config.sections import IngestParams
from kgp_kedro.corpus.sources import DATASET_READERS, DatasetReader, read_hotpotqa, read_source
from kgp_kedro.llm.backends import LLM_BACKENDS, LocalBackend, OpenAIBackend
from kgp_kedro.pipelines.parameter_tree import validate_parameters
from tests.config.test_parameters import SHIPPED
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


@pytest.mark.parametrize("block,entry,value,key", [
    ("ingest", "sources", [{"dataset": "squad", "path": str(HOTPOT)}],
     r"ingest\.sources\[0\]\.dataset"),
    ("passages", "paragraph_datasets", ["musique", "squad"], r"passages\.paragraph_datasets\[1\]"),
    ("ingest", "collection_size", {"musique": 748, "squad": 1120}, r"ingest\.collection_size\.squad"),
    ("train", "sources", [{"dataset": "squad", "path": str(HOTPOT)}],
     r"train\.sources\[0\]\.dataset")])
def test_an_unknown_dataset_is_a_parameter_error_naming_the_key(block, entry, value, key):
    """The whole tree's validation looks every dataset name up in the registry."""
    raw = copy.deepcopy(SHIPPED)
    raw[block][entry] = value
    with pytest.raises(ParameterError, match=key + r": unknown dataset 'squad'; known: "
                                                   r"2wikimultihopqa, documents"):
        validate_parameters(raw)
