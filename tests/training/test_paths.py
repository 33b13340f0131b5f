"""Reasoning paths of real train records, against hop orders checked by reading the records."""
from __future__ import annotations

from kgp_kedro.training.paths import entity_key, reasoning_paths, twowiki_order


def _titles(path, passages):
    title = dict(zip(passages["passage_id"], passages["title"]))
    return [sorted({title[p] for p in hop}) for hop in path.hops]


def _paths(train_tables):
    questions, _, passages = train_tables
    found: dict[str, list] = {}
    for path, own in reasoning_paths(questions, passages):
        found.setdefault(path.question_id, []).append(_titles(path, own))
    return found


def test_hotpotqa_bridge_puts_first_the_paragraph_that_mentions_the_bridge_entity(train_tables):
    """'If Gallu is a demon Lilu is what?': 'Lilu (mythology)' says 'related to Alû', so the
    Lilu paragraph is hop 1 and 'Alû' (sentence 3 supporting) hop 2; 'What language were books
    being translated into during the era of Haymo of Faversham?': Haymo's paragraph names the
    'Recovery of Aristotle'."""
    found = _paths(train_tables)
    assert found["5a77ec115542992a6e59dff7"] == [[["Lilu (mythology)"], ["Alû"]]]
    assert found["5a7decc75542995f4f40230f"] == [[["Haymo of Faversham"],
                                                  ["Recovery of Aristotle"]]]


def test_hotpotqa_comparison_gives_both_orders(train_tables):
    found = _paths(train_tables)["5ae40c465542996836b02c25"]
    assert found == [[["Christopher Nolan"], ["Sathish Kalathil"]],
                     [["Sathish Kalathil"], ["Christopher Nolan"]]]


def test_musique_follows_the_decomposition(train_tables):
    """2hop__150763_14904: 'What company published Journal of Psychotherapy Integration?'
    (paragraph 6) then 'Who was the first president of #1?' (paragraph 10, 'Adolescence');
    every passage of a supporting paragraph is in its hop."""
    questions, _, passages = train_tables
    (path, own), = [(p, o) for p, o in reasoning_paths(questions, passages)
                    if p.question_id == "2hop__150763_14904"]
    assert _titles(path, own) == [["Journal of Psychotherapy Integration"], ["Adolescence"]]
    docs = [{p.rsplit("#", 1)[0] for p in hop} for hop in path.hops]
    assert docs == [{"musique_train/2hop__150763_14904/6"}, {"musique_train/2hop__150763_14904/10"}]
    assert len(path.hops[1]) == (own["doc_id"] == "musique_train/2hop__150763_14904/10").sum()


def test_2wiki_follows_the_evidence_chain(train_tables):
    """Compositional: 'Get Low' (title 'Get Low (Dillon Francis and DJ Snake song)') -> performer
    Dillon Francis; bridge comparison: both films (subjects of triples 1-2), then both
    directors (subjects of triples 3-4)."""
    found = _paths(train_tables)
    assert found["93402dbc0bdb11eba7f7acde48001122"] == [
        [["Get Low (Dillon Francis and DJ Snake song)"], ["Dillon Francis"]]]
    assert found["58f39f7808b511ebbd88ac1f6bf848b6"] == [
        [["The Prairie King"], ["Confessions of an Opium Eater"], ["B. Reeves Eason"],
         ["Albert Zugsmith"]]]


def test_a_title_named_only_as_an_object_follows_its_subject_and_unnamed_titles_go_last():
    meta = {"supporting_facts": [["Z", 0], ["Person (actor)", 1], ["Film (1990 film)", 0]],
            "evidences": [["Film", "cast member", "Person"]]}
    assert twowiki_order(meta) == ["Film (1990 film)", "Person (actor)", "Z"]
    assert entity_key("Devotion (1929 film)") == "devotion"
