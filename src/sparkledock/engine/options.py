"""The run stage's options: :class:`RunOptions`, one field per option of ``sparkledock run``,
``lightdock3.py`` and :func:`sparkledock.run` (:func:`sparkledock.schema.option`: the parser
is built from the fields, the Python API checks values against them, run.json records them),
and :func:`check_run_options`, which refuses an impossible combination before any work."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..backend import Engine
from ..errors import EngineError, OptionError
from ..io.gsoconfig import gso_parameters
from ..schema import at_least, option
from ..seeds import DEFAULT_SEED, check_seed
from .gso import GSOParameters
from .spec import FAST_MODES, SCORING_MODE_HELP, SCORING_MODES, STOP_TOLERANCE_HELP

SCORING_HELP = (
    "scoring function of the search: a name (see `sparkledock scoring list`), a weighted "
    "combination such as dfire:1,vdw:0.5, or a LightDock scoring file"
)


@dataclass(frozen=True)
class RunOptions:
    """What a GSO run on a setup does (its steps are the stage's argument): one field per
    option, with its command-line spelling."""

    #: swarm ids to run (None: every swarm of the setup)
    swarms: Sequence[int] | None = option(
        None, "--swarm-ids", "--swarms", help="which swarms to run, by id", default_text="all",
        type=at_least(0), nargs="+", metavar="ID",
    )  # fmt: skip
    scoring: str = option("dfire", "--scoring", help=SCORING_HELP)
    scoring_mode: str = option(
        "exact", "--scoring-mode", help=SCORING_MODE_HELP, choices=SCORING_MODES
    )
    seed: int = option(DEFAULT_SEED, "--seed", help="GSO seed", type=int)
    #: LightDock's random stream (its trajectories bit for bit); otherwise the counter-based
    #: stream, the same for any subset of swarms, threads or ranks
    exact: bool = option(
        False, "--exact", help="LightDock's random stream: reproduce LightDock 0.9.4 "
        "trajectories", action="store_true",
    )  # fmt: skip
    threads: int | None = option(
        None, "--threads", help="CPU threads", default_text="all", type=at_least(1)
    )
    swarms_per_task: int | None = option(
        None, "--swarms-per-task", help="under MPI: swarms a rank takes at a time",
        default_text="1 on the CPU, about a quarter of a rank's share on torch",
        type=at_least(1),
    )  # fmt: skip
    #: a LightDock GSO configuration file (``glowworm.conf``; None: LightDock's constants)
    gso_config: str | None = option(
        None, "--gso-config", help="LightDock GSO configuration file (glowworm.conf: rho, "
        "gamma, beta, luciferin, vision ranges, neighbours)", default_text="LightDock's",
    )  # fmt: skip
    translation_step: float = option(
        0.5, "--translation-step", help="GSO translation step (Å)", type=float
    )
    rotation_step: float = option(
        0.5, "--rotation-step", help="GSO rotation step (SLERP fraction)", type=float
    )
    nmodes_step: float = option(0.5, "--nmodes-step", help="GSO normal-mode step", type=float)
    #: LightDock's ``-min``: every step, each swarm's best glowworm is minimised
    local_minimization: bool = option(
        False, "--local-minimization", "-min", help="every step, minimise each swarm's best "
        "glowworm (LightDock's -min: Powell, 5 iterations)", action="store_true",
    )  # fmt: skip
    stop_tolerance: float = option(
        0.0, "--stop-tolerance", help=STOP_TOLERANCE_HELP, type=float, metavar="T"
    )
    #: (``--quiet``, with the logging options)
    quiet: bool = option(False)
    #: (``--backend``, ``--device``, ``--precision``; None: numba on the CPU)
    engine: Engine | None = option(None)

    def gso_params(self) -> GSOParameters:
        """The GSO constants (LightDock's, or ``gso_config``'s) with the step sizes and
        ``-min``; a bad file or step size is refused in one line."""
        return gso_parameters(
            self.gso_config,
            translation_step=self.translation_step,
            rotation_step=self.rotation_step,
            nmodes_step=self.nmodes_step,
            local_minimization=self.local_minimization,
        )

    def simulation(self, gso_params: GSOParameters) -> dict[str, Any]:
        """The keywords of :func:`~sparkledock.engine.driver.run_simulation` these options
        give, with the GSO parameters :func:`check_run_options` read."""
        names = (
            "swarms", "scoring", "scoring_mode", "seed", "exact", "threads", "quiet",
            "swarms_per_task", "stop_tolerance", "engine",
        )  # fmt: skip
        return {**{name: getattr(self, name) for name in names}, "gso_params": gso_params}


def check_stop_tolerance(tolerance: float) -> None:
    """Refuse an early-stopping tolerance that is negative or not finite (before any work)."""
    if not 0.0 <= float(tolerance) < float("inf"):
        raise OptionError(
            "stop_tolerance", f"{{0}} must be 0 or a positive number, got {tolerance}"
        )


def check_run_options(options: RunOptions) -> GSOParameters:
    """Refuse impossible run options before any work, one line each: seeds, counts, the
    step sizes and GSO file, the scoring mode, and what LightDock's random stream excludes
    (fast scoring, early stopping, a backend other than numba). Returns the run's GSO
    parameters (the file read once)."""
    check_seed(options.seed)
    check_stop_tolerance(options.stop_tolerance)
    if options.swarms is not None:
        bad = [s for s in options.swarms if isinstance(s, bool) or not isinstance(s, int)]
        if bad or any(s < 0 for s in options.swarms):
            raise EngineError(f"run: swarm ids must be integers from 0, got {list(options.swarms)}")
    for name in ("threads", "swarms_per_task"):
        value = getattr(options, name)
        if value is not None and value < 1:
            raise OptionError(name, f"{{0}} must be at least 1, got {value}")
    if options.scoring_mode not in SCORING_MODES:
        known = ", ".join(SCORING_MODES)
        raise OptionError(
            "scoring_mode", f"{{0}} {options.scoring_mode!r}: no such scoring mode (known: {known})"
        )
    gso_params = options.gso_params()  # (a bad configuration file or step size, named)
    if options.exact:
        if options.scoring_mode in FAST_MODES:
            raise OptionError("exact", "{0} reproduces LightDock's trajectories: it scores exactly")
        if options.stop_tolerance:
            raise OptionError(
                "exact", "{0} reproduces LightDock's trajectories: no swarm stops early"
            )
        if options.engine is not None and options.engine.backend != "numba":
            raise EngineError("exact mode runs on the numba backend only")
    return gso_params
