"""ingest: the raw sources (``raw_<source>``, layer ``raw``) -> questions and documents."""
