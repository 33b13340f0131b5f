"""ewek: EWEK-QA (adaptive quotes, cross-encoder rerank, deduplication, ToG-E triples, cited
answers) and its baselines (web-only, KG-only, ToG), answers scored by the score stage."""
