"""A documents folder asked as ``kedro run --env ask`` asks it (issue 38): the ask env's own
nodes up to the retrieval (ingest, passages, embed, the KNN KG of the router's structural
layer, ``kgp``'s entity walk with the rule router, BM25) on real files, every cache warm, after
a file is added, changed and removed: every table equals a run from scratch with empty caches,
and a removed or changed file leaves no passage, vector, node, edge, ranking or text behind in
any of them."""
from __future__ import annotations

import pandas as pd
import pytest

from kgp_kedro.asking import answer_with_citations
from kgp_kedro.asking.session import AskSession
from kgp_kedro.config import validate
from kgp_kedro.config.base import setting_label
from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.models.loading import load_encoder
from kgp_kedro.pipelines.ask.nodes import options as ask_options
from kgp_kedro.pipelines.chains import build_pipelines
from kgp_kedro.pipelines.parameter_tree import parse_method
from kgp_kedro.pipelines.in_memory import run_in_memory
from tests.config.test_parameters import _ask_env
from tests.conftest import HOTPOT
from tests.pipelines.test_incremental_build import _folder
from tests.reliability.corrupt import first_records
from tests.tables import assert_same_table

RETRIEVED = ("retrieved_kgp", "retrieved_bm25")


def _ask_params(folder, caches, question: str) -> dict:
    """The ask env's parameters, each cache under ``caches`` (the encoder on CPU in float32,
    as a from-scratch run here computes it)."""
    raw = _ask_env({"ask": {"folder": str(folder), "question": question}})
    raw["ingest"]["parse_cache"] = str(caches / "parsed")
    raw["passages"]["cache_dir"] = str(caches / "sentences")
    raw["embed"]["encoders"]["minilm"].update(cache_dir=str(caches / "embeddings"),
                                               device="cpu", dtype="float32")
    raw["kg"]["cache_dir"] = str(caches / "kg")
    raw["retrieve"]["methods"]["kgp"]["linker"]["cache_dir"] = str(caches / "entities")
    return raw


def _ask(folder, caches, question: str) -> dict[str, pd.DataFrame]:
    """Every table of the ask env's chain up to the retrieval (:func:`_ask_params`)."""
    raw = _ask_params(folder, caches, question)
    pipe = build_pipelines(raw)["ask"].to_outputs(*RETRIEVED)
    data = run_in_memory(pipe, raw)
    tables = {name: (value.to_pandas() if hasattr(value, "to_pandas") else value)
              for name, value in data.items() if not name.startswith(("params:", "raw_"))
              and name != "parameters"}
    for name in RETRIEVED:   # the wall time of each question is not a result
        tables[name] = tables[name].drop(columns="latency_ms")
    return tables


def _assert_same(warm: dict, scratch: dict) -> None:
    """Every table the same, bit for bit: ids, texts, edges, ranks, and the floats (vectors,
    weights, scores): the encoder's vector of a text does not depend on what was encoded with
    it (tests/models/test_encoder_batching.py)."""
    assert warm.keys() == scratch.keys()
    for name, table in warm.items():
        assert isinstance(table, pd.DataFrame), name
        assert_same_table(table.reset_index(drop=True), scratch[name].reset_index(drop=True),
                          name)


def _mentions(tables: dict, needles: list[str]) -> list[str]:
    """``table.column`` of every cell of every table that holds one of ``needles``."""
    found = []
    for name, table in tables.items():
        for column in table.columns:
            cells = table[column].map(lambda v: v if isinstance(v, str) else repr(v))
            if any(cells.str.contains(n, regex=False).any() for n in needles):
                found.append(f"{name}.{column}")
    return found


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One folder asked with warm caches after each change, and from scratch at each step."""
    root = tmp_path_factory.mktemp("ask")
    records = first_records(HOTPOT, 3)
    folder = _folder(root / "docs", records)
    question = records[0]["question"]
    warm = root / "warm"
    steps = {"first": _ask(folder, warm, question)}
    extra = records[0]["context"][3]
    (folder / "extra.md").write_text(f"# {extra[0]}\n\n{''.join(extra[1]).strip()}\n")
    steps["added"] = _ask(folder, warm, question)
    steps["added, scratch"] = _ask(folder, root / "scratch_added", question)
    changed = folder / "q1_0.md"
    old_text = changed.read_text()
    title = old_text.split("\n\n", 1)[0]
    changed.write_text(f"{title}\n\nA sentence written into the file later.\n")
    steps["changed"] = _ask(folder, warm, question)
    steps["changed, scratch"] = _ask(folder, root / "scratch_changed", question)
    (folder / "extra.md").unlink()
    steps["removed"] = _ask(folder, warm, question)
    steps["removed, scratch"] = _ask(folder, root / "scratch_removed", question)
    return steps, extra, old_text


def test_every_table_after_adding_changing_removing_a_file_equals_a_run_from_scratch(runs):
    steps, _, _ = runs
    for step in ("added", "changed", "removed"):
        _assert_same(steps[step], steps[f"{step}, scratch"])
    # the added file is in the folder's one collection, and retrieved from
    added = steps["added"]["passages"]
    assert added["doc_id"].str.endswith("/extra.md").any()
    assert len(added) > len(steps["first"]["passages"])


def test_a_removed_or_changed_file_leaves_no_trace_in_any_table(runs):
    steps, extra, old_text = runs
    first_sentence = "".join(extra[1]).strip()[:60]
    # the added file's name and text are there while it is, in most tables
    there = _mentions(steps["added"], ["extra.md", first_sentence])
    assert {"passages.doc_id", "passages.text", "kg_nodes_knn_st.node_id",
            "passage_embeddings_minilm.passage_id"} <= set(there)
    assert _mentions(steps["removed"], ["extra.md", first_sentence]) == []
    # the changed file's old text is gone everywhere, its new text is in
    old_paragraph = old_text.split("\n\n", 1)[1].strip()[:60]
    assert _mentions(steps["changed"], [old_paragraph]) == []
    assert "passages.text" in _mentions(steps["changed"], ["written into the file later"])


def test_an_ask_session_asked_again_and_again_retrieves_and_answers_as_a_run_does(
        tmp_path, local_llm):
    """The notebook's session (:class:`kgp_kedro.asking.session.AskSession`) over a run's
    tables, kept loaded between questions: each question's ranking equals a ``kedro run --env
    ask`` of that question alone (the second question's too, asked after the first: what the
    session keeps does not change a ranking), and its answer (the prompt's passages and tokens,
    the reply, its citations) equals the ask stage's :func:`answer_with_citations` over the run's
    ranking, asked after other questions: the embedded reader keeps no more than a system turn
    between calls (tests/llm/test_local_backend.py), so a reply does not depend on what was asked
    before."""
    records = first_records(HOTPOT, 3)
    folder = _folder(tmp_path / "docs", records)
    questions = [records[0]["question"], records[2]["question"]]
    raw = _ask_params(folder, tmp_path / "caches", questions[0])
    runs = [_ask(folder, tmp_path / "caches", q) for q in questions]
    tables = runs[0]
    variant = raw["retrieve"]["graph"]["variant"]
    method = parse_method("kgp", raw["retrieve"]["methods"]["kgp"], "retrieve.methods.kgp")
    assert method.requirements.graph and method.requirements.embeddings
    options = ask_options(raw["ask"], raw["read"])
    session = AskSession(
        tables["passages"], method, raw["retrieve"]["budget"], local_llm, options,
        nodes=tables[f"kg_nodes_{variant}"], edges=tables[f"kg_edges_{variant}"],
        setting=setting_label(raw["retrieve"]["graph"]["setting"]),
        embeddings=tables["passage_embeddings_minilm"],
        encoder=load_encoder(validate(EncoderParams, raw["embed"]["encoders"]["minilm"],
                                      "embed.encoders.minilm")))
    columns = ["rank", "passage_id", "score", "hop", "path"]
    for question, run in zip(questions, runs):
        asked = session.ask(question)
        expected = run["retrieved_kgp"]
        assert len(expected) > 5 and expected["passage_id"].notna().all()
        pd.testing.assert_frame_equal(asked.retrieved[columns].reset_index(drop=True),
                                      expected[columns].reset_index(drop=True), check_exact=True)
    # the answer: the ask stage's own over the run's ranking of the first question
    first = session.ask(questions[0], question_id="q")
    stage = answer_with_citations(
        runs[0]["questions"].assign(question_id="q"),
        runs[0]["retrieved_kgp"].assign(question_id="q", latency_ms=0.0), tables["passages"],
        local_llm, "kgp", options)
    kept = ["question", "context_ids", "prompt_tokens", "answer", "raw_response", "citations",
            "top_file"]
    assert first.answer[kept].to_dict("records") == stage[kept].to_dict("records")
    assert first.answer["error"].isna().all() and len(first.answer["context_ids"].iloc[0]) > 0
    assert first.answer["raw_response"].iloc[0].strip()
