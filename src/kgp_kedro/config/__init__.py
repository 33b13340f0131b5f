"""Typed parameters: every hyperparameter has its paper value as default in exactly one place
(the models of :mod:`kgp_kedro.config.sections` and of each registered builder, retriever and
agent); ``conf/base/parameters_<stage>.yml`` only overrides. :func:`validate_parameters` checks
a whole parameter tree before any node runs and names the key of every error."""
from kgp_kedro.config.base import ParameterError, Params, setting_label, validate

__all__ = ["ParameterError", "Params", "setting_label", "validate"]
