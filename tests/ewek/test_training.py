"""The reranker trained here (EWEK-QA §3.1.1 retrieve and rerank): pairs labelled by the bundled
supporting facts, never from questions that are read; a seeded short training; the model saved
as a versioned Kedro dataset and loaded back for reranking."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.ewek.params import SplitterParams, TrainingParams
from kgp_kedro.ewek.rerank import cross_scores, load_cross_encoder
from kgp_kedro.ewek.training import train_cross_encoder, training_pairs

TINY = TrainingParams(max_pairs=8, negatives_per_positive=1, batch_size=8, max_length=64,
                      device="cpu")


@pytest.fixture(scope="module")
def pairs(hotpot_passages, hotpot):
    questions, passages = hotpot_passages
    documents = hotpot[1][hotpot[1]["collection_id"].isin(questions["collection_id"])]
    read = questions["question_id"].tolist()[:1]
    return questions, passages, training_pairs(questions, documents, passages, read,
                                               SplitterParams(), TINY)


def test_pairs_come_from_questions_not_read_labelled_by_supporting_facts(pairs):
    questions, passages, made = pairs
    assert len(made) == 8 and 0 < sum(made.labels) < 8
    assert questions["question"].iloc[0] not in made.questions   # the read question is left out
    support = passages.loc[passages["is_supporting"], "text"].tolist()
    for quote, label in zip(made.quotes, made.labels):
        assert any(s in quote for s in support) == bool(label)


def test_a_seeded_short_training_is_reproducible_and_survives_a_save(pairs, tmp_path):
    from kedro.io.core import Version

    from kgp_kedro.pipelines.ewek.datasets import CrossEncoderDataset

    made = pairs[2]
    first, seconds = train_cross_encoder(made, TINY)
    second, _ = train_cross_encoder(made, TINY)
    texts = made.quotes[:4]
    a = cross_scores(first, made.questions[0], texts)
    assert seconds > 0 and np.allclose(a, cross_scores(second, made.questions[0], texts))
    dataset = CrossEncoderDataset(str(tmp_path / "ce"), version=Version(None, None))
    dataset.save(first)
    path = dataset.load()
    assert path.startswith(str(tmp_path / "ce")) and path.endswith("ce")
    loaded = load_cross_encoder(path, "cpu", 64)
    assert np.allclose(a, cross_scores(loaded, made.questions[0], texts), atol=1e-5)
