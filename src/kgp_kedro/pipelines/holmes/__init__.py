"""holmes: HOLMES (ACL 2024) beside KGP: entity–document graph -> hyper-relational KG ->
query-aligned schema -> pruned facts -> ``answers_<method>``, scored by the score stage."""
