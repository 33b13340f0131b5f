"""A text's vector does not depend on the texts encoded with it nor on the thread count, in
fp32 and in bf16 (so neither on a cache's history nor on a Dask worker's one thread): on a CPU
the encoder encodes each text alone on one PyTorch thread; on a GPU it batches only texts of one
token length, which pads none of them."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.config.sections import EncoderParams
from kgp_kedro.models import load_encoder
from kgp_kedro.models.devices import torch_threads
from kgp_kedro.models.encoders import same_length_batches


def test_same_length_batches_groups_by_length_in_input_order():
    assert same_length_batches([3, 1, 3, 2, 3], 2) == [[1], [3], [0, 2], [4]]
    assert same_length_batches([5, 5, 5], 64) == [[0, 1, 2]]
    assert same_length_batches([], 8) == []


@pytest.fixture(scope="module")
def texts(hotpot_passages):
    """Beginnings of real passages, 2 to 64 words long (some of one token length), and a
    one-word text."""
    _, passages = hotpot_passages
    words = [t.split() for t in passages.drop_duplicates("text")["text"].head(24)]
    return [" ".join(w[:2 + (7 * i) % 63]) for i, w in enumerate(words)] + ["Kansas"]


def test_a_vector_is_the_same_whatever_is_encoded_with_it(texts, encoder):
    together = encoder.encode(texts)
    assert together.dtype == np.float32 and together.shape == (len(texts), 384)
    lengths = encoder.token_lengths(texts)
    assert len(set(lengths)) > 10 and len(set(lengths)) < len(texts)   # mixed, some shared
    # each text alone, the texts in reverse order, and half of them with other companions:
    # bit for bit the same rows (a padded batch moved them by up to ~1e-7 in fp32)
    alone = np.stack([encoder.encode([t])[0] for t in texts[::5]])
    assert np.array_equal(alone, together[::5])
    assert np.array_equal(encoder.encode(texts[::-1])[::-1], together)
    assert np.array_equal(encoder.encode(texts[1::2]), together[1::2])
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_a_vector_is_the_same_on_any_number_of_threads_in_either_dtype(texts, dtype):
    """Bit for bit, on 1, 2 or 3 PyTorch threads, alone or with the other texts: a batched
    product split over 2 threads moved bf16 vectors by up to 2e-3 on an Intel Xeon with AMX,
    and 1 and 2 threads differed in fp32 too (1.7e-7), on every CPU this project met."""
    encoder = load_encoder(EncoderParams(device="cpu", dtype=dtype))
    with torch_threads(2):
        two = encoder.encode(texts)
    with torch_threads(1):
        one = encoder.encode(texts)
        alone = np.stack([encoder.encode([t])[0] for t in texts[::4]])
    with torch_threads(3):
        three = encoder.encode(texts[::-1])[::-1]
    assert np.array_equal(one, two) and np.array_equal(three, two)
    assert np.array_equal(alone, two[::4])
    # the bf16 vectors are bf16's: within its precision of the fp32 ones, not equal to them
    if dtype == "bfloat16":
        fp32 = load_encoder(EncoderParams(device="cpu", dtype="float32")).encode(texts)
        assert not np.array_equal(two, fp32)
        assert np.abs(two - fp32).max() < 2 ** -6   # bf16 keeps 8 bits of mantissa
