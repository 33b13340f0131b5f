"""Column layout of the tables that flow through the pipelines (see design.md)."""

QUESTION_COLUMNS = [
    "source",          # name of the configured source (dataset name, made unique)
    "dataset",         # hotpotqa | musique | 2wikimultihopqa | documents
    "question_id",
    "collection_id",   # the document collection the question is asked over
    "question",        # stripped question text
    "answer",          # gold answer ('' when unknown)
    "answers",         # gold answer and its aliases, for scoring
    "qtype",           # bridge/comparison (HotpotQA), 2hop/3hop1/... (MuSiQue), 2Wiki type
    "n_hops",          # number of reasoning hops where the dataset tells
    "meta",            # JSON of dataset-specific supervision (facts, decomposition, evidences)
]

DOCUMENT_COLUMNS = [
    "source",
    "collection_id",
    "doc_id",            # unique within a source; a negative document keeps its own id
    "title",
    "text",              # the whole document
    "sentences",         # the dataset's sentence split, or None
    "sentence_support",  # per-sentence supporting flags, or None
    "is_supporting",     # the document holds a supporting fact of this collection's question
    "is_negative",       # sampled from another question (paper §8.1 negative documents)
    "position",          # order of the document in its collection
    "layout",            # a file's blocks in reading order as JSON (text/heading/table, page,
                         # position, table cells; corpus.sources.formats), or None
]

PASSAGE_COLUMNS = [
    "source",
    "collection_id",
    "passage_id",     # '<doc_id>#<n>', the same in every collection holding the document
    "doc_id",
    "title",
    "text",
    "order",          # position of the passage inside its document
    "page",           # page number for paged documents, else null
    "kind",           # passage | heading | table (a table's text is its markdown)
    "is_supporting",
]
