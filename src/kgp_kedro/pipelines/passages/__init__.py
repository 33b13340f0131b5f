"""passages: documents -> passages (the KG nodes)."""
