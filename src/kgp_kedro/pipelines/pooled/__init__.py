"""pooled: retrieval where all questions of a source share one collection (the setting HippoRAG"""
