"""The Python API behind the command line."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import Engine, resolve_engine
from ..io.lightdock import load_setup, read_poses
from ..io.restraints import read_any_restraints
from ..molecule.restraints import Restraints
from ..molecule.system import DockingSetup
from . import ScoringFunction, check_molecules, get_scoring


@dataclass(frozen=True)
class PreparedScoring:
    """A scoring function bound to one setup: call :meth:`score` on batches of poses."""

    setup: DockingSetup
    function: ScoringFunction
    model: Any

    def score(
        self,
        poses: np.ndarray,
        *,
        backend: str = "numba",
        threads: int | None = None,
        engine: Engine | None = None,
    ) -> np.ndarray:
        """(P,) scores of a (P, layout.size) pose array (``engine`` overrides ``backend``)."""
        return self.function.score(
            self.model, poses, backend=backend, threads=threads, engine=engine
        )


def prepare_scoring(
    setup: str | os.PathLike[str] | DockingSetup,
    *,
    restraints: str | os.PathLike[str] | Restraints | None = None,
    scoring: str = "dfire",
    lightdock_compat: bool = True,
    skip_unknown: bool = False,
) -> PreparedScoring:
    """Load a setup (if given a path), read restraints and prepare a scoring function.

    See :func:`score_poses` for the arguments.
    """
    if not isinstance(setup, DockingSetup):
        setup = load_setup(setup)
    if restraints is not None and not isinstance(restraints, Restraints):
        restraints = read_any_restraints(restraints, setup.receptor.atoms, setup.ligand.atoms)
    function = get_scoring(scoring)
    names = tuple(
        str(Path(setup.path) / f"lightdock_{Path(setup.structure_name(partner)).name}")
        for partner in ("receptor", "ligand")
    )
    for partner, name in zip((setup.receptor, setup.ligand), names, strict=True):
        check_molecules(function, partner, name)
    model = function.prepare(
        setup.receptor,
        setup.ligand,
        restraints,
        lightdock_compat=lightdock_compat,
        skip_unknown=skip_unknown,
        names=names,
    )
    return PreparedScoring(setup, function, model)


def score_poses(
    setup: str | os.PathLike[str] | DockingSetup,
    poses: str | os.PathLike[str] | np.ndarray,
    *,
    restraints: str | os.PathLike[str] | Restraints | None = None,
    scoring: str = "dfire",
    threads: int | None = None,
    backend: str = "numba",
    device: str | None = None,
    precision: str = "fp64",
    lightdock_compat: bool = True,
    skip_unknown: bool = False,
) -> np.ndarray:
    """Score poses of a LightDock setup, exactly as LightDock 0.9.4 would.

    Args:
        setup: a LightDock setup directory (or an already loaded :class:`DockingSetup`).
        poses: a file with one pose per line (``initial_positions`` format) or a (P, 7+nr+nl)
            array: translation, quaternion ``w x y z``, receptor then ligand mode extents.
        restraints: a LightDock restraints file (only active restraints count).
        scoring: scoring function name (``dfire``, alias ``fastdfire``).
        threads: CPU threads (default: all).
        backend: ``numba`` (fast CPU), ``numpy`` (all-pairs reference), ``torch`` or ``auto``
            (torch on a GPU if there is one); ``device`` and ``precision`` (``fp64``,
            ``fp32``) apply to torch. See :mod:`sparkledock.backend`.
        lightdock_compat: keep LightDock's interface and 15 Å-bin quirks (see
            :mod:`sparkledock.scoring.dfire`).
        skip_unknown: drop atoms DFIRE has no type for instead of failing.

    Returns:
        (P,) float64 scores in input order; larger is better.

    Raises:
        SparkledockError: a bad input file (the message names it and the line or residue), or
            an option of the wrong type or value (naming it: :class:`~.options.ScoreOptions`).
    """
    from .options import ScoreOptions, check_score_options

    check_score_options(
        ScoreOptions(scoring, False, threads, lightdock_compat, skip_unknown)
    )  # (before any file is read)
    prepared = prepare_scoring(
        setup,
        restraints=restraints,
        scoring=scoring,
        lightdock_compat=lightdock_compat,
        skip_unknown=skip_unknown,
    )
    layout = prepared.setup.layout
    if isinstance(poses, (str, os.PathLike)):
        pose_array = read_poses(poses, layout)
    else:
        pose_array = layout.validate(poses)
    engine = resolve_engine(backend, device, precision)
    return prepared.score(pose_array, threads=threads, engine=engine)
