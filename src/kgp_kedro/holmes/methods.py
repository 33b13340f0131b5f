"""HOLMES' answer methods, found by the ``kind`` of a ``holmes.methods`` entry: ``holmes``
(the pruned hyper-relational KG, A.4.5 prompt) and the paper's baselines (§5.1), ``base``
(the question only) and ``base_docs`` (the question with its documents). A new method is a
class registered here with ``@HOLMES_METHODS.register("<kind>")``."""
from __future__ import annotations

from kgp_kedro.plumbing.registry import Registry


class AnswerMethod:
    """How a ``holmes.methods`` entry answers: ``reads_facts`` methods read the holmes stage's
    pruned facts (:func:`kgp_kedro.holmes.run.answer_with_facts`), the others the question
    and, when ``with_documents``, its documents (:func:`kgp_kedro.holmes.run.answer_base`)."""

    name: str
    reads_facts: bool = False
    with_documents: bool = False


HOLMES_METHODS: Registry[AnswerMethod] = Registry("HOLMES method", "kgp_kedro.holmes")


@HOLMES_METHODS.register("holmes")
class FactsAnswer(AnswerMethod):
    """HOLMES (§4.2.3): the pruned facts, with complementary fact retrieval."""

    reads_facts = True


@HOLMES_METHODS.register("base")
class QuestionOnlyAnswer(AnswerMethod):
    """Base (w/o supp docs, §5.1): the question alone."""


@HOLMES_METHODS.register("base_docs")
class DocumentsAnswer(AnswerMethod):
    """Base (with supp docs, §5.1): the question with its documents S_q."""

    with_documents = True
