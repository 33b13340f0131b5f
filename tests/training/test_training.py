"""Fine-tuning on real train questions, the model cache, and the train stage's errors."""
from __future__ import annotations

import pytest

from kgp_kedro.config.base import ParameterError
from kgp_kedro.training.artifacts import cached_model, training_digest
from kgp_kedro.training.examples import training_set
from kgp_kedro.training.params import EncoderTrainingParams
from kgp_kedro.training.paths import reasoning_paths
from tests.conftest import ROOT

MINILM = "all-MiniLM-L6-v2"


@pytest.fixture(scope="session")
def twowiki_mdr(train_tables_2wiki):
    """MDR examples of 2Wiki train questions: about 24 examples trained on, 5 questions held
    apart (every 5th)."""
    questions, passages = train_tables_2wiki
    return training_set(reasoning_paths(questions, passages), "mdr", negatives=1,
                        positives_per_hop=1, max_examples=24, heldout_share=0.2, max_heldout=5)


def test_training_lowers_the_loss_and_ranks_the_next_passage_higher_on_held_apart_questions(
        twowiki_mdr):
    """A few steps on real train questions: the loss on the training examples drops, and the
    held-apart questions' next supporting passage ranks higher (MRR) than with the shipped
    MiniLM."""
    from kgp_kedro.training.encoder import (example_loss, load_base, ranking_scores,
                                            train_encoder)

    params = EncoderTrainingParams(kind="mdr", epochs=2, batch_size=8, learning_rate=1e-4,
                                   max_length=48, device="cpu", seed=0)
    assert not {e.question_id for e in twowiki_mdr.examples} & \
        {c.question_id for c in twowiki_mdr.heldout}
    base = load_base(MINILM, "cpu", 48)
    before = example_loss(base, twowiki_mdr.examples, params.scale, 8)
    ranked_before = ranking_scores(lambda t: base.encode(list(t)), twowiki_mdr.heldout)
    model, _, _ = train_encoder(twowiki_mdr.examples, params)
    assert example_loss(model, twowiki_mdr.examples, params.scale, 8) < before
    ranked_after = ranking_scores(lambda t: model.encode(list(t)), twowiki_mdr.heldout)
    assert ranked_after["cases"] >= 5
    assert ranked_after["mrr"] > ranked_before["mrr"]


class FakeModel:
    """A fake trained model: save() writes the file the cache looks for."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def save(self, path: str) -> None:
        from pathlib import Path

        Path(path).mkdir(parents=True)
        (Path(path) / "modules.json").write_text(self.tag)


def test_an_unchanged_digest_loads_the_cached_model_instead_of_training(tmp_path, twowiki_mdr):
    model_path = str(ROOT / "data")   # any folder stands for the base model's files here
    digest = training_digest(twowiki_mdr.examples, {"epochs": 1}, model_path)
    trained = []

    def train():
        trained.append(1)
        return FakeModel("weights")

    def load(path):
        return open(f"{path}/modules.json").read()

    first, cached = cached_model(tmp_path, "mdr", digest, train, load)
    assert (first.tag, cached, len(trained)) == ("weights", False, 1)
    again, cached = cached_model(tmp_path, "mdr", digest, train, load)
    assert (again, cached, len(trained)) == ("weights", True, 1)
    # a changed parameter or example is a new digest: trained again
    assert training_digest(twowiki_mdr.examples, {"epochs": 2}, model_path) != digest
    assert training_digest(twowiki_mdr.examples[1:], {"epochs": 1}, model_path) != digest
    assert not list(tmp_path.glob("*.partial"))


def test_a_missing_train_file_names_its_key():
    from kgp_kedro.config.sections import PassagesParams, Source
    from kgp_kedro.training.sources import source_collections

    with pytest.raises(FileNotFoundError, match=r"^train\.sources\[0\]\.path: musique source"):
        source_collections([Source(dataset="musique", path="data/01_raw/musique/nope.jsonl")],
                           PassagesParams(), "train.sources")


def test_a_bad_train_config_names_its_key():
    from kgp_kedro.pipelines.parameter_tree import validate_parameters
    from kgp_kedro.pipelines.parameters import project_parameters

    raw = project_parameters()
    with pytest.raises(ParameterError, match=r"train\.sources"):
        validate_parameters({**raw, "train": {"sources": [{"dataset": "squad", "path": "x"}]}})
    with pytest.raises(ParameterError, match=r"train\.encoders\.mdr\.epochs"):
        validate_parameters({**raw, "train": {"encoders": {"mdr": {"epochs": 0}}}})
    methods = {**raw["retrieve"]["methods"],
               "kgp_x": {"method": "kgp", "agent": {"kind": "encoder", "model": "trained:nope"}}}
    with pytest.raises(ParameterError, match=r"^retrieve\.methods\.kgp_x.*trained:nope is not a "
                                             r"train\.encoders or train\.generators entry"):
        validate_parameters({**raw, "retrieve": {**raw["retrieve"], "methods": methods}})


def test_a_missing_train_file_stops_the_train_stage_before_any_node(tmp_path):
    from tests.projects import make_project, run_pipeline

    project = make_project(tmp_path)
    runtime = {"train": {"sources": [
        {"dataset": "hotpotqa", "path": "data/01_raw/hotpotqa/missing_train.json"}]}}
    with pytest.raises(FileNotFoundError, match=r"^train\.sources\[0\]\.path: hotpotqa source "
                                                r"not found: data/01_raw/hotpotqa/missing_train"):
        run_pipeline(project, "train", runtime_params=runtime)
    assert not (project / "data" / "06_models").exists() or not any(
        (project / "data" / "06_models").rglob("*"))


def _weights_trained_under(ambient_threads: int, examples, params) -> list:
    """The weights ``train_encoder`` gives with PyTorch's threads set to ``ambient_threads``
    beforehand (as ``OMP_NUM_THREADS`` or the core count would set them)."""
    import torch

    from kgp_kedro.models.devices import torch_threads
    from kgp_kedro.training.encoder import train_encoder

    with torch_threads(ambient_threads):
        model, _, _ = train_encoder(examples, params)
        assert torch.get_num_threads() == ambient_threads   # restored after training
    return [p.detach().clone() for p in model.parameters()]


def test_the_same_examples_train_the_same_weights_whatever_the_ambient_thread_count(
        twowiki_mdr):
    """``threads`` fixes PyTorch's threads while fine-tuning: one thread or two beforehand,
    the real examples give bit-identical weights (so a fresh clone's model, and the prompts
    its retrieval gives, match the committed store's)."""
    import torch

    params = EncoderTrainingParams(kind="mdr", epochs=1, batch_size=8, learning_rate=1e-4,
                                   max_length=48, device="cpu", seed=0, threads=2)
    one = _weights_trained_under(1, twowiki_mdr.examples, params)
    two = _weights_trained_under(2, twowiki_mdr.examples, params)
    assert all(torch.equal(a, b) for a, b in zip(one, two))
