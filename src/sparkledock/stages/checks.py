"""The checks every stage makes of its arguments before any work: paths are paths, options
are the fields of their schema object, an engine given by name is resolved."""

from __future__ import annotations

import os
from dataclasses import fields, replace
from typing import Any

from ..backend import resolve_engine
from ..errors import SparkledockError
from ..schema import check_fields


def check_paths(what: str, optional: tuple[str, ...] = (), **given: Any) -> None:
    """Every path argument of stage ``what`` is a path (``str`` or ``os.PathLike``; those in
    ``optional`` may be ``None``, ``restraints`` a list of paths), or the call is refused in
    one line naming the argument, before any work (not a TypeError from pathlib)."""
    for name, value in given.items():
        if value is None and name in optional:
            continue
        items = value if name == "restraints" and isinstance(value, (list, tuple)) else [value]
        for item in items:
            if not isinstance(item, (str, os.PathLike)) or not os.fspath(item):
                raise SparkledockError(
                    f"{what}: {name} must be a file or folder path, got {item!r}"
                )


def named_engine(value: Any) -> Any:
    """An engine given by name (``"torch"``, ``"numba"``, ``"auto"``) resolved; anything else
    as it is (the type check names a wrong one)."""
    if isinstance(value, str):
        return resolve_engine(value)
    return value


def options_of(options: dict[str, Any], kind: type, what: str) -> Any:
    """``kind``'s options from keyword arguments, each checked against its field's type (an
    ``engine`` may be given by name: ``"torch"``, ``"numba"``, ``"auto"``; none given is the
    command line's default, ``auto``: torch on a GPU if there is one, else numba), so that
    the same options give the same run, record and resume key as the command's."""
    known = {f.name for f in fields(kind)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise SparkledockError(
            f"{what}: unknown option(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    if "engine" in options:
        options = {**options, "engine": named_engine(options["engine"])}
    chosen = kind(**options)
    check_fields(chosen, what)
    if "engine" in known and chosen.engine is None:  # (the command line's --backend auto)
        exact = bool(getattr(chosen, "exact", False))
        chosen = replace(chosen, engine=resolve_engine("auto", exact=exact))
    return chosen
