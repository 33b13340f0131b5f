"""Answer composer (EWEK-QA §3.2, A.4): the prompt's order (KG triples first), citation parsing,
citation accuracy against supporting facts by hand, and the deduplicator's threshold."""
from __future__ import annotations

import math

import numpy as np

from kgp_kedro.ewek.composer import (citation_accuracy, cited_sentences, parse_citations,
                                     parse_cited_answer, references)
from kgp_kedro.prompts.ewek import compose_messages
from kgp_kedro.ewek.dedup import deduplicate
from kgp_kedro.ewek.quotes import Quote
from kgp_kedro.ewek.tog import Triple

TRIPLES = [Triple("e1", "directed", "e2", "In the Land of Blood and Honey", "Angelina Jolie",
                  1, 0.7, ("d1#0",)),
           Triple("e1", "character", "e3", "In the Land of Blood and Honey", "Ajila", 1, 0.5,
                  ("d1#2",))]
QUOTES = [Quote("d1:ps0", "d1", "Film", "The film features Ajila.", "ps", ("d1#2",)),
          Quote("d9:ee0", "d9", "Other", "Girl, Interrupted is a film.", "ee", ("d9#0", "d9#1"))]


def test_the_triples_are_the_first_quote_then_the_quotes_in_rank_order():
    refs = references(TRIPLES, QUOTES)
    assert [(r.number, r.kind) for r in refs] == [(1, "kg"), (2, "web"), (3, "web")]
    assert refs[0].text == ("(In the Land of Blood and Honey, directed, Angelina Jolie), "
                            "(In the Land of Blood and Honey, character, Ajila)")
    assert refs[0].passage_ids == ("d1#0", "d1#2")
    messages = compose_messages("Which film?", refs, "Cite quotes.")
    assert messages[0] == {"role": "system", "content": "Cite quotes."}
    user = messages[1]["content"]
    assert user.startswith("Question: Which film?\n\nQuotes:\n1: (In the Land")
    assert user.index("\n2: The film features Ajila.") < user.index("\n3: Girl, Interrupted")
    assert user.endswith("Answer:")
    # web-only: the quotes are numbered from 1
    assert [r.number for r in references([], QUOTES)] == [1, 2]


def test_citations_are_parsed_in_order_and_stripped_from_the_answer():
    reply = "In the Land of Blood and Honey [1][3]. It was directed by Jolie [1, 2]."
    assert parse_citations(reply) == [1, 3, 2]
    assert parse_cited_answer("Answer: Paris [2].\nBecause [3]") == "Paris"
    assert parse_cited_answer("In the Land of Blood and Honey [1][3]") == \
        "In the Land of Blood and Honey"
    assert cited_sentences(reply) == [("In the Land of Blood and Honey .", [1, 3]),
                                      ("It was directed by Jolie .", [1, 2])]
    assert parse_citations("no citation here, [a] either") == []


def test_citation_accuracy_counts_cited_quotes_holding_a_supporting_passage():
    refs = references(TRIPLES, QUOTES)
    supporting = {"d1#2"}
    # [1] (triples, evidence d1#0, d1#2: supporting) and [2] (d1#2) are right, [3] is not
    assert citation_accuracy([1, 2, 3], refs, supporting) == 2 / 3
    # a number naming no quote is a wrong citation
    assert citation_accuracy([2, 7], refs, supporting) == 0.5
    assert math.isnan(citation_accuracy([], refs, supporting))


def test_the_deduplicator_drops_a_quote_above_the_cosine_threshold_of_a_kept_one():
    def unit(angle_cos):
        return [angle_cos, math.sqrt(1 - angle_cos ** 2)]
    # rows 1 and 2 have cosines .95 and .9 to row 0; row 3 has .95 to row 2 but .71 to row 0
    vectors = np.array([[1.0, 0.0], unit(0.95), unit(0.9),
                        [0.9 * 0.95 - math.sqrt(1 - .81) * math.sqrt(1 - .9025),
                         0.95 * math.sqrt(1 - .81) + 0.9 * math.sqrt(1 - .9025)]])
    assert round(float(vectors[3] @ vectors[2]), 6) == 0.95
    # 1 is dropped (.95 > .9 to 0); 2 is kept (.9 is not above .9); 3 is dropped (.95 to 2)
    assert deduplicate(vectors, 0.9) == [0, 2]
    # rows 1 and 2 are 7.6 degrees apart (cosine .991): only a looser threshold keeps all
    assert deduplicate(vectors, 0.98) == [0, 1, 3]
    assert deduplicate(vectors, 0.995) == [0, 1, 2, 3]
    assert deduplicate(np.zeros((0, 2)), 0.9) == []
