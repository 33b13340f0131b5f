"""HOLMES (Panda et al., ACL 2024): hyper-relational KGs for multi-hop QA. The entity–document
graph and its level-order traversal (:mod:`.traversal`), the question's schema and the
auxiliary schema (:mod:`.question`, :mod:`.schema`), pruning (:mod:`.pruning`), the reader
prompt (:mod:`.prompts`), and the table-level steps the ``holmes`` pipeline runs
(:mod:`.run`). Facts come from :mod:`kgp_kedro.facts`."""
