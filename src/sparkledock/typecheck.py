"""Option values checked against their dataclass field types, for callers that do not go
through argparse (the Python API): ``steps="5"`` or ``glowworms=2.5`` get one line naming the
option, not an AttributeError deep inside a stage."""

from __future__ import annotations

import types
import typing
from dataclasses import fields
from typing import Any

from .errors import SparkledockError

_NAMES = {int: "an integer", float: "a number", bool: "True or False", str: "a string"}


def _accepts(kind: Any, value: Any) -> bool | None:
    """Whether ``value`` is a ``kind`` (None: a kind this check does not judge)."""
    if kind is type(None):
        return value is None
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is str:
        return isinstance(value, str)
    if isinstance(kind, type):
        return isinstance(value, kind)
    return None


def check_fields(options: Any, what: str) -> None:
    """Raise SparkledockError for the first field of dataclass ``options`` whose value is not
    of its declared type (``X | None`` accepts None; container types are not judged)."""
    hints = typing.get_type_hints(type(options))
    for f in fields(options):
        hint = hints.get(f.name)
        union = typing.get_origin(hint) in (typing.Union, types.UnionType)
        kinds = typing.get_args(hint) if union else (hint,)
        value = getattr(options, f.name)
        verdicts = [_accepts(k, value) for k in kinds]
        if any(v is None for v in verdicts) or any(verdicts):
            continue
        wanted = " or ".join(
            _NAMES.get(k, "None" if k is type(None) else getattr(k, "__name__", str(k)))
            for k in kinds
        )
        raise SparkledockError(
            f"{what}: {f.name} must be {wanted}, got {value!r} ({type(value).__name__})"
        )
