"""The option schema: each option of a stage is one dataclass field, and its metadata says
how the command line spells it (:func:`option`, :class:`Flag`; the parsers are built from it
by :func:`sparkledock.cli.options.add_fields`) and how it enters a docking's resume key. The
Python API checks values against the fields' types (:func:`check_fields`: ``steps="5"`` or
``glowworms=2.5`` get one line naming the option, not an AttributeError deep inside a
stage), and run.json records the fields: a new option is one field."""

from __future__ import annotations

import argparse
import types
import typing
from dataclasses import dataclass, field, fields
from typing import Any

from .errors import SparkledockError

#: Atoms closer than this (Å) are in contact for the restraint filter and its commands
#: (``filter --cutoff``, ``lgd_filter_restraints.py --cutoff``, :func:`sparkledock.
#: filter_ranking`): one default for all of them.
DEFAULT_CONTACT_CUTOFF_A = 5.0
#: A solution passes the restraint filter when at least this fraction of the restraint
#: residues are in contact (LightDock's study's 40 %): what a restrained ``dock`` keeps and
#: the default of ``filter --fnat`` and :func:`sparkledock.filter_ranking`.
DEFAULT_FILTER_FRACTION = 0.4
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


#: The metadata keys of an option field: its command-line spelling, its part in the resume key
#: (``always``; ``unless`` its ``off`` value; absent: it changes no result).
CLI, KEY, OFF = "cli", "key", "off"


@dataclass(frozen=True)
class Flag:
    """How the command line spells an option: argparse's flags, a help text (the default is
    appended by the parser builder: ``default_text`` where the field's default is None and
    means something), argparse keywords (``type``, ``choices``, ``action``, ``metavar``,
    ``const``) and the mutually exclusive group it belongs to, if any."""

    flags: tuple[str, ...]
    help: str
    default_text: str | None = None
    kwargs: tuple[tuple[str, Any], ...] = ()
    group: str | None = None


def option(
    default: Any,
    *flags: str,
    help: str = "",
    default_text: str | None = None,
    key: str | None = None,
    off: Any = None,
    group: str | None = None,
    like: Flag | None = None,
    **kwargs: Any,
) -> Any:
    """A dataclass field that is an option: its default, its flags (none: the command line
    sets it otherwise, as ``engine`` from ``--backend``/``--device``/``--precision``), help
    and argparse keywords (``like``: another option's spelling, as the same option of another
    stage), and its part in the resume key (``key``, ``off``)."""
    spec = Flag(flags, help, default_text, tuple(kwargs.items()), group) if flags else like
    return field(default=default, metadata={CLI: spec, KEY: key, OFF: off})


def flag_of(kind: type, name: str) -> Flag | None:
    """The command-line spelling of option ``name`` of dataclass ``kind``."""
    for f in fields(kind):
        if f.name == name:
            return f.metadata.get(CLI)
    raise KeyError(name)


def at_least(least: int):
    """An argparse type: an integer no smaller than ``least`` (argparse reports the rest)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    parse.__name__ = f"integer >= {least}"
    return parse
