"""Options the ``sparkledock`` commands share: argparse helpers (engine, scoring, protocol,
placement, ranking, logging) and their translation into an :class:`~sparkledock.backend.Engine`.
The LightDock-named commands use the same helpers (:mod:`sparkledock.lightdock.commands`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..backend import BACKENDS, PRECISIONS, Engine, resolve_engine
from ..errors import NamesOptions
from ..schema import at_least as at_least  # (re-exported: the parsers' integer type)

if TYPE_CHECKING:
    from ..workflow.commands import RunOptions, SetupOptions

#: Poses scored per call when streaming results (and reporting progress).
CHUNK = 8192


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sparkledock: warning: {error_text(message)}", file=sys.stderr)


def example_dir() -> Path:
    """Folder of the bundled 2X9A example (a LightDock setup plus poses)."""
    return Path(str(resources.files("sparkledock").joinpath("data/example")))


def add_engine_options(p: argparse.ArgumentParser, backends: Sequence[str] = BACKENDS) -> None:
    """--backend, --device and --precision (resolved in :func:`engine_of`)."""
    p.add_argument(
        "--backend",
        default="auto",
        choices=backends,
        help="numba: CPU kernel (LightDock's scores bit for bit); torch: PyTorch on CPU or GPU; "
        "auto (default): torch on a GPU if there is one, else numba",
    )
    p.add_argument("--device", default=None, help="torch device: cpu, cuda or cuda:N")
    p.add_argument(
        "--precision",
        default="fp64",
        choices=PRECISIONS,
        help="torch arithmetic: fp64 (LightDock's scores within 1e-9 relative; 1e-12 measured) "
        "or fp32 (within 1e-4; 2e-5 measured; faster)",
    )


def add_logging_options(p: argparse.ArgumentParser) -> None:
    """--quiet, --verbose and --log-file (read by :func:`main`)."""
    p.add_argument("--quiet", action="store_true", help="warnings and errors only, no progress")
    p.add_argument("--verbose", action="store_true", help="more detail on each stage")
    p.add_argument("--log-file", metavar="FILE", help="also write every message, timed, here")


def add_fields(
    p: argparse.ArgumentParser,
    kind: type,
    names: Sequence[str] | None = None,
    *,
    given_only: bool = True,
    defaults: dict[str, Any] | None = None,
) -> None:
    """Options for the fields of dataclass ``kind`` that have a command-line spelling
    (:func:`sparkledock.schema.option`; ``names``: those only), in field order, each with its
    field's name as ``dest`` and its default in its help. ``given_only``: an option not given
    is None, so that the dataclass's default (or the protocol's) applies; otherwise argparse's
    default is the field's (or ``defaults``' where it names the field: a stage's own)."""
    from dataclasses import MISSING, fields

    from ..schema import CLI

    defaults = defaults or {}
    groups: dict[str, Any] = {}
    for f in fields(kind):
        spec = f.metadata.get(CLI)
        if spec is None or (names is not None and f.name not in names):
            continue
        kwargs = dict(spec.kwargs)
        default = defaults.get(f.name, None if f.default is MISSING else f.default)
        switch = kwargs.get("action") in ("store_true", "store_false", "store_const")
        if f.name in defaults or spec.default_text is None:
            shown = None if switch or default is None or default is False else default
        else:
            shown = spec.default_text
        text = spec.help + (f" (default: {shown})" if shown is not None else "")
        into = p
        if spec.group is not None:
            if spec.group not in groups:
                groups[spec.group] = p.add_mutually_exclusive_group()
            into = groups[spec.group]
        into.add_argument(
            *spec.flags,
            dest=f.name,
            default=None if given_only and f.name not in defaults else default,
            help=text,
            **kwargs,
        )


def add_docking_options(p: argparse.ArgumentParser) -> None:
    """Every :class:`~sparkledock.docking.DockOptions` option (``dock`` and ``screen``): its
    fields' flags, the engine's and the logging options."""
    from ..docking import DockOptions

    add_fields(p, DockOptions)
    add_logging_options(p)
    add_engine_options(p)


def engine_of(args: argparse.Namespace, exact: bool = False) -> Engine:
    """The engine the options ask for (an :class:`EngineError`, one line, otherwise)."""
    return resolve_engine(args.backend, args.device, args.precision, exact=exact)


#: ``setup``'s options spelled differently on the command line (flag -> SetupOptions field).
_SETUP_RENAMED = {"starting": "write_starting_positions"}


def options_by_name(
    kind: type, values: dict[str, Any], renamed: dict[str, str] | None = None
) -> dict[str, Any]:
    """The fields of options dataclass ``kind`` that parsed arguments ``values`` give, by
    name (``renamed``: argument -> field), with ``--no-map-modified`` turned around."""
    from dataclasses import fields

    known = {f.name for f in fields(kind)}
    chosen = {(renamed or {}).get(k, k): v for k, v in values.items()}
    chosen = {k: v for k, v in chosen.items() if k in known}
    if "no_map_modified" in values:  # (LightDock's spelling: a switch)
        chosen["map_modified"] = not values["no_map_modified"]
    return chosen


def setup_options(values: dict[str, Any]) -> SetupOptions:
    """``setup``'s options from parsed arguments, sparkledock's or ``lightdock3_setup.py``'s
    (named alike): the fields of :class:`~sparkledock.preparation.prepare.SetupOptions`
    present, ``--no-map-modified`` turned around, and what the protocol decides
    (:func:`~sparkledock.docking.options.protocol_setup`)."""
    from ..docking.options import protocol_setup
    from ..workflow.commands import SetupOptions

    chosen = options_by_name(SetupOptions, values, _SETUP_RENAMED)
    restrained = values.get("restraints") is not None
    return SetupOptions(**protocol_setup(chosen, values["protocol"], restrained))


def run_options(values: dict[str, Any], engine: Engine) -> RunOptions:
    """``run``'s options from parsed arguments (sparkledock's or ``lightdock3.py``'s, named
    as :class:`~sparkledock.engine.options.RunOptions`'s fields) on ``engine``."""
    from ..workflow.commands import RunOptions

    return RunOptions(**{**options_by_name(RunOptions, values), "engine": engine})


def report_run(result: Any, comm: Any) -> None:
    """The line a finished run prints (nothing on MPI ranks other than 0)."""
    if result is None:
        return
    if comm is not None:
        print(
            f"sparkledock: {result.tasks} tasks on {result.ranks} ranks in "
            f"{result.wall_seconds:.1f} s (busy-time imbalance {result.imbalance:.2f}, "
            f"{result.skipped} swarms already done)",
            file=sys.stderr,
        )
    else:
        print(f"sparkledock: wrote swarm_*/gso_*.out in {result.root}", file=sys.stderr)


def flag_for(name: str) -> str:
    """The command line's spelling of a schema field (its first long flag; a field without
    a flag: its name with dashes), for the errors, warnings and log lines that name options
    (:class:`~sparkledock.errors.NamesOptions`)."""
    from ..docking import DockOptions
    from ..schema import flag_of
    from ..workflow.commands import (
        EvaluateOptions,
        FilterOptions,
        ModelOptions,
        RankOptions,
        RunOptions,
        ScoreOptions,
        SetupOptions,
    )

    for kind in (
        DockOptions,
        RunOptions,
        SetupOptions,
        RankOptions,
        FilterOptions,
        EvaluateOptions,
        ModelOptions,
        ScoreOptions,
    ):
        try:
            spec = flag_of(kind, name)
        except KeyError:
            continue
        if spec is not None:
            return next((f for f in spec.flags if f.startswith("--")), spec.flags[0])
    return "--" + name.replace("_", "-")


def error_text(exc: Exception | str) -> str:
    """An error's (or a warning's) one line as the command line says it: options by their
    flags (:class:`~sparkledock.errors.NamesOptions`)."""
    return exc.spelled(flag_for) if isinstance(exc, NamesOptions) else str(exc)
