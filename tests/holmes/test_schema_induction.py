"""HOLMES' auxiliary schema induced by an LLM (Appendix A.5): the CCES choice of k computed by
hand and on obvious 2-D clusters, the cluster representatives by hand, the parsers of the
replies on hand-written text (malformed items included), and the whole method on real train
questions through a real OpenAI-compatible HTTP server on 127.0.0.1.

The paper's schema step uses GPT-4, which cannot run here (paid, no network), and the embedded
model is too slow for a test over a dozen decompositions: the server (FakeOpenAIServer) gives
fixed replies; everything else (prompts, HTTP client, MiniLM embeddings, K-Means, parsing,
the node and its wiring) is real."""
import logging

import numpy as np
import pandas as pd
import pytest

from kgp_kedro.config import ParameterError, validate
from kgp_kedro.holmes import schema_induction as si
from kgp_kedro.holmes.params import HolmesParams
from kgp_kedro.holmes.schema import select_auxiliary
from kgp_kedro.holmes.question import SchemaTriple
from kgp_kedro.llm import LLMClient
from kgp_kedro.llm.backends import OpenAIBackend
from kgp_kedro.pipelines.holmes.nodes import mine_auxiliary
from tests.conftest import RAW, load
from tests.llm.fake_openai_server import FakeOpenAIServer

TRAIN = RAW / "hotpotqa" / "hotpot_train_v1.1_sample100.json"

SCHEMA_REPLY = (
    "Here is the graph schema:\n"
    "[(\"Film\", \"directed by\", \"Person\"), ('Person', 'spouse of', 'Person'), "
    "(Band, has_member, Musician), (\"Album\", \"released by\"), "
    "(\"Person\", \"born in\", \"City\",), (\"Film\", \"directed by\", \"Person\")]\n"
    "Note (all connected, as asked).")
SCHEMA_TRIPLES = [("Film", "directed by", "Person"), ("Person", "spouse of", "Person"),
                  ("Band", "has_member", "Musician"), ("Person", "born in", "City")]


def test_cces_by_hand():
    # k=2: silhouette best; k=3: Davies-Bouldin and Calinski-Harabasz best
    raw = pd.DataFrame({"k": [2, 3, 4], "silhouette": [0.9, 0.8, 0.1],
                        "davies_bouldin": [0.5, 0.3, 0.7],
                        "calinski_harabasz": [100.0, 300.0, 200.0]})
    # S = [1, 7/8, 0]; DB inverted = 1 - [1/2, 0, 1] = [1/2, 1, 0]; CH = [0, 1, 1/2]
    expected = [(1 + 0.5 + 0) / 3, (0.875 + 1 + 1) / 3, (0 + 0 + 0.5) / 3]
    assert si.cces(raw).tolist() == pytest.approx(expected)
    # one k tried: every normalised score is 1
    assert si.cces(raw.head(1)).tolist() == [1.0]


def _blobs():
    offsets = np.array([[0.0, 0.0], [0.3, 0.1], [-0.2, 0.3], [0.1, -0.3]])
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    return np.vstack([c + offsets for c in centres])   # 3 tight clusters of 4 points


def test_cces_picks_the_true_number_of_clusters():
    x = _blobs()
    chosen = si.choose_clusters(x, 2, 8, seed=0)
    assert chosen.k == 3
    assert chosen.scores["k"].tolist() == list(range(2, 9))
    assert chosen.scores.set_index("k")["cces"].idxmax() == 3
    labels = chosen.labels
    assert [len(set(labels[i:i + 4])) for i in (0, 4, 8)] == [1, 1, 1]
    assert len(set(labels)) == 3
    # k_max is capped at n - 1 (the silhouette's bound); too few points: one cluster
    assert si.choose_clusters(x[:4], 2, 20, 0).scores["k"].tolist() == [2, 3]
    assert si.choose_clusters(x[:2], 2, 20, 0).k == 1


def test_representatives_by_hand():
    x = np.array([[0, 0], [1, 0], [3, 0], [-2, 0], [10, 10], [6, 0], [0, 4], [0.5, 0]])
    labels = np.array([0, 0, 0, 0, 1, 0, 0, 0])
    centroids = np.array([[0.0, 0.0], [10.0, 10.0], [50.0, 50.0]])   # cluster 2 is empty
    # cluster 0 distances: 0:0, 7:0.5, 1:1, 3:2, 2:3, 6:4, 5:6 -> centroid question and 5 more
    assert si.representatives(x, labels, centroids) == [[0, 7, 1, 3, 2, 6], [4]]
    assert si.representatives(x, labels, centroids, n_nearest=1) == [[0, 7], [4]]


def test_schema_reply_parser(caplog):
    with caplog.at_level(logging.INFO, logger="kgp_kedro.holmes.schema_induction"):
        assert si.parse_schema_triples(SCHEMA_REPLY) == SCHEMA_TRIPLES
    # ("Album", "released by") and "(all connected, as asked)" are skipped
    assert "2 malformed item(s)" in caplog.text
    assert si.parse_schema_triples('[("Person", "born in, or near", "City")]') == [
        ("Person", "born in, or near", "City")]
    assert si.parse_schema_triples('[["Song", "performed by", "Singer"]]') == [
        ("Song", "performed by", "Singer")]
    # no list: instruction iii's "entity type - relation type - entity type" lines
    with caplog.at_level(logging.INFO, logger="kgp_kedro.holmes.schema_induction"):
        caplog.clear()
        assert si.parse_schema_triples(
            "Schema:\n- `publication` - `has_publisher` - `publisher`\n"
            "2. Person -> born in -> City\n- Band - formed\n"
            "- `publication` - `has_publisher` - `publisher`") == [
            ("publication", "has_publisher", "publisher"), ("Person", "born in", "City")]
    assert "1 malformed item(s)" in caplog.text
    assert si.parse_schema_triples("") == []


def test_schema_table_coarse_types_and_counts():
    table = si.schema_table([("Film", "directed_by", "Person"),
                             ("Movie", "Directed by", "Director"), ("Thing", "x", "Person")])
    assert list(table.columns) == ["subject_type", "relation", "object_type", "count",
                                   "induced_from"]
    assert table.values.tolist() == [
        ["work", "directed by", "person", 2,
         "Film | directed_by | Person; Movie | Directed by | Director"],
        ["", "x", "person", 1, "Thing | x | Person"]]


def test_subquestion_and_category_parsers():
    reply = ("1. Which British television channel is operated by a joint venture between "
             "Viacom International Media Networks Europe and Sky plc?\n"
             "2. Did Lily's Driftwood Bay premiere on this specific British television channel?")
    assert si.parse_subquestions(reply, "Q?") == [
        "Which British television channel is operated by a joint venture between Viacom "
        "International Media Networks Europe and Sky plc?",
        "Did Lily's Driftwood Bay premiere on this specific British television channel?"]
    assert si.parse_subquestions("Decomposition is not clear.", "Q?") == ["Q?"]
    echo = ("Chain of Thought Instructions:\n1. Identify the ultimate goal.\nOutput:\n"
            "1. Who founded Acme\n2. Where was he born?")
    assert si.parse_subquestions(echo, "Q?") == ["Who founded Acme", "Where was he born?"]
    assert si.parse_subquestions("Sub-questions:\nWho is A?\nWhere is B?", "Q?") == [
        "Who is A?", "Where is B?"]
    assert si.parse_categories("- Films and their directors\n\n* Sports teams\n") == [
        "Films and their directors", "Sports teams"]


def test_prompts_are_the_papers():
    d = si.decompose_prompt("Who wrote X?")
    assert d.startswith("Task: Decompose a multi-hop question into a series of single-hop")
    assert "2. Did Lily's Driftwood Bay premiere on this specific British television channel?"\
        "\n\nQuestion: Who wrote X?\nOutput:" in d
    c = si.category_prompt(["A?", "B?"])
    assert c.startswith("Task: Extract latent topics with focus on entity types")
    assert c.endswith("use bullets to separate topics.\nQuestions:\n- A?\n- B?")
    s = si.schema_prompt(["films", "sports"])
    assert "The broad question categories are: films; sports\nInstructions:" in s
    assert s.endswith('Format for the list: [("Entity type", "relation", "Entity type"), '
                      '("Entity type", "relation", "Entity type"),...]')


def test_the_k_range_is_validated():
    with pytest.raises(ParameterError, match=r"holmes\.auxiliary\.k_min"):
        validate(HolmesParams, {"auxiliary": {"k_min": 1}}, "holmes")
    with pytest.raises(ParameterError, match="k_max"):
        validate(HolmesParams, {"auxiliary": {"k_min": 5, "k_max": 4}}, "holmes")
    with pytest.raises(ParameterError, match=r"holmes\.auxiliary\.method"):
        validate(HolmesParams, {"auxiliary": {"method": "gpt4"}}, "holmes")


def _reply(prompt: str) -> str:
    if prompt.startswith("Task: Decompose"):
        question = prompt.rsplit("Question: ", 1)[1].removesuffix("\nOutput:")
        return f"1. What is the first entity of: {question}\n2. {question}"
    if prompt.startswith("Task: Extract latent topics"):
        return "- Films and the persons who direct them\n- Spouses of persons"
    if prompt.startswith("Task: Create a graph schema"):
        return SCHEMA_REPLY
    raise AssertionError(prompt[:80])


def test_induction_on_real_train_questions(encoder):
    questions = load("hotpotqa", TRAIN, 12)[0]["question"].tolist()
    assert len(questions) == 12
    embed = lambda texts: encoder.encode(list(texts))  # noqa: E731
    with FakeOpenAIServer(reply=_reply) as server:
        client = LLMClient(OpenAIBackend(model="m", base_url=server.base_url, api_key="k",
                                         timeout=5))
        induced = si.induce_auxiliary_schema(questions, client, embed, k_min=2, k_max=6)
        sent = [r["messages"][-1]["content"] for r in server.requests]
    k = induced.clustering.k
    assert 2 <= k <= 6
    # decompositions + clusters + 1 schema call
    assert induced.calls == len(sent) == 12 + k + 1
    assert [s.split("\n")[0][:25] for s in sent[:12]] == ["Task: Decompose a multi-h"] * 12
    # 24 distinct sub-questions (each question and its first-entity question)
    assert len(induced.subquestions) == 24 and set(questions) <= set(induced.subquestions)
    # each cluster's category prompt: its centroid question and (at most) 5 nearest
    groups = si.representatives(embed(induced.subquestions), induced.clustering.labels,
                                induced.clustering.centroids)
    assert len(groups) == k
    # (the client sends up to 4 calls at once: the server may see them in another order)
    assert sorted(sent[12:12 + k]) == sorted(
        si.category_prompt([induced.subquestions[i] for i in g]) for g in groups)
    assert sent[-1] == si.schema_prompt(["Films and the persons who direct them",
                                         "Spouses of persons"])
    assert induced.table.values.tolist() == [   # count, then relation order
        ["person", "born in", "location", 1, "Person | born in | City"],
        ["work", "directed by", "person", 1, "Film | directed by | Person"],
        ["organization", "has member", "person", 1, "Band | has_member | Musician"],
        ["person", "spouse of", "person", 1, "Person | spouse of | Person"]]
    # the table is what select_auxiliary reads (extra provenance column tolerated)
    chosen = select_auxiliary([SchemaTriple("person", "husband of", "person")],
                              induced.table, embed, per_relation=1, min_similarity=0.3)
    assert [s.relation for s, _ in chosen] == ["spouse of"]


def test_the_node_and_pipeline_with_method_llm(tmp_path):
    from kgp_kedro.pipelines.parameter_tree import validate_parameters
    from kgp_kedro.pipelines.holmes.pipeline import create_pipeline
    from tests.pipelines.test_wiring import base_parameters

    raw = base_parameters()
    node = next(n for n in create_pipeline(validate_parameters(raw)).nodes
                if n.name == "mine_auxiliary_schema")
    assert node.inputs == ["questions", "qa_questions", "params:holmes"]   # parse: unchanged
    raw["holmes"]["auxiliary"]["method"] = "llm"
    node = next(n for n in create_pipeline(validate_parameters(raw)).nodes
                if n.name == "mine_auxiliary_schema")
    assert node.inputs == ["questions", "qa_questions", "params:holmes",
                           "params:embed.encoders.minilm", "params:llm"]

    source = {"dataset": "hotpotqa", "path": str(TRAIN), "limit": 8}
    holmes = {"auxiliary": {"sources": [source], "method": "llm", "decompose": False,
                            "k_max": 3}}
    encoder = {"device": "cpu", "cache_dir": str(tmp_path / "emb")}
    empty = pd.DataFrame({"question_id": [], "question": []})
    with pytest.raises(ParameterError, match=r"holmes\.auxiliary\.method"):
        mine_auxiliary(empty, empty, holmes)
    with FakeOpenAIServer(reply=_reply) as server:
        llm = {"backend": "openai", "cache": None,
               "openai": {"model": "m", "base_url": server.base_url, "api_key": "k",
                          "timeout": 5}}
        table = mine_auxiliary(empty, empty, holmes, encoder, llm)
        sent = [r["messages"][-1]["content"] for r in server.requests]
    # no decomposition: the clusters' category calls, then the schema call
    assert 3 <= len(sent) <= 4 and sent[-1].startswith("Task: Create a graph schema")
    assert all(s.startswith("Task: Extract latent topics") for s in sent[:-1])
    assert table["relation"].tolist() == ["born in", "directed by", "has member", "spouse of"]
