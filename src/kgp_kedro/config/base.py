"""Building blocks of the typed parameters: strict number types, the base model, and errors
that name the parameter key."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# YAML gives ints, floats and bools apart; a '2', 2.7 or true where a count is expected is an
# error, not a silent cast
Int = Annotated[int, Field(strict=True)]
PosInt = Annotated[int, Field(strict=True, ge=1)]
NonNegInt = Annotated[int, Field(strict=True, ge=0)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]

M = TypeVar("M", bound="Params")


class Params(BaseModel):
    """A block of parameters: unknown keys are errors (a misspelled key never passes
    silently), values are immutable once validated."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ParameterError(ValueError):
    """A parameter is missing, misspelled, of the wrong type or refers to something that does
    not exist. The message starts with the full key, e.g. ``kg.variants.tfidf.sweep.n_kw[2]``."""

    def __init__(self, key: str, reason: str) -> None:
        self.key, self.reason = key, reason
        super().__init__(f"{key}: {reason}")


def _key(prefix: str, loc: tuple[Any, ...]) -> str:
    key = prefix
    for part in loc:
        key += f"[{part}]" if isinstance(part, int) else (f".{part}" if key else str(part))
    return key


def validate(model: type[M], raw: Any, key: str) -> M:
    """``model`` validated from ``raw`` (``None``: all defaults); errors become one
    :class:`ParameterError` listing every problem with its full key."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise ParameterError(key, f"expected a mapping of parameters, got {type(raw).__name__}")
    try:
        return model.model_validate(dict(raw))
    except ValidationError as exc:
        problems = [f"{_key(key, tuple(e['loc']))}: {e['msg']} (got {e.get('input')!r})"
                    for e in exc.errors()]
        raise ParameterError(key, "invalid parameters\n  " + "\n  ".join(problems)) from None


def setting_label(values: Mapping[str, Any]) -> str:
    """The label of one density setting, e.g. ``n_kw=10`` or ``k=5,metric=dot``: the column
    ``setting`` of the KG tables."""
    return ",".join(f"{k}={v}" for k, v in values.items())


def parse_named(registry: Any, raw: Any, key: str, field: str,
                exclude: tuple[str, ...] = ()) -> tuple[type, "Params"]:
    """The registered class named by ``raw[field]`` (a KG builder, a retrieval method, a
    traversal agent) and its options validated by its ``Params`` model; the keys of
    ``exclude`` are left to the caller."""
    if not isinstance(raw, Mapping) or field not in raw:
        raise ParameterError(key, f"needs '{field}': one of {', '.join(registry.names())}")
    try:
        cls = registry.get(raw[field])
    except KeyError as exc:
        raise ParameterError(f"{key}.{field}", str(exc.args[0])) from None
    options = {k: v for k, v in raw.items() if k != field and k not in exclude}
    return cls, validate(cls.Params, options, key)
