"""Readers on the bundled real records, and on malformed copies of them."""
from __future__ import annotations

import json

import pytest

from kgp_kedro.corpus import DatasetFormatError, read_source
from kgp_kedro.corpus.sources import join_sentences
from tests.conftest import HOTPOT, MUSIQUE, TWOWIKI


def test_hotpotqa_reader_rebuilds_paragraphs_and_sentence_labels(hotpot):
    questions, documents = hotpot
    raw = json.loads(HOTPOT.read_text())
    assert len(questions) == len(raw) == 300
    first = raw[0]
    q = questions.iloc[0]
    assert q["question_id"] == first["_id"]
    assert q["question"] == first["question"].strip()
    assert q["answers"] == [first["answer"]]
    docs = documents[documents["collection_id"] == q["collection_id"]]
    assert len(docs) == len(first["context"])
    title, sentences = first["context"][0]
    # HotpotQA keeps the separating space at the start of later sentences: join with ""
    assert docs.iloc[0]["text"] == "".join(sentences).strip()
    assert "  " not in docs.iloc[0]["text"]
    facts = {(t, i) for t, i in first["supporting_facts"]}
    labelled = {(d.title, i) for d in docs.itertuples() for i, f in enumerate(d.sentence_support)
                if f}
    assert labelled == facts
    assert set(docs.loc[docs["is_supporting"], "title"]) == {t for t, _ in facts}


def test_hotpotqa_reader_never_assumes_ten_paragraphs(hotpot):
    questions, documents = hotpot
    sizes = documents.groupby("collection_id").size()
    assert sizes.min() == 2  # the sample's one question with only 2 paragraphs
    raw = {r["_id"]: r for r in json.loads(HOTPOT.read_text())}
    for cid, n in sizes.items():
        assert n == len(raw[cid.split("/", 1)[1]]["context"])


def test_hotpotqa_questions_are_stripped(hotpot):
    questions, _ = hotpot
    raw = json.loads(HOTPOT.read_text())
    padded = [r for r in raw if r["question"] != r["question"].strip()]
    assert len(padded) == 12
    assert (questions["question"] == questions["question"].str.strip()).all()


def test_musique_reader_keys_paragraphs_by_idx_and_keeps_aliases(musique):
    questions, documents = musique
    raw = [json.loads(line) for line in MUSIQUE.read_text().splitlines()]
    assert len(questions) == 181
    repeated = next(r for r in raw
                    if len({p["title"] for p in r["paragraphs"]}) < len(r["paragraphs"]))
    docs = documents[documents["collection_id"] == f"musique/{repeated['id']}"]
    assert len(docs) == 20 and docs["doc_id"].is_unique  # repeated titles, distinct documents
    supporting_idx = {p["idx"] for p in repeated["paragraphs"] if p["is_supporting"]}
    assert {int(d.rsplit("/", 1)[1]) for d in docs.loc[docs["is_supporting"], "doc_id"]} == \
        supporting_idx
    with_alias = next(r for r in raw if r["answer_aliases"])
    row = questions.set_index("question_id").loc[with_alias["id"]]
    assert row["answers"][0] == with_alias["answer"]
    assert set(with_alias["answer_aliases"]) <= set(row["answers"])
    assert row["qtype"] == with_alias["id"].split("__")[0]
    assert row["n_hops"] == len(with_alias["question_decomposition"])


def test_2wiki_reader_handles_both_releases_and_repeated_paragraphs(twowiki):
    questions, documents = twowiki
    raw = json.loads(TWOWIKI.read_text())
    original = [r for r in raw if "entity_ids" not in r]
    assert len(original) == 4  # original-release records lack the updated fields
    assert set(questions["question_id"]) >= {r["_id"] for r in original}
    dup = next(r for r in raw if len({c[0] for c in r["context"]}) < len(r["context"]))
    docs = documents[documents["collection_id"] == f"2wikimultihopqa/{dup['_id']}"]
    assert len(docs) == len(dup["context"]) - 1  # the identical repeat is read once
    # 2Wiki sentences have no leading space: joined with one space
    title, sentences = dup["context"][0]
    assert docs.iloc[0]["text"] == " ".join(sentences)


def test_join_sentences_handles_both_spacing_conventions():
    assert join_sentences(["A b.", " C d."]) == "A b. C d."   # HotpotQA
    assert join_sentences(["A b.", "C d."]) == "A b. C d."    # 2Wiki
    assert join_sentences([]) == ""


def _corrupt(tmp_path, source, name, mutate):
    if source.suffix == ".jsonl":
        records = [json.loads(line) for line in source.read_text().splitlines()[:5]]
        mutate(records)
        path = tmp_path / name
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    else:
        records = json.loads(source.read_text())[:5]
        mutate(records)
        path = tmp_path / name
        path.write_text(json.dumps(records))
    return path


@pytest.mark.parametrize("dataset,source,mutate,record,reason", [
    ("hotpotqa", HOTPOT, lambda r: r[3].pop("context"), "record 3", "missing field 'context'"),
    ("hotpotqa", HOTPOT, lambda r: r[2]["supporting_facts"].append(["x"]), "record 2",
     "malformed supporting fact"),
    ("musique", MUSIQUE, lambda r: r[1]["paragraphs"][4].pop("idx"), "line 2", "lacks idx"),
    ("2wikimultihopqa", TWOWIKI, lambda r: r[4].__setitem__("context", [["t", "not a list"]]),
     "record 4", "malformed context paragraph 0"),
])
def test_malformed_record_names_file_and_record(tmp_path, dataset, source, mutate, record,
                                                reason):
    path = _corrupt(tmp_path, source, f"bad{source.suffix}", mutate)
    with pytest.raises(DatasetFormatError) as info:
        read_source(dataset, path, dataset)
    message = str(info.value)
    assert str(path) in message and record in message and reason in message


def test_invalid_json_names_the_line(tmp_path):
    lines = MUSIQUE.read_text().splitlines()[:3]
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join([lines[0], lines[1][:-20], lines[2]]) + "\n")
    with pytest.raises(DatasetFormatError, match=r"broken\.jsonl: line 2: invalid JSON"):
        read_source("musique", path, "musique")


def test_duplicate_question_ids_are_rejected(tmp_path):
    records = json.loads(HOTPOT.read_text())[:3]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([records[0], records[1], records[0]]))
    with pytest.raises(DatasetFormatError, match="record 2 .*duplicate question id"):
        read_source("hotpotqa", path, "hotpotqa")


def test_limit_reads_the_first_questions():
    questions, _ = read_source("musique", MUSIQUE, "m", limit=3)
    raw = [json.loads(line)["id"] for line in MUSIQUE.read_text().splitlines()[:3]]
    assert [q["question_id"] for q in questions] == raw


def _documents_folder(tmp_path, n_docs=4):
    """A user folder made of real HotpotQA paragraphs (one .md with a heading, .txt others)."""
    record = json.loads(HOTPOT.read_text())[0]
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    names = []
    for i, (title, sentences) in enumerate(record["context"][:n_docs]):
        if i == 0:
            name = "sub/first.md"
            (folder / name).write_text(f"# {title}\n\n{''.join(sentences).strip()}\n")
        else:
            name = f"doc{i}.txt"
            (folder / name).write_text("".join(sentences).strip())
        names.append((name, title))
    gold = [n for n, t in names if t in {f[0] for f in record["supporting_facts"]}]
    (folder / "questions.jsonl").write_text(json.dumps(
        {"id": "q1", "question": record["question"], "answer": record["answer"],
         "supporting_docs": gold}) + "\n" + json.dumps({"id": "q2", "question": "Who?"}) + "\n")
    return folder, names, gold


def test_documents_reader_reads_a_folder_and_its_questions(tmp_path):
    folder, names, gold = _documents_folder(tmp_path)
    questions, documents = read_source("documents", folder, "mydocs")
    assert [q["question_id"] for q in questions] == ["q1", "q2"]
    assert {q["collection_id"] for q in questions} == {"mydocs/all"}
    assert questions[1]["answers"] == []
    by_name = {d["doc_id"].split("/", 1)[1]: d for d in documents}
    assert set(by_name) == {n for n, _ in names}
    assert by_name["sub/first.md"]["title"] == names[0][1]   # markdown heading
    assert by_name["doc1.txt"]["title"] == "doc1"            # file name
    assert {n for n, d in by_name.items() if d["is_supporting"]} == set(gold)


def test_documents_reader_rejects_unknown_supporting_docs(tmp_path):
    folder, _, _ = _documents_folder(tmp_path)
    (folder / "questions.jsonl").write_text(
        json.dumps({"id": "q", "question": "x?", "supporting_docs": ["nope.txt"]}) + "\n")
    with pytest.raises(DatasetFormatError, match=r"questions\.jsonl: line 1 \(id q\): .*nope\.txt"):
        read_source("documents", folder, "d")


def test_unknown_dataset_and_missing_file_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="unknown dataset 'squad'"):
        read_source("squad", HOTPOT, "x")
    with pytest.raises(FileNotFoundError, match="nothere.json"):
        read_source("hotpotqa", tmp_path / "nothere.json", "x")


def test_2wiki_train_supporting_facts_past_the_paragraph_are_skipped_with_one_info_line(caplog):
    """The bundled 2Wiki train sample has 6 supporting facts whose sentence id is past their
    paragraph's end (shared/data/README.md): those sentences are not labelled, the rest of
    the record is, and the reader says so in one INFO line (no warning on a normal run)."""
    import logging

    from tests.conftest import ROOT

    path = ROOT / "data/01_raw/2wikimultihopqa/train_sample500.json"
    caplog.set_level(logging.INFO, logger="kgp_kedro.corpus.sources")
    questions, documents = read_source("2wikimultihopqa", path, "2wikimultihopqa", None)
    assert len(questions) == 500
    said = [r for r in caplog.records if "past their paragraph" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.INFO
    assert said[0].getMessage().count("record ") == 6
    assert not [r for r in caplog.records
                if r.levelno >= logging.WARNING and r.name.startswith("kgp_kedro")]
    record = json.loads(path.read_text())[50]          # ['Prince Hubertus of Hohenzollern', 2]
    docs = [d for d in documents if d["title"] == "Prince Hubertus of Hohenzollern"
            and d["collection_id"].endswith(record["_id"])]
    assert docs and len(docs[0]["sentence_support"]) == 2
    assert not any(docs[0]["sentence_support"])
