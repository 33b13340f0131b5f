"""Reading MD-QA datasets and user documents into questions, documents and passages."""
from kgp_kedro.corpus.collections import build_collections, pool_collections
from kgp_kedro.corpus.errors import DatasetFormatError
from kgp_kedro.corpus.sources import read_source
from kgp_kedro.corpus.splitting import split_passages

__all__ = ["DatasetFormatError", "build_collections", "pool_collections", "read_source", "split_passages"]
