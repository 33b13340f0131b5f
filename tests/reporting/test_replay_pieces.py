"""``make replay`` as data: the committed pieces (results/pieces.yml) validate, each becomes a
store-only ``kedro run`` that writes under data/, the small reader's env is qa_benchmark's with
the reader's keys alone, each benchmark holds the rows its pieces say (their questions a
source times their methods, counted from results/pieces.yml and the envs), and the comparison
fails on any answer that differs from the committed one (real committed rows; the kedro run
replaced by a fake that writes them)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from kgp_kedro.config import ParameterError
from kgp_kedro.corpus.sources import read_source
from kgp_kedro.reporting.replay import (PIECES, compare, differences, main, piece_params,
                                        read_pieces, replay, replay_command)
from tests.conftest import ROOT

SMALL = ROOT / "results" / "qa_benchmark_small_reader"
# what the small reader's env sets beyond qa_benchmark's (docs/reader.md's chosen reader and
# the reading chosen last, the dev_window piece's)
SMALL_READER = {"llm.local.model": "qwen2.5-coder-1.5b-instruct-q4_k_m",
                "read.context_form": "documents", "read.demonstrations": 3,
                "read.answer_form": "short", "read.max_documents": 4,
                "read.passage_window": 1, "read.hops": "typed", "read.choice": "dates",
                "report.results.benchmark": "qa_benchmark_small_reader_window"}


def _flat(tree: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _tree(env: str) -> dict:
    from kedro.framework.project import configure_project, settings

    from kgp_kedro.pipelines.parameters import ConfigLoader

    configure_project("kgp_kedro")
    return ConfigLoader(conf_source=str(ROOT / "conf"), env=env,
                        **settings.CONFIG_LOADER_ARGS)["parameters"]


def _parameters(env: str) -> dict:
    return _flat(_tree(env))


def test_the_small_reader_env_is_qa_benchmark_with_the_small_reader_alone():
    """conf/qa_small_reader repeats qa_benchmark's keys (an env layers over base only): it
    differs in the reader's keys and the benchmark's name, nothing else."""
    benchmark, small = _parameters("qa_benchmark"), _parameters("qa_small_reader")
    differ = {k for k in {*benchmark, *small} if benchmark.get(k) != small.get(k)}
    assert differ == set(SMALL_READER)
    assert {k: small[k] for k in SMALL_READER} == SMALL_READER


# what the dev benchmark's env sets beyond the small reader's (issue 48: Table 1 again on every
# dev question, read as the small reader reads)
DEV = {"ingest.qa_questions_per_source": None,
       "report.results.benchmark": "qa_benchmark_dev_window"}
SMALL_READER_ONLY_METHODS = {"none", "mdr_trained", "kgp_tfidf", "kgp_mdr"}


def test_the_dev_env_is_the_small_readers_on_every_question():
    """conf/qa_dev reads golden, bm25, dpr and kgp as the small reader's env retrieves and
    reads them (the same pool, retrieval setting and reading), with all questions and its own
    benchmark: nothing else differs."""
    small, dev = _parameters("qa_small_reader"), _parameters("qa_dev")
    differ = {k for k in {*small, *dev} if small.get(k) != dev.get(k)}
    methods = {k for k in differ if k.startswith("retrieve.methods.")}
    assert {k.split(".")[2] for k in methods} == SMALL_READER_ONLY_METHODS
    assert all(k not in dev for k in methods)
    lists = {"pooled.methods", "retrieval_quality.collection_size.methods",
             "read.prompt_styles.kgp_mdr"}
    assert differ - methods - lists == set(DEV)
    assert {k: dev[k] for k in DEV} == DEV


def _params(pieces, name: str, **kw) -> dict:
    return dict(p.split("=", 1) for p in replay_command(
        pieces, name, "results", "data/replay", **kw)[-1].split(","))


def test_each_piece_replays_store_only_from_its_recordings_into_data():
    pieces = read_pieces(ROOT / PIECES)
    assert list(pieces.pieces) == ["qa_benchmark", "qa_benchmark_30", "small_reader",
                                   "small_reader_siblings", "dev", "dev_typed", "dev_window",
                                   "siblings"]
    command = replay_command(pieces, "siblings", "results", "data/replay")
    assert command[1:4] == ["run", "--env", "qa_benchmark"]
    params = _params(pieces, "siblings")
    assert params["llm.store_only"] == "true" and params["report.results.root"] == "data/replay"
    assert params["retrieve.replay"] == "results/qa_benchmark/retrieved.csv.gz"
    assert params["ingest.qa_questions_per_source"] == "50"
    # the siblings: the HOLMES and EWEK-QA groups the small reader's siblings read, and ToG
    siblings = piece_params(pieces, "siblings")
    assert set(siblings) == {*pieces.groups["holmes"], *pieces.groups["ewek"],
                             *pieces.groups["tog"]}
    assert siblings["ewek.methods.tog.web"] == "false"
    # the pieces read before the reading chosen last pin the reading they were read with
    first = ("read.max_documents", "read.passage_window", "read.hops", "read.choice")
    for name in ("small_reader", "small_reader_siblings"):
        assert tuple(_params(pieces, name)[k] for k in first) == ("null", "0", "whole", "whole")
    dev = _params(pieces, "dev")
    assert "read.max_documents" not in dev       # the env's 4
    assert tuple(dev[k] for k in first[1:]) == ("0", "whole", "whole")
    typed = _params(pieces, "dev_typed")
    assert tuple(typed[k] for k in first[1:]) == ("0", "typed", "dates")
    assert typed["report.results.benchmark"] == "qa_benchmark_dev_typed"
    window = _params(pieces, "dev_window")
    assert tuple(window[k] for k in first[1:]) == ("1", "typed", "dates")
    assert window["retrieve.replay"] == "results/qa_benchmark_dev_window/retrieved.csv.gz"
    small = _params(pieces, "qa_benchmark_30", questions=5)
    assert small["read.max_passages"] == "null" and small["ingest.qa_questions_per_source"] == "5"


def test_an_archived_piece_keeps_its_results_and_the_commit_that_replays_it(capsys,
                                                                           monkeypatch):
    """A piece whose code a later issue removed is listed under ``archived:``: its benchmark's
    answers stay committed, ``make replay`` does not run it, and asking for it names the
    commit whose code replays it."""
    pieces = read_pieces(ROOT / PIECES)
    assert set(pieces.archived) == {"dev_chain", "dev_dates"}
    for name, old in pieces.archived.items():
        assert (ROOT / "results" / old.benchmark / "answers.csv").exists()
        assert old.params["read.hops"] == "chain" and "issue 65" in old.removed
        assert old.benchmark not in {p.benchmark for p in pieces.pieces.values()}
    monkeypatch.chdir(ROOT)
    with pytest.raises(SystemExit):
        main(["--only", "dev_chain"])
    assert "archived" in capsys.readouterr().err


def _methods(tree: dict, params: dict[str, str]) -> set[str]:
    """The methods a piece reads: its env's retrieval, HOLMES and EWEK-QA methods and those
    its groups add."""
    stages = ("retrieve", "holmes", "ewek")
    named = {m for stage in stages for m in (tree.get(stage) or {}).get("methods") or {}}
    return named | {k.split(".")[2] for k in params
                    if k.split(".")[0] in stages and k.split(".")[1] == "methods"}


def expected_keys(benchmark: str) -> set[tuple[str, str, str]]:
    """The (source, question, method) rows ``results/<benchmark>/answers.csv`` must hold, from
    results/pieces.yml alone: each piece writing it reads its env's sources' first
    ``questions`` questions (file order) with its methods."""
    pieces = read_pieces(ROOT / PIECES)
    keys = set()
    for name, piece in pieces.pieces.items():
        if piece.benchmark != benchmark:
            continue
        tree = _tree(piece.env)
        methods = _methods(tree, piece_params(pieces, name))
        for source in tree["ingest"]["sources"]:
            questions, _ = read_source(source["dataset"], ROOT / source["path"],
                                       source["dataset"], piece.questions)
            keys |= {(q["source"], q["question_id"], m) for q in questions for m in methods}
    return keys


@pytest.mark.parametrize("benchmark", sorted(
    {p.benchmark for p in read_pieces(ROOT / PIECES).pieces.values()}))
def test_each_benchmark_holds_the_rows_its_pieces_say(benchmark):
    answers = pd.read_csv(ROOT / "results" / benchmark / "answers.csv", dtype=str,
                          keep_default_na=False)
    assert set(answers[["source", "question_id", "method"]].itertuples(index=False,
                                                                      name=None)) == \
        expected_keys(benchmark)
    assert not answers.duplicated(["source", "question_id", "method"]).any()


def test_the_command_prints_a_pieces_parameters_for_the_kedro_run_that_advances_it(
        capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["--group", "tog"]) == 0
    assert capsys.readouterr().out == "ewek.methods.tog.kg=tog,ewek.methods.tog.web=false\n"
    assert main(["--params", "qa_benchmark_30"]) == 0
    assert capsys.readouterr().out == (
        "read.max_passages=null,report.results.benchmark=qa_benchmark_30\n")
    assert main(["--size", "small_reader"]) == 0
    assert capsys.readouterr().out == "103\n"


def test_a_piece_naming_an_unknown_group_is_refused_by_its_key(tmp_path):
    raw = yaml.safe_load((ROOT / PIECES).read_text())
    raw["pieces"]["siblings"]["groups"].append("holmez")
    (tmp_path / "pieces.yml").write_text(yaml.safe_dump(raw))
    with pytest.raises(ParameterError, match="pieces.siblings.groups: no group 'holmez'"):
        read_pieces(tmp_path / "pieces.yml")


@pytest.fixture
def first_questions(tmp_path):
    """The committed small reader's answers of 2 questions a source (every method's rows),
    written as a replay would write them."""
    answers = pd.read_csv(SMALL / "answers.csv", dtype=str, keep_default_na=False)
    first = answers.groupby("source")["question_id"].apply(
        lambda ids: list(dict.fromkeys(ids))[:2]).explode()
    rows = answers[answers["question_id"].isin(set(first))]
    assert rows["source"].nunique() == 3
    return rows


def test_a_replayed_answer_that_differs_in_any_cell_is_named(tmp_path, first_questions):
    replayed = tmp_path / "answers.csv"
    first_questions.to_csv(replayed, index=False, lineterminator="\n")
    assert differences(SMALL / "answers.csv", replayed, within=first_questions) == []
    # the whole committed table: the questions not replayed are missing
    (missing,) = differences(SMALL / "answers.csv", replayed)
    every = len(expected_keys("qa_benchmark_small_reader"))
    assert f"{every - len(first_questions)} rows committed, not replayed" in missing
    changed = first_questions.copy()
    row = changed.index[5]
    changed.loc[row, "reader_latency_ms"] = changed.loc[row, "reader_latency_ms"] + "1"
    changed.to_csv(replayed, index=False, lineterminator="\n")
    key = "/".join(changed.loc[row, ["source", "question_id", "method"]])
    assert differences(SMALL / "answers.csv", replayed, within=changed) == [
        f"{SMALL / 'answers.csv'}: 1 rows committed, not replayed as is (first: {key})",
        f"{SMALL / 'answers.csv'}: 1 rows replayed, not committed as is (first: {key})"]


def test_make_replay_fails_on_a_changed_answer_and_passes_on_the_committed_ones(
        tmp_path, first_questions, monkeypatch):
    """The replay command end to end with the kedro run replaced by a fake that writes the
    committed rows (or one changed prediction) where the replay writes: exit 0, then 1."""
    pieces = read_pieces(ROOT / PIECES)
    prediction = {"value": None}

    def fake_kedro_run(command, check):
        params = dict(p.split("=", 1) for p in command[-1].split(","))
        folder = Path(params["report.results.root"]) / params["report.results.benchmark"]
        folder.mkdir(parents=True, exist_ok=True)
        rows = first_questions.copy()
        if prediction["value"] is not None:
            rows.iloc[0, rows.columns.get_loc("prediction")] = prediction["value"]
        rows.to_csv(folder / "answers.csv", index=False, lineterminator="\n")

    def run(*names):
        return replay(pieces, names, str(ROOT / "results"), str(tmp_path / "out"), questions=2,
                      run=fake_kedro_run)

    assert run("small_reader") == []
    prediction["value"] = "a changed answer"
    (found,) = [line for line in run("small_reader") if "replayed, not committed" in line]
    assert "1 rows" in found
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr("kgp_kedro.reporting.replay.subprocess.run", fake_kedro_run)
    assert main(["--only", "small_reader", "--questions", "2",
                 "--output", str(tmp_path / "main")]) == 1
    prediction["value"] = None
    assert main(["--only", "small_reader", "--questions", "2",
                 "--output", str(tmp_path / "main")]) == 0


def test_a_whole_replay_needs_every_recorded_row_of_an_answer_not_those_read_ahead(
        tmp_path, first_questions):
    """A recording may hold questions recorded ahead of the answers (docs/results-store.md):
    a whole replay must rebuild the recorded rows of every committed answer, those alone."""
    recorded = pd.read_csv(SMALL / "retrieved.csv.gz", dtype=str, keep_default_na=False)
    keys = pd.MultiIndex.from_frame(first_questions[["source", "question_id", "method"]])
    mine = recorded[pd.MultiIndex.from_frame(
        recorded[["source", "question_id", "method"]]).isin(keys)]
    ahead = recorded[~recorded["question_id"].isin(set(first_questions["question_id"]))].head(7)
    committed, replayed = tmp_path / "results" / "b", tmp_path / "out" / "b"
    for folder, rows in ((committed, pd.concat([mine, ahead])), (replayed, mine)):
        folder.mkdir(parents=True)
        first_questions.to_csv(folder / "answers.csv", index=False, lineterminator="\n")
        rows.to_csv(folder / "retrieved.csv.gz", index=False, lineterminator="\n")
    assert len(mine) > 0 and compare(["b"], tmp_path / "results", tmp_path / "out", True) == []
    mine.iloc[1:].to_csv(replayed / "retrieved.csv.gz", index=False, lineterminator="\n")
    (lost,) = compare(["b"], tmp_path / "results", tmp_path / "out", True)
    assert "retrieved.csv.gz: 1 rows committed, not replayed as is" in lost
