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
from ..scoring import SCORING_FUNCTIONS

if TYPE_CHECKING:
    from ..preparation.prepare import SetupOptions

#: Poses scored per call when streaming results (and reporting progress).
CHUNK = 8192


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sparkledock: warning: {message}", file=sys.stderr)


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


def add_scoring_option(p: argparse.ArgumentParser, what: str) -> None:
    """--scoring: a function, a weighted combination or a LightDock scoring file."""
    p.add_argument(
        "--scoring",
        default="dfire",
        help=f"{what}: a name ({', '.join(sorted(SCORING_FUNCTIONS))}), a weighted "
        "combination such as dfire:1,vdw:0.5, or a LightDock scoring file (default: dfire)",
    )


def add_scoring_mode_option(p: argparse.ArgumentParser, docking: bool = False) -> None:
    """--scoring-mode (run; dock and screen, whose default follows the restraints)."""
    default = (
        "default: fast for a DFIRE docking without restraints, exact otherwise"
        if docking
        else "default: exact"
    )
    p.add_argument(
        "--scoring-mode",
        default=None if docking else "exact",
        choices=("exact", "fast", "fast-flex"),
        help="exact: every score exact; fast: the search scores with DFIRE's field on a grid "
        "(numba or torch), the final glowworms are re-scored exactly; fast-flex: fast, with the "
        f"receptor's normal modes as a local shift of the ligand ({default})",
    )


def add_logging_options(p: argparse.ArgumentParser) -> None:
    """--quiet, --verbose and --log-file (read by :func:`main`)."""
    p.add_argument("--quiet", action="store_true", help="warnings and errors only, no progress")
    p.add_argument("--verbose", action="store_true", help="more detail on each stage")
    p.add_argument("--log-file", metavar="FILE", help="also write every message, timed, here")


def add_protocol_options(p: argparse.ArgumentParser, top_help: str) -> None:
    """The docking protocol's options that ``dock`` and ``screen`` share (read by
    :func:`dock_options`), plus threads, quiet and the engine."""
    # (None: not given, so DockOptions' default, or the example's, applies)
    p.add_argument("--steps", type=int, default=None, help="GSO steps (100)")
    p.add_argument("-g", "--glowworms", type=int, default=None, help="glowworms per swarm (200)")
    p.add_argument("-s", "--swarms", type=int, default=None, help="default: LightDock's rule")
    p.add_argument("--top", type=int, default=None, help=top_help)
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all)")
    add_logging_options(p)
    add_scoring_option(p, "scoring function of the search")
    add_scoring_mode_option(p, docking=True)
    add_spacing_options(p)
    add_stop_option(p, "default: the protocol's")
    add_engine_options(p)


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


def add_modified_option(p: argparse.ArgumentParser) -> None:
    """--no-map-modified (setup and dock)."""
    p.add_argument(
        "--no-map-modified",
        action="store_true",
        help="drop modified residues (MSE, SEP, TPO, PTR, ...) as hetero groups instead of "
        "reading them as their parent amino acids",
    )


def add_rank_options(p: argparse.ArgumentParser, flag: str) -> None:
    """The ranking method and the diversity switch (``rank --method``, ``dock --rank-method``)."""
    from ..analysis.ranking import NEEDS

    p.add_argument(
        flag,
        dest="method" if flag == "--method" else "rank_method",
        default="dfire" if flag == "--method" else None,
        help=f"how to rank the representatives: {', '.join(NEEDS)} (default: "
        + (
            "dfire, by score as LightDock"
            if flag == "--method"
            else "soft_consensus without restraints; with them, learned (trees fitted on "
            "training complexes over score, restraint satisfaction, re-scores and cluster "
            "population) under the sparkledock protocol, dfire (by score) under lightdock's"
        )
        + "; rank_by_scoring.list is always by score)",
    )
    p.add_argument(
        "--diverse",
        action="store_true",
        help="move representatives within 5 Å ligand RMSD of a better-ranked one back",
    )


def add_spacing_options(p: argparse.ArgumentParser) -> None:
    """--protocol and --swarm-spacing (setup, dock, screen)."""
    from ..docking import PROTOCOLS, RESTRAINED_SPACING_A

    p.add_argument(
        "--protocol",
        default="sparkledock",
        choices=PROTOCOLS,
        help="sparkledock (default): with restraints, swarms cover the restraint patch "
        f"{RESTRAINED_SPACING_A:g} Å apart, fast search, restraint-aware ranking; lightdock: "
        "LightDock 0.9.4's protocol (20 swarms per restraint residue, exact search, ranking by "
        "score)",
    )
    p.add_argument(
        "--swarm-spacing",
        dest="swarm_spacing",
        type=float,
        default=None,
        metavar="Å",
        help="with receptor restraints: swarm centres cover the restraint patch this far apart "
        "(0: LightDock 0.9.4's 20 per restraint residue; default: the protocol's)",
    )


def add_stop_option(p: argparse.ArgumentParser, default_help: str) -> None:
    """--stop-tolerance (run, dock, screen)."""
    p.add_argument(
        "--stop-tolerance",
        dest="stop_tolerance",
        type=float,
        default=0.0 if "every swarm" in default_help else None,
        metavar="T",
        help="stop a swarm once its best and mean scores rose by at most T x max(1, |best|) "
        f"over 10 steps (checked from step 30; {default_help})",
    )


def add_placement_options(p: argparse.ArgumentParser) -> None:
    """Where swarms go besides restraints (``setup`` and ``dock``): ``--membrane`` /
    ``--transmembrane`` / ``--paratope``, one at most."""
    side = p.add_mutually_exclusive_group()
    side.add_argument(
        "--membrane",
        "-membrane",
        action="store_true",
        help="swarms only above the receptor's membrane beads (MMB residues)",
    )
    side.add_argument(
        "--transmembrane",
        "-transmembrane",
        action="store_true",
        help="swarms only between the receptor's two membrane layers",
    )
    side.add_argument(
        "--paratope",
        action="store_true",
        help="antibody receptor: swarms only on its CDRs (found from its sequence), the ranking "
        "favouring poses whose antibody contacts are CDR residues",
    )


def engine_of(args: argparse.Namespace, exact: bool = False) -> Engine:
    """The engine the options ask for (an :class:`EngineError`, one line, otherwise)."""
    return resolve_engine(args.backend, args.device, args.precision, exact=exact)


def vars_of(args: argparse.Namespace) -> dict:
    """A command's options as recorded in run.json (without the function it dispatches to)."""
    return {k: v for k, v in vars(args).items() if k != "func"}


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
    chosen["map_modified"] = not values.get("no_map_modified", False)
    return chosen


def setup_options(values: dict[str, Any]) -> SetupOptions:
    """``setup``'s options from parsed arguments, sparkledock's or ``lightdock3_setup.py``'s
    (named alike): the fields of :class:`~sparkledock.preparation.prepare.SetupOptions`
    present, ``--no-map-modified`` turned around, and the swarm spacing the protocol gives
    when none is asked for."""
    from ..docking.options import setup_spacing
    from ..preparation.prepare import SetupOptions

    chosen = options_by_name(SetupOptions, values, _SETUP_RENAMED)
    restrained = values.get("restraints") is not None
    chosen["swarm_spacing"] = setup_spacing(chosen, values["protocol"], restrained)
    return SetupOptions(**chosen)


#: ``run``'s keywords of :func:`~sparkledock.workflow.execute` taken from parsed arguments.
_RUN_KEYWORDS = (
    "swarms",
    "scoring",
    "seed",
    "exact",
    "scoring_mode",
    "threads",
    "quiet",
    "swarms_per_task",
    "stop_tolerance",
)


def run_options(values: dict[str, Any]) -> dict[str, Any]:
    """``run``'s keywords from parsed arguments (sparkledock's or ``lightdock3.py``'s, named
    alike), with the GSO parameters of ``--gso-config`` and the step sizes."""
    from ..io.gsoconfig import gso_parameters

    chosen = {k: values[k] for k in _RUN_KEYWORDS}
    chosen["gso_params"] = gso_parameters(
        values.get("gso_config"),
        **{k: values.get(k, 0.5) for k in ("translation_step", "rotation_step", "nmodes_step")},
        local_minimization=bool(values.get("local_minimization", False)),
    )
    return chosen


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
