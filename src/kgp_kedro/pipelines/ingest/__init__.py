"""ingest: native dataset files -> questions and documents."""
