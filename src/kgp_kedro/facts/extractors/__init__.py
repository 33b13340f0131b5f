"""Fact extractors, one module each, registered by the name used in ``holmes.extractor``."""
