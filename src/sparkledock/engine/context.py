"""A setup loaded for running: the prepared scoring, the glowworms' reference point and, in
the fast modes, the fast scorer over every swarm's reach (built once per run)."""

from __future__ import annotations

import os
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import DEFAULT_FIELD_BUDGET
from ..errors import EngineError, FieldTooLargeError, InputFileError, SparkledockWarning
from ..io.lightdock import (
    load_setup,
    read_poses,
)
from ..io.pack import missing_start
from ..io.restraints import read_any_restraints
from ..io.setupdir import SetupDir
from ..molecule.geometry import ellipsoid_centre
from ..molecule.restraints import Restraints, restraints_from_config
from ..molecule.system import DockingSetup
from ..scoring.prepared import PreparedScoring, prepare_scoring
from .spec import FAST_MODES, SCORING_MODES


@dataclass(frozen=True)
class RunContext:
    """A setup loaded for running: files, prepared scoring, the ligand's reference point and,
    in fast mode, the fast scorer (None in exact mode, or where it fell back to exact)."""

    root: Path
    setup: DockingSetup
    prepared: PreparedScoring
    centre: np.ndarray
    fast: Any = None
    #: starting poses already parsed (fast mode reads every file for the field's reach), by
    #: resolved path, so a run does not parse them twice
    parsed: dict[Path, np.ndarray] = field(default_factory=dict)


def reference_coordinates(prepared: PreparedScoring) -> np.ndarray:
    """The ligand points of the glowworms' reference point: the scoring function's own
    (mj3h and tobi: residue beads, as LightDock's adapters keep them), else every ligand
    atom."""
    own = getattr(prepared.function, "reference_coordinates", None)
    points = own(prepared.model) if own is not None else None
    return prepared.setup.ligand.atoms.coords if points is None else points


def load_run_context(
    setup_json: str | os.PathLike[str] | DockingSetup,
    scoring: str = "dfire",
    scoring_mode: str = "exact",
    *,
    field_budget: int | None = None,
    quiet: bool = True,
) -> RunContext:
    """Load a setup folder (or its ``setup.json``; or take a loaded setup) and prepare its
    scoring once; in fast mode also the fast scorer, over where every swarm of the setup can
    reach (a field over ``field_budget`` bytes, default 2 GiB, falls back to exact scoring
    with a warning)."""
    if isinstance(setup_json, DockingSetup):
        setup, root = setup_json, Path(setup_json.path)
    else:
        setup_path = Path(setup_json)
        root = setup_path if setup_path.is_dir() else setup_path.parent
        if (why := missing_start(SetupDir(root).start(0))) is not None:  # (before any work)
            raise InputFileError(why)
        setup = load_setup(root)
    prepared = prepare_scoring(setup, restraints=setup_restraints(setup), scoring=scoring)
    centre = ellipsoid_centre(reference_coordinates(prepared))
    if scoring_mode not in SCORING_MODES:
        known = ", ".join(SCORING_MODES)
        raise EngineError(f"unknown scoring mode {scoring_mode!r} (known: {known})")
    fast, parsed = None, {}
    if scoring_mode in FAST_MODES:
        flex = scoring_mode == "fast-flex"
        fast = _fast_scorer(root, setup, prepared, field_budget, quiet, parsed, flex)
    return RunContext(root, setup, prepared, centre, fast, parsed)


def _fast_scorer(
    root: Path,
    setup: DockingSetup,
    prepared,
    budget: int | None,
    quiet: bool,
    parsed: dict[Path, np.ndarray],
    receptor_flex: bool = False,
):
    """The scoring function's fast scorer over the reach of every swarm's starting poses
    (the parsed files are kept in ``parsed``), with receptor flexibility when asked."""
    builder = getattr(prepared.function, "fast_scorer", None)
    if builder is None:
        raise EngineError(f"scoring {prepared.function.name!r} has no fast mode")
    folder = SetupDir(root)
    files = sorted(folder.init.glob("initial_positions_*.dat"))
    for f in files:
        parsed[f.resolve()] = read_poses(f, setup.layout)
    starts = np.concatenate(list(parsed.values())) if files else None
    t0 = time.perf_counter()
    try:
        budget = budget if budget is not None else DEFAULT_FIELD_BUDGET
        flex = {"receptor_flex": True} if receptor_flex else {}
        scorer = builder(prepared.model, starts, budget, **flex)
    except FieldTooLargeError as exc:
        warnings.warn(
            f"{folder.setup_json}: {exc}; scoring exactly instead", SparkledockWarning, stacklevel=3
        )
        return None
    if not quiet:
        print(
            f"sparkledock run: {scorer.describe()}, built in {time.perf_counter() - t0:.1f} s; "
            "gso snapshots before the last step carry fast scores, the last step is re-scored "
            "exactly",
            file=sys.stderr,
        )
    return scorer


def setup_restraints(setup: DockingSetup) -> Restraints | None:
    """The restraints a setup docks with: ``receptor_restraints``/``ligand_restraints`` of its
    ``setup.json`` (what LightDock's simulation reads), else the file its ``restraints`` key
    names inside the setup folder (sparkledock setups before these keys)."""
    config, root = setup.config, Path(setup.path)
    found = restraints_from_config(config, str(SetupDir(root).setup_json))
    if found is not None:
        return found
    name = config.get("restraints")
    if name and (root / Path(name).name).is_file():
        return read_any_restraints(root / Path(name).name, setup.receptor.atoms, setup.ligand.atoms)
    return None
