"""Think-on-Graph's prompts: Sun et al., "Think-on-Graph: Deep and Responsible Reasoning of
Large Language Model on Knowledge Graph", ICLR 2024 (EWEK-QA's ToG baseline, ``kg: tog``):
relation pruning, entity pruning and the sufficiency check, shortened to the scores this
project parses. Byte-identical to what the project has always sent."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol


class Triple(Protocol):
    """What the sufficiency check reads of a triple (:class:`kgp_kedro.ewek.tog.Triple`)."""

    def verbalise(self) -> str: ...


def relation_text(relation: str) -> str:
    """A relation label as words (``place_of_birth``, ``people.person.spouse``)."""
    return " ".join(re.split(r"[._/\s]+", relation)).strip()


# -- relation pruning, entity pruning, and whether the triples suffice (ToG's reasoning)
def relation_prompt(question: str, entity: str, relations: Sequence[str], width: int) -> str:
    listed = "; ".join(relations)
    return (f"Please retrieve {width} relations (separated by semicolon) that contribute to the "
            f"question and rate their contribution on a scale from 0 to 1 (the sum of the "
            f"scores of {width} relations is 1). Answer as: relation (Score: 0.5); ...\n"
            f"Q: {question}\nTopic Entity: {entity}\nRelations: {listed}\nA:")


def entity_prompt(question: str, entity: str, relation: str, candidates: Sequence[str]) -> str:
    listed = "; ".join(candidates)
    return ("Please score the entities' contribution to the question on a scale from 0 to 1 "
            "(the sum of the scores of all entities is 1). Answer with one score per entity, "
            "in order, separated by commas.\n"
            f"Q: {question}\nRelation: {entity} -> {relation_text(relation)}\n"
            f"Entities: {listed}\nScore:")


def reasoning_prompt(question: str, triples: Sequence[Triple]) -> str:
    knowledge = "\n".join(t.verbalise() for t in triples)
    return ("Given a question and the associated retrieved knowledge graph triplets (entity, "
            "relation, entity), you are asked to answer whether it's sufficient for you to "
            "answer the question with these triplets and your knowledge (Yes or No).\n"
            f"Q: {question}\nKnowledge Triplets:\n{knowledge}\nA:")
