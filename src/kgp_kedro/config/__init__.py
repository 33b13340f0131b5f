"""Typed parameters: every hyperparameter has its paper value as default in exactly one place
(the models of :mod:`kgp_kedro.config.sections` and of each registered builder, retriever and
agent); ``conf/base/parameters_<stage>.yml`` only overrides. The package imports no other of
the project's but the prompts and the plumbing; the whole tree, whose blocks name registered
algorithms, is checked before any node runs by
:func:`kgp_kedro.pipelines.parameter_tree.validate_parameters`, each error naming its key."""
from kgp_kedro.config.base import ParameterError, Params, setting_label, validate

__all__ = ["ParameterError", "Params", "setting_label", "validate"]
