"""read: the reader LLM answers every QA question with each retrieval method's contexts."""
