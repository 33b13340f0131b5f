"""The generative agent's training (KGP-T5's role) on real train records: Listing 1 examples
along the reasoning paths, fine-tuning a local generator, and the train stage's cache."""
from __future__ import annotations

import pytest

from kgp_kedro.training.generation import (generation_set, path_generation_cases,
                                           path_generation_examples)
from kgp_kedro.training.params import GeneratorTrainingParams
from kgp_kedro.training.paths import reasoning_paths
from tests.generators import save_tiny_generator


@pytest.fixture(scope="session")
def one_thread():
    """One torch thread: on two cores shared with other jobs, two threads wait on the busier
    core at every operation (a tiny model's step ~10x slower)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="session")
def twowiki_generation(train_tables_2wiki):
    """Generation examples of 2Wiki train questions: 32 trained on, 5 questions held apart
    (every 5th)."""
    questions, passages = train_tables_2wiki
    return generation_set(reasoning_paths(questions, passages), positives_per_hop=1,
                          max_examples=32, heldout_share=0.2, max_heldout=5)


@pytest.fixture(scope="session")
def tiny_base(tmp_path_factory, train_tables_2wiki):
    """A tiny T5 whose vocabulary is the 2Wiki train records' words (tests/generators.py)."""
    questions, passages = train_tables_2wiki
    return save_tiny_generator(tmp_path_factory.mktemp("tiny_t5_base"),
                               [*questions["question"], *passages["text"]])


def _titles(texts, passages):
    title = dict(zip(passages["text"], passages["title"]))
    return [title[t] for t in texts]


def test_an_example_is_the_question_and_the_evidence_so_far_then_the_next_passage(train_tables):
    """2Wiki 58f39f78 (bridge comparison, 4 hops: The Prairie King, Confessions of an Opium
    Eater, B. Reeves Eason, Albert Zugsmith): hops 1-3 each give one example whose evidence
    is one passage of every earlier hop and whose target is the hop's first passage; hop 0
    gives none (the seeds come from TF-IDF). Held out, the same hops give ranking cases."""
    questions, _, passages = train_tables
    (path, own), = [(p, o) for p, o in reasoning_paths(questions, passages)
                    if p.question_id == "58f39f7808b511ebbd88ac1f6bf848b6"]
    examples = path_generation_examples(path, own, positives_per_hop=1)
    hops = ["The Prairie King", "Confessions of an Opium Eater", "B. Reeves Eason",
            "Albert Zugsmith"]
    assert [e.hop for e in examples] == [1, 2, 3]
    assert [_titles(e.evidence, own) for e in examples] == [hops[:1], hops[:2], hops[:3]]
    assert _titles([e.target for e in examples], own) == hops[1:]
    text = dict(zip(own["passage_id"], own["text"]))
    assert examples[0].target == text[path.hops[1][0]]
    assert examples[0].question == path.question
    cases = path_generation_cases(path, own)
    assert [c.ranking.hop for c in cases] == [1, 2, 3]
    assert [c.evidence for c in cases] == [e.evidence for e in examples]
    first = cases[0].ranking
    assert sum(first.relevant) == len(path.hops[1])
    assert not set(first.candidates) & {text[p] for p in path.hops[0]}


def test_fine_tuning_lowers_the_loss_on_real_train_questions(twowiki_generation, tiny_base,
                                                              one_thread):
    """A few epochs of the train stage's fine-tuning on 32 real examples lower their
    next-passage loss; no held-apart question is trained on."""
    from kgp_kedro.models.generators import open_generator
    from kgp_kedro.training.generation import generation_loss, train_generator

    made = twowiki_generation
    assert len(made.examples) == 32 and len(made.heldout) >= 5
    assert not {e.question_id for e in made.examples} & \
        {c.ranking.question_id for c in made.heldout}
    params = GeneratorTrainingParams(base_model=tiny_base, epochs=4, batch_size=8,
                                     learning_rate=5e-3, max_input_tokens=64,
                                     max_target_tokens=16, device="cpu")
    before = generation_loss(open_generator(tiny_base, "cpu"), made.examples, params)
    trained, _, losses = train_generator(made.examples, params)
    assert len(losses) == 16
    assert generation_loss(trained, made.examples, params) < before - 0.5


def test_the_train_stage_fine_tunes_a_generator_once_then_loads_it(train_tables_2wiki, tiny_base,
                                                                   tmp_path, one_thread):
    """``train_generator_model`` (the train stage's node of a ``train.generators`` entry):
    trained and reported (held-out ranking by the base and the trained generator) the first
    time; the same examples and parameters load the cached folder instead of training."""
    from kgp_kedro.models.generators import Generator
    from kgp_kedro.pipelines.train.nodes import train_generator_model

    questions, passages = train_tables_2wiki
    train = {"generators": {"g": {"base_model": tiny_base, "max_examples": 8, "max_heldout": 2,
                                  "heldout_share": 0.2, "batch_size": 8,
                                  "max_input_tokens": 64, "max_target_tokens": 16,
                                  "device": "cpu"}},
             "cache_dir": str(tmp_path)}
    model, report = train_generator_model(questions, passages, train, "g")
    row = report.iloc[0]
    assert isinstance(model, Generator) and model.seq2seq and not row["cached"]
    assert row["kind"] == "generator" and row["examples"] >= 8 and row["heldout_cases"] >= 2
    assert 0 < row["heldout_mrr_base"] <= 1 and 0 < row["heldout_mrr_trained"] <= 1
    assert (tmp_path / f"g-{row['digest']}" / "config.json").exists()
    again, cached = train_generator_model(questions, passages, train, "g")
    assert cached.iloc[0]["cached"] and cached.iloc[0]["digest"] == row["digest"]
    assert again.generate(["question : x"], 16, 4) == model.generate(["question : x"], 16, 4)


def test_a_method_naming_a_trained_generator_is_wired_to_the_train_stages_folder():
    """``kgp_t5`` (conf/t5's block, ``model: trained:t5``): the train stage gets a ``train_t5``
    node writing ``trained_generator_t5``, which the method's retrieval node reads; base's
    default run trains no generator."""
    import copy

    import yaml

    from kgp_kedro.pipelines.chains import build_pipelines
    from kgp_kedro.pipelines.parameters import project_parameters
    from tests.conftest import ROOT

    raw = project_parameters()
    assert "kgp_t5" not in raw["retrieve"]["methods"]
    assert not [n for n in build_pipelines(raw)["train"].nodes if "train_t5" in n.name]
    with_t5 = copy.deepcopy(raw)
    t5 = yaml.safe_load((ROOT / "conf" / "t5" / "parameters.yml").read_text())
    with_t5["retrieve"]["methods"]["kgp_t5"] = t5["retrieve"]["methods"]["kgp_t5"]
    pipelines = build_pipelines(with_t5)
    (train,) = [n for n in pipelines["train"].nodes if n.name.endswith("train_t5")]
    assert train.outputs == ["trained_generator_t5", "training_report_t5"]
    (retrieve,) = [n for n in pipelines["retrieve"].nodes if n.name.endswith("kgp_t5.retrieve")]
    assert "trained_generator_t5" in retrieve.inputs
