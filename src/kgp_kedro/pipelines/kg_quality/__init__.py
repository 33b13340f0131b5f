"""kg_quality: how well each KG's seed neighbourhoods cover the supporting passages."""
