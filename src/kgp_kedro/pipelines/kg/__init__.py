"""kg: passages -> one versioned edge table per KG variant (a Kedro namespace each)."""
