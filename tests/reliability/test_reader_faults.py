"""Bad inputs per format (issue 13): every malformed field, decode error, duplicate id, empty
source and bad ``limit`` stops ``read_source`` with an error naming the file and the record
(or the parameter key), before anything is returned, so the ingest node writes nothing."""
from __future__ import annotations

import json

import pytest

from kgp_kedro.corpus import DatasetFormatError, read_source
from kgp_kedro.corpus.errors import ParameterError
from tests.reliability.corrupt import HOTPOT, MUSIQUE, TWOWIKI, first_records, write_records


def _raises_naming(dataset, path, *needles, limit=None):
    with pytest.raises(DatasetFormatError) as info:
        read_source(dataset, path, dataset, limit)
    message = str(info.value)
    assert str(path) in message, message
    for needle in needles:
        assert needle in message, message
    return info.value


def _musique(tmp_path, mutate, name="bad.jsonl"):
    records = first_records(MUSIQUE)
    mutate(records)
    return write_records(tmp_path / name, records)


# -- MuSiQue paragraphs and answers: wrong types are named errors, not AttributeError --------

@pytest.mark.parametrize("value,got", [(None, "null"), (42, "int"), (["a"], "list")])
def test_musique_paragraph_text_of_wrong_type(tmp_path, value, got):
    path = _musique(tmp_path, lambda r: r[1]["paragraphs"][3].__setitem__("paragraph_text", value))
    rid = first_records(MUSIQUE)[1]["id"]
    _raises_naming("musique", path, f"line 2 (id {rid})",
                   f"paragraph 3: field 'paragraph_text' should be str, got {got}")


def test_musique_title_null(tmp_path):
    path = _musique(tmp_path, lambda r: r[0]["paragraphs"][0].__setitem__("title", None))
    _raises_naming("musique", path, "line 1", "paragraph 0: field 'title' should be str, got null")


@pytest.mark.parametrize("value", ["3", 2.0, True, None])
def test_musique_paragraph_idx_of_wrong_type(tmp_path, value):
    path = _musique(tmp_path, lambda r: r[2]["paragraphs"][5].__setitem__("idx", value))
    _raises_naming("musique", path, "line 3", "paragraph 5: field 'idx' should be int")


def test_musique_int_answer_alias(tmp_path):
    def mutate(records):
        records[0]["answer_aliases"] = ["fine", 1492]
    path = _musique(tmp_path, mutate)
    _raises_naming("musique", path, "line 1", "field 'answer_aliases' item 1 should be str, "
                                              "got int (1492)")


@pytest.mark.parametrize("field,value,expected", [
    ("answer", 7, "field 'answer' should be str, got int"),
    ("answer", None, "field 'answer' is null"),
    ("question", None, "field 'question' is null"),
    ("answerable", "yes", "field 'answerable' should be bool, got str"),
    ("question_decomposition", ["x"], "field 'question_decomposition' item 0 should be dict"),
    ("id", ["x"], "field 'id' should be str/int, got list"),
])
def test_musique_record_fields_of_wrong_type(tmp_path, field, value, expected):
    path = _musique(tmp_path, lambda r: r[4].__setitem__(field, value))
    _raises_naming("musique", path, "line 5", expected)


def test_musique_is_supporting_must_be_a_bool(tmp_path):
    path = _musique(tmp_path, lambda r: r[0]["paragraphs"][1].__setitem__("is_supporting", "no"))
    _raises_naming("musique", path, "line 1", "paragraph 1: field 'is_supporting' should be bool")


def test_musique_duplicate_paragraph_idx(tmp_path):
    def mutate(records):
        records[3]["paragraphs"][7]["idx"] = records[3]["paragraphs"][2]["idx"]
    path = _musique(tmp_path, mutate)
    idx = first_records(MUSIQUE)[3]["paragraphs"][2]["idx"]
    _raises_naming("musique", path, "line 4",
                   f"paragraph 7 repeats idx {idx} (paragraph 2)")


# -- HotpotQA / 2Wiki: titles, sentences, supporting facts, answers -------------------------

@pytest.mark.parametrize("dataset,source", [("hotpotqa", HOTPOT), ("2wikimultihopqa", TWOWIKI)])
def test_context_title_null(tmp_path, dataset, source):
    records = first_records(source)
    records[2]["context"][1][0] = None
    path = write_records(tmp_path / "bad.json", records)
    _raises_naming(dataset, path, f"record 2 (id {records[2]['_id']})",
                   "context paragraph 1: title should be str, got NoneType")


@pytest.mark.parametrize("dataset,source", [("hotpotqa", HOTPOT), ("2wikimultihopqa", TWOWIKI)])
def test_sentence_of_wrong_type(tmp_path, dataset, source):
    records = first_records(source)
    records[1]["context"][0][1][0] = 12
    path = write_records(tmp_path / "bad.json", records)
    _raises_naming(dataset, path, "record 1", "context paragraph 0: sentence 0 should be str")


@pytest.mark.parametrize("value,expected", [
    (42, "field 'answer' should be str, got int"),
    (None, "field 'answer' is null"),
])
def test_hotpotqa_answer_of_wrong_type(tmp_path, value, expected):
    records = first_records(HOTPOT)
    records[0]["answer"] = value
    path = write_records(tmp_path / "bad.json", records)
    _raises_naming("hotpotqa", path, "record 0", expected)


def test_supporting_fact_with_a_bool_sentence_id(tmp_path):
    records = first_records(HOTPOT)
    records[3]["supporting_facts"][0][1] = True
    path = write_records(tmp_path / "bad.json", records)
    _raises_naming("hotpotqa", path, "record 3", "malformed supporting fact")


def test_2wiki_entity_ids_of_wrong_type(tmp_path):
    records = first_records(TWOWIKI)
    records[0]["entity_ids"] = ["Q1"]
    path = write_records(tmp_path / "bad.json", records)
    _raises_naming("2wikimultihopqa", path, "record 0", "field 'entity_ids' should be str")


# -- decoding: a non-UTF-8 byte names the file and the line ----------------------------------

def test_non_utf8_byte_in_jsonl_names_the_line(tmp_path):
    lines = MUSIQUE.read_bytes().splitlines(keepends=True)[:4]
    lines[2] = lines[2].replace(b'"question": "', b'"question": "\xff', 1)
    path = tmp_path / "latin.jsonl"
    path.write_bytes(b"".join(lines))
    error = _raises_naming("musique", path, "line 3", "not UTF-8 text (byte 0xff")
    assert not isinstance(error, UnicodeDecodeError)


def test_non_utf8_byte_in_json_names_the_line(tmp_path):
    records = first_records(HOTPOT, 3)
    text = json.dumps(records, indent=1).encode()
    marker = records[1]["question"][:20].encode()
    path = tmp_path / "latin.json"
    path.write_bytes(text.replace(marker, b"\xe9" + marker, 1))
    line = text[:text.index(marker)].count(b"\n") + 1
    _raises_naming("hotpotqa", path, f"line {line}", "not UTF-8 text (byte 0xe9")


def test_a_utf8_bom_is_accepted(tmp_path):
    path = write_records(tmp_path / "bom.json", first_records(HOTPOT, 2))
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    questions, _ = read_source("hotpotqa", path, "h")
    assert len(questions) == 2


# -- zero questions: an error naming the file ------------------------------------------------

@pytest.mark.parametrize("dataset,name,content", [
    ("hotpotqa", "empty.json", "[]"),
    ("2wikimultihopqa", "empty.json", "[]"),
    ("musique", "empty.jsonl", ""),
    ("musique", "blank.jsonl", "\n\n"),
])
def test_a_source_without_questions_is_an_error(tmp_path, dataset, name, content):
    path = tmp_path / name
    path.write_text(content)
    _raises_naming(dataset, path, "no questions")


def test_limit_zero_is_an_error_naming_the_file(tmp_path):
    path = write_records(tmp_path / "ok.jsonl", first_records(MUSIQUE, 3))
    with pytest.raises(DatasetFormatError) as info:
        read_source("musique", path, "m", 0, param_key="ingest.sources[1]")
    assert str(path) in str(info.value)
    assert "no questions selected (ingest.sources[1].limit is 0)" in str(info.value)


# -- limit: null or a non-negative int, nothing coerced ---------------------------------------

@pytest.mark.parametrize("limit", ["2", 1.5, True, False, -1, [2]])
def test_bad_limit_names_the_parameter_key(limit):
    with pytest.raises(ParameterError) as info:
        read_source("hotpotqa", HOTPOT, "h", limit, param_key="ingest.sources[2]")
    assert str(info.value).startswith("ingest.sources[2].limit: must be null or a non-negative "
                                      "integer")
    assert info.value.key == "ingest.sources[2].limit"


def test_limit_error_without_a_key_still_names_limit():
    with pytest.raises(ParameterError, match=r"^limit: must be null or a non-negative integer, "
                                             r"got str '2'"):
        read_source("hotpotqa", HOTPOT, "h", "2")


def test_unknown_dataset_names_the_parameter_key():
    with pytest.raises(ParameterError, match=r"ingest.sources\[0\].dataset: unknown dataset"):
        read_source("squad", HOTPOT, "x", param_key="ingest.sources[0]")


# -- duplicate ids ---------------------------------------------------------------------------

def test_duplicate_question_id_across_jsonl_lines(tmp_path):
    records = first_records(MUSIQUE, 3)
    path = write_records(tmp_path / "dup.jsonl", [records[0], records[1], records[0]])
    _raises_naming("musique", path, f"record 2 (id {records[0]['id']})", "duplicate question id")


def test_an_int_id_equal_to_a_string_id_is_a_duplicate(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Paris is the capital of France.")
    (folder / "questions.jsonl").write_text(
        json.dumps({"id": 1, "question": "Capital?"}) + "\n"
        + json.dumps({"id": "1", "question": "Again?"}) + "\n")
    with pytest.raises(DatasetFormatError, match=r"questions\.jsonl: record 1 \(id 1\): "
                                                 r"duplicate question id"):
        read_source("documents", folder, "d")


def test_the_bundled_files_still_read_cleanly():
    for dataset, source, n in (("hotpotqa", HOTPOT, 300), ("musique", MUSIQUE, 181),
                               ("2wikimultihopqa", TWOWIKI, 103)):
        questions, documents = read_source(dataset, source, dataset)
        assert len(questions) == n
        assert len({d["doc_id"] for d in documents}) == len(documents)
