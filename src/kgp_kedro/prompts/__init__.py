"""Every prompt the project sends to an LLM, one module per paper, each prompt beside a comment
naming the paper's listing or appendix section it reproduces:

- :mod:`.kgp`: KGP (Wang et al., AAAI 2024): Listing 1 (the generative agents' next-evidence
  instruction), Listings 2-4 (the reader), Listing 5 (the LLM judge of Acc);
- :mod:`.holmes`: HOLMES (Panda et al., ACL 2024): A.4.2-A.4.5 (question parse, relation
  types, triple extraction, the reader), A.5.1/A.5.3/A.5.4 (the auxiliary schema);
- :mod:`.ewek`: EWEK-QA (Dehghan et al., NAACL 2024): A.4 (the composer's instruction), A.3
  (the citation judge);
- :mod:`.tog`: Think-on-Graph (Sun et al., ICLR 2024): relation and entity pruning, the
  sufficiency check (EWEK-QA's ToG baseline);
- :mod:`.ircot`: IRCoT (Trivedi et al., ACL 2023): the interleaved reasoning prompt;
- :mod:`.structural`: the structural router (this project's own);
- :mod:`.selection`, :mod:`.choices`: the reader's context selection and its choice
  questions read one option at a time (this project's own).

The texts are byte-identical to what the project sent before they were gathered here: the LLM
call cache is keyed by the messages, so a changed byte would re-ask every cached call.
"""
