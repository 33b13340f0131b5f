"""train: one node per ``train.encoders`` or ``train.generators`` entry a retrieve method names
as ``trained:<name>`` (none: an empty stage), writing ``trained_encoder_<name>`` or
``trained_generator_<name>`` (a model folder, data/06_models) and ``training_report_<name>``."""

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.binding import bound
from kgp_kedro.pipelines.train.nodes import (read_train_sources, train_bi_encoder,
                                             train_generator_model)


def needed(params) -> list[str]:
    """The trained models the configured methods name, in order."""
    return list(dict.fromkeys(t for m in params.methods.values()
                              for t in m.requirements.trained))


def create_pipeline(params) -> Pipeline:
    names = needed(params)
    if not names:
        return Pipeline([])
    nodes = [node(read_train_sources, ["params:train", "params:passages"],
                  ["train_questions", "train_passages"], name="read_train_sources")]
    for name in names:
        kind = params.train.kind_of(name)
        train = train_bi_encoder if kind == "encoder" else train_generator_model
        nodes.append(node(bound(train, name=name),
                          ["train_questions", "train_passages", "params:train"],
                          [f"trained_{kind}_{name}", f"training_report_{name}"],
                          name=f"train_{name}"))
    return Pipeline(nodes, tags=["train"])
