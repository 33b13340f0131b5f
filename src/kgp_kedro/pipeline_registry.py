"""Project pipelines, as Kedro finds them: the chains of :mod:`kgp_kedro.pipelines.chains`
(each stage holds only its own nodes; ``kedro run --pipeline=<stage>`` runs from the raw files
to that stage), shaped by the session's parameters (:mod:`kgp_kedro.pipelines.parameters`), so
``--env`` and ``--params`` change what runs.
"""
from __future__ import annotations

from kedro.pipeline import Pipeline

from kgp_kedro.pipelines.chains import compose
from kgp_kedro.pipelines.parameters import active


def register_pipelines() -> dict[str, Pipeline]:
    return compose(active())
