"""EWEK-QA (Dehghan et al., 2024) over a document collection and the project's graphs: adaptive
quotes (Paragraph Splitter, Evidence Extractor), retrieve and rerank with a cross-encoder,
deduplication, ToG-E triples (or ToG with the LLM), and one composed answer with numbered
citations. The collection's documents stand for the paper's web pages; its KG is the
project's entity-relation graph."""
