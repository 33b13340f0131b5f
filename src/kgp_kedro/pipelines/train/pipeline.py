"""train: one node per ``train.encoders`` entry a retrieve method names as ``trained:<name>``
(none: an empty stage), writing ``trained_encoder_<name>`` (a model folder, data/06_models)
and ``training_report_<name>``."""
from functools import partial, update_wrapper

from kedro.pipeline import Pipeline, node

from kgp_kedro.pipelines.train.nodes import read_train_sources, train_bi_encoder


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
        func = update_wrapper(partial(train_bi_encoder, name=name), train_bi_encoder)
        nodes.append(node(func, ["train_questions", "train_passages", "params:train"],
                          [f"trained_encoder_{name}", f"training_report_{name}"],
                          name=f"train_{name}"))
    return Pipeline(nodes, tags=["train"])
