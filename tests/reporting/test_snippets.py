"""Results prose generated from results/: a block's text is what the committed files give
(computed here by hand on tiny tables), any benchmark folder gets the blocks with no change to
the mechanism, a hand-edited figure inside a block or beside one is found, and the committed
README and docs pages are current."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest

from kgp_kedro.evaluation.qa_scores import SCORE_COLUMNS
from kgp_kedro.reporting.measurements import record_measurement
from kgp_kedro.reporting.results import regenerate
from kgp_kedro.reporting.retrieval_results import (RETRIEVAL_COLUMNS, RETRIEVAL_KEY,
                                                   RETRIEVAL_OPTIONAL)
from kgp_kedro.reporting.snippets import (RESULTS_SECTIONS, SnippetError, pages,
                                          unquoted_figures)
from tests.conftest import ROOT

# F1 per question: (source, question, method) -> f1; hand-made, so every mean is checkable
F1 = {("hotpotqa", "q1", "dpr"): 0.5, ("hotpotqa", "q2", "dpr"): 0.0,
      ("hotpotqa", "q1", "kgp"): 1.0, ("hotpotqa", "q2", "kgp"): 0.5,
      ("hotpotqa", "q1", "golden"): 1.0, ("hotpotqa", "q2", "golden"): 1.0,
      ("musique", "q3", "dpr"): 0.2, ("musique", "q4", "dpr"): 0.6,
      ("musique", "q3", "kgp"): 0.0, ("musique", "q4", "kgp"): 1.0,
      ("musique", "q3", "golden"): 0.8, ("musique", "q4", "golden"): 0.8}
TOKENS = {"dpr": 400, "kgp": 100, "golden": 200}


def answers() -> pd.DataFrame:
    rows = [{c: None for c in SCORE_COLUMNS} | {
        "source": s, "question_id": q, "method": m, "f1": f, "em": float(f == 1.0),
        "hits1": float(f > 0), "failed": False, "prompt_tokens": TOKENS[m], "llm_calls": 1,
        "context_sp_recall": 0.5, "ran_as": m} for (s, q, m), f in F1.items()]
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


@pytest.fixture
def store(tmp_path):
    """A results store with one benchmark, a second benchmark folder of a new name holding
    only HotpotQA's q1, and one retrieval measurement."""
    root = tmp_path / "results"
    table = answers()
    for name, part in (("qa_benchmark", table),
                       ("qa_benchmark_newreader", table[table["question_id"] == "q1"])):
        (root / name).mkdir(parents=True)
        part.to_csv(root / name / "answers.csv", index=False)
    rows = pd.DataFrame([{"source": s, "method": m, "questions": 3, "recall_at_2": r / 2,
                          "recall_at_5": r, "sp_em_at_30": r, "ms_per_question": 2.0,
                          "calls_per_question": 1.0, "wall_s": 10.0, "passages": 2000,
                          "index_s": 3.0, "run": "env base", "cpu": "a CPU",
                          "load": "1.0/1.0", "date": "2026-11-26", "git_commit": "abc1234"}
                         for s, m, r in (("hotpotqa", "bm25", 0.5), ("hotpotqa", "kgp", 0.7),
                                         ("musique", "bm25", 0.4), ("musique", "kgp", 0.45))])
    record_measurement(rows, root / "retrieval" / "base.csv", RETRIEVAL_COLUMNS,
                       RETRIEVAL_KEY, RETRIEVAL_OPTIONAL)
    regenerate(root)   # the tables.md files, so that a later regenerate reports pages alone
    return root


def filled(root, text: str) -> str:
    page = root.parent / "page.md"
    page.write_text(text, encoding="utf-8")
    regenerate(root, pages=[page])
    return page.read_text(encoding="utf-8")


def block(spec: str) -> str:
    return f"x <!-- results:{spec} --><!-- /results -->"


def test_blocks_hold_the_figures_computed_by_hand(store):
    text = filled(store, "\n\n".join(block(s) for s in (
        "qa_benchmark/scores methods=dpr,kgp",
        "qa_benchmark/of_golden method=kgp",
        "qa_benchmark/saving method=kgp base=dpr",
        "qa_benchmark/range method=kgp metric=prompt_tokens",
        "qa_benchmark/questions method=kgp",
        "qa_benchmark/value method=kgp on=qa_benchmark_newreader",
        "retrieval/margin method=kgp over=bm25 metric=recall_at_5",
        "retrieval/value measurement=base method=kgp metric=index_s_per_1000_passages")))
    # HotpotQA (first) then MuSiQue; F1 means in points
    assert "`dpr` 25.0 / 40.0, `kgp` 75.0 / 50.0<" in text
    assert ">.75 / .62<" in text          # 0.75 / 1.0 and 0.5 / 0.8 of Golden's F1
    assert ">75 %<" in text               # 1 - 100 / 400 prompt tokens, both sources
    assert ">100<" in text and ">2<" in text
    assert ">100.0<" in text              # only q1 (HotpotQA), the folder's questions
    assert ">.050–.200<" in text          # 0.45 - 0.4 and 0.7 - 0.5
    assert ">1.5 / 1.5<" in text          # 3 s over 2,000 passages, per 1,000


def test_a_paired_difference_names_its_source_and_says_when_it_holds_zero(store):
    text = filled(store, block("qa_benchmark/diff method=kgp baseline=dpr"))
    # HotpotQA: kgp beats dpr by 0.5 on both questions, so every resample gives +50.0;
    # MuSiQue: -0.2 and +0.4, mean +0.1, resamples between -20 and +40
    assert ("HotpotQA +50.0 [+50.0, +50.0]; "
            "MuSiQue +10.0 [−20.0, +40.0], no difference measured<") in text


def test_a_pooled_difference_pairs_each_sources_questions_apart(store):
    text = filled(store, block("qa_benchmark/pooled method=kgp baseline=dpr"))
    # the four questions' differences +0.5, +0.5, -0.2, +0.4: mean +0.3; a resample of four
    # draws at most one -0.2 in its lowest case (all four -0.2) and +0.5 in its highest
    inner = text.split("-->")[1].split("<!--")[0]
    interval, rest = inner.removeprefix("+30.0 [").split("] over 4 questions")
    low, high = (float(v.replace("−", "-")) for v in interval.split(", "))
    assert -20.0 <= low <= 30.0 <= high <= 50.0
    assert rest == (", no difference measured" if low <= 0 else "")


def test_a_support_group_is_its_questions_paired_difference(store):
    """Every prompt holds half the supporting passages (context_sp_recall 0.5), so the four
    questions are all in the group of the same share (the pooled difference again, +30.0) and
    none in the group where both prompts hold every supporting passage."""
    text = filled(store, block("qa_benchmark/support group=same"))
    inner = text.split("-->")[1].split("<!--")[0]
    # differences +0.5, +0.5, -0.2, +0.4
    assert inner.startswith("+30.0 [") and \
        "] over 4 questions (`kgp` better on 3, DPR on 1)" in inner
    for spec, error in (("group=both", "no question both"), ("group=equal", "not one of"),
                        ("", "group")):
        with pytest.raises(SnippetError, match=error):
            filled(store, block(f"qa_benchmark/support {spec}".strip()))


def test_a_new_benchmark_folder_gets_every_snippet_with_no_change(store):
    text = filled(store, block("qa_benchmark_newreader/scores methods=golden,kgp"))
    assert "`golden` 100.0, `kgp` 100.0<" in text


def test_a_hand_edited_figure_inside_a_block_is_found_and_rewritten(store):
    page = store.parent / "page.md"
    page.write_text(block("qa_benchmark/value method=dpr"), encoding="utf-8")
    assert regenerate(store, pages=[page]) == [page]
    assert regenerate(store, check=True, pages=[page]) == []
    page.write_text(page.read_text().replace("25.0", "26.0"), encoding="utf-8")
    assert regenerate(store, check=True, pages=[page]) == [page]
    assert "26.0" in page.read_text()     # --check writes nothing


def test_a_figure_beside_a_block_or_in_a_results_section_is_found():
    text = ("# Page\n\n## What you get\n\nDPR reads 12.5 here.\n\n## Other\n\nA 3.5 there.\n\n"
            "F1 " + block("qa_benchmark/value method=dpr") + " and 4.2 by hand (the paper: "
            "59.7), Qwen2.5, 0.5B, GPT-3.5.\n")
    found = unquoted_figures(text, ["What you get"])
    assert [f.split(" in: ")[0] for f in found] == ["4.2", "12.5"]


def test_a_block_that_cannot_be_generated_names_its_page_and_line(store):
    page = store.parent / "page.md"
    for text, error in (("a\n" + block("qa_benchmark/median method=dpr"), "page.md:2"),
                        (block("nowhere/value method=dpr"), "results/nowhere"),
                        (block("qa_benchmark/value"), "needs method="),
                        (block("qa_benchmark/value method=bm25"), "method=bm25"),
                        ("<!-- results:qa_benchmark/value method=dpr --><!-- /results -->",
                         "opens its line"),
                        ("x <!-- results:qa_benchmark/value method=dpr -->", "1 results blocks")):
        page.write_text(text, encoding="utf-8")
        with pytest.raises(SnippetError, match=error):
            regenerate(store, pages=[page])


def test_code_shows_a_blocks_syntax_untouched(store):
    text = "`<!-- results:FOLDER/SNIPPET -->TEXT<!-- /results -->`\n\n" + block(
        "qa_benchmark/value method=dpr")
    assert filled(store, text).startswith("`<!-- results:FOLDER/SNIPPET -->TEXT<!-- /results -->`")


def test_the_committed_pages_quote_the_committed_results_exactly(tmp_path):
    """README.md and docs/: every results block equals what results/ gives, and the results
    sections quote no figure outside a block. A hand-edited README figure fails here."""
    assert regenerate(ROOT / "results", check=True, pages=pages(ROOT)) == [], \
        "stale results blocks: run python -m kgp_kedro.reporting.results"
    for page, heading in RESULTS_SECTIONS:
        text = (ROOT / page).read_text(encoding="utf-8")
        assert f"## {heading}" in text
        assert unquoted_figures(text, [heading]) == [], f"{page}: figures outside a block"
    for page in pages(ROOT):
        text = page.read_text(encoding="utf-8")
        assert unquoted_figures(text) == [], f"{page}: figures beside a block"


def test_the_check_names_an_edited_readme(tmp_path):
    """The committed README with one figure changed is reported stale (on a copy)."""
    copy = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", copy)
    text = copy.read_text(encoding="utf-8")
    start = text.index("<!-- results:retrieval/table")
    end = text.index("<!-- /results -->", start)
    edited = text[:start] + text[start:end].replace(".", ",", 1) + text[end:]
    copy.write_text(edited, encoding="utf-8")
    assert regenerate(ROOT / "results", check=True, pages=[copy]) == [copy]


def _passage_rows(encoder: str, recalls: dict[tuple[str, str], float]) -> pd.DataFrame:
    """HippoRAG 2's setting's rows (``bench_recall.py --env hipporag`` or a peer's
    ``score_peers.py --record``): passage recall, the encoder, the cost columns."""
    return pd.DataFrame([{"source": s, "method": m, "questions": 3, "recall_at_2": r / 2,
                          "recall_at_5": r, "sp_em_at_30": r, "ms_per_question": 20.0,
                          "calls_per_question": 1.0, "wall_s": 10.0, "passages": 2000,
                          "index_s": 4.0, "unit": "passage", "encoder": encoder,
                          "peak_rss_mb": 1500.0, "index_llm_tokens": 0,
                          "run": f"env hipporag; encoder {encoder}", "cpu": "a CPU",
                          "load": "1.0/1.0", "date": "2026-12-03", "git_commit": "abc1234"}
                         for (s, m), r in recalls.items()])


@pytest.fixture
def peer_store(store):
    """``store`` with HippoRAG 2's setting measured with two encoders (``h-minilm``: HotpotQA
    and MuSiQue; ``h-mpnet``: MuSiQue), a peer run with MiniLM on MuSiQue alone
    (``results/peers/lin-minilm.csv``) and the peer driver's side file beside it
    (``lin-minilm.timings.csv``, another table's columns)."""
    for name, encoder, recalls in (
            ("h-minilm", "minilm", {("hotpotqa", "dpr"): 0.6, ("hotpotqa", "kgp"): 0.8,
                                    ("musique", "dpr"): 0.5, ("musique", "kgp"): 0.6}),
            ("h-mpnet", "mpnet", {("musique", "dpr"): 0.52, ("musique", "kgp"): 0.64})):
        record_measurement(_passage_rows(encoder, recalls), store / "retrieval" / f"{name}.csv",
                           RETRIEVAL_COLUMNS, RETRIEVAL_KEY, RETRIEVAL_OPTIONAL)
    peers = store / "peers"
    record_measurement(_passage_rows("minilm", {("musique", "linearrag"): 0.54}),
                       peers / "lin-minilm.csv", RETRIEVAL_COLUMNS, RETRIEVAL_KEY,
                       RETRIEVAL_OPTIONAL)
    pd.DataFrame([{"source": "musique", "method": "linearrag", "index_cpu_s": 700.0,
                   "peer_commit": "4ecfa251"}]).to_csv(peers / "lin-minilm.timings.csv",
                                                       index=False)
    regenerate(store)
    return store


def test_a_peer_row_lands_in_the_column_of_its_encoder(peer_store):
    """A method the project's measurement lacks is the peer's, in the column measured with the
    peer's encoder and unit; "–" under the other encoder; the document tables are untouched."""
    text = filled(peer_store, "Passage recall:" + block(
        "retrieval/table methods=dpr,kgp,linearrag metric=recall_at_2,recall_at_5 unit=passage"))
    assert "| method | h-minilm | h-mpnet |" in text
    assert "| `kgp` passage R@5 | .800 / .600 | – / .640 |" in text
    assert "| `linearrag` passage R@2 | – / .270 | – / – |" in text
    assert "| `linearrag` passage R@5 | – / .540 | – / – |" in text
    cost = filled(peer_store, "Cost:" + block(
        "retrieval/table methods=linearrag metric=index_s_per_1000_passages,index_llm_tokens,"
        "ms_per_question,peak_rss_mb unit=passage"))
    assert "| `linearrag` index s / 1,000 passages | – / 2.0 | – / – |" in cost
    assert "| `linearrag` LLM tokens at index time | – / 0 | – / – |" in cost
    assert "| `linearrag` ms / question | – / 20.0 | – / – |" in cost
    assert "| `linearrag` peak MB | – / 1,500 | – / – |" in cost
    # document recall (the base measurement, no encoder): never a passage-unit peer
    doc = filled(peer_store, block("retrieval/table methods=kgp,linearrag metric=recall_at_5"))
    assert "| `linearrag` | – / – |" in doc


def test_a_margin_and_a_value_read_a_peer_beside_a_measurement(peer_store):
    text = filled(peer_store, "\n\n".join(block(s) for s in (
        "retrieval/margin measurement=h-minilm method=kgp over=linearrag metric=recall_at_5",
        "retrieval/margin measurement=h-minilm method=linearrag over=kgp metric=recall_at_5",
        "retrieval/value measurement=h-minilm method=linearrag metric=recall_at_5")))
    assert ">.060<" in text                   # MuSiQue alone: 0.6 - 0.54, one value
    assert ">−.060<" in text
    assert ">.540<" in text
    with pytest.raises(SnippetError, match="not measured in h-mpnet or by a peer"):
        filled(peer_store, block(
            "retrieval/value measurement=h-mpnet method=linearrag metric=recall_at_5"))


def test_a_peers_side_file_is_not_a_measurement(peer_store):
    """``NAME.timings.csv`` (a dot in its stem) is the driver's side file: results/peers'
    table holds the measurement ``lin-minilm`` alone, and the check passes."""
    from kgp_kedro.reporting.results import measurement_files

    assert [p.name for p in measurement_files(peer_store / "peers")] == ["lin-minilm.csv"]
    tables = (peer_store / "peers" / "tables.md").read_text()
    assert "#### lin-minilm\n" in tables and "timings" not in tables
    assert "| linearrag | 0.270 / 0.540 | 2.0 · 0 · 20.0 · 1,500 |" in tables
    assert regenerate(peer_store, check=True) == []
