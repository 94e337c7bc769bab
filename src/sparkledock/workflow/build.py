"""The stages that make and run a docking: :func:`dock` and :func:`screen` (whole dockings),
:func:`setup` / :func:`prepare` and :func:`run` / :func:`execute` (the setup and GSO stages:
the Python calls and what the command lines call)."""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SparkledockError
from ..stages.checks import check_paths, options_of
from .results import DockResult, read_dock_result

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..engine.options import RunOptions
    from ..engine.simulation import RunResult
    from ..molecule.system import DockingSetup
    from ..preparation.prepare import SetupOptions


def dock(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    restraints: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    reference: str | os.PathLike[str] | None = None,
    force: bool = False,
    **options: Any,
) -> DockResult:
    """Dock ``ligand`` onto ``receptor`` into folder ``out`` (``sparkledock dock``): setup,
    GSO run, clustering, ranking, restraint filter, the top models, ranking.csv, report.html
    and run.json. ``options``: :class:`~sparkledock.docking.DockOptions` fields (``steps``,
    ``glowworms``, ``swarms``, ``top``, ``scoring``, ``scoring_mode``, ``threads``, ...).
    ``restraints``: one file, or several alternatives (candidate patches: each docked in
    ``out/alternative_<n>``, their models ranked together in ``out``). Resumes an
    interrupted docking of the same inputs and options."""
    check_paths(
        "dock",
        ("restraints", "reference"),
        receptor=receptor,
        ligand=ligand,
        out=out,
        restraints=restraints,
        reference=reference,
    )
    from ..docking import DockOptions
    from ..docking import dock as dock_folder
    from ..runlog import console_for_api

    chosen = options_of(options, DockOptions, "dock")
    console_for_api(chosen.quiet)
    folder = dock_folder(
        receptor,
        ligand,
        out,
        restraints=restraints,
        reference=reference,
        options=chosen,
        force=force,
    )
    return read_dock_result(folder)


def prepare(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    options: SetupOptions,
    *,
    restraints: str | os.PathLike[str] | None = None,
    force: bool = False,
) -> Path:
    """The setup stage (``sparkledock setup``, ``lightdock3_setup.py``, :func:`setup`): takes
    ``out``'s lock, writes the setup folder and its run.json record (inputs, options, time);
    returns the folder."""
    from ..fileutil import check_input_file, folder_lock
    from ..io.setupdir import SetupDir
    from ..preparation.prepare import check_setup_options, prepare_setup
    from ..runlog import LOGGER, RunRecord, file_record

    check_setup_options(options)  # (before the folder, its lock or a stage line)
    files = {"receptor": receptor, "ligand": ligand, "restraints": restraints}
    for what, path in files.items():
        if path is not None:
            check_input_file(path, what)
    runrec = RunRecord(Path(out), "setup", options=options)
    with folder_lock(out):
        runrec.inputs = {k: file_record(v) for k, v in files.items() if v is not None}
        with runrec.stage("setup", f"{Path(receptor).name} + {Path(ligand).name}"):
            folder = prepare_setup(
                receptor,
                ligand,
                out,
                restraints=restraints,
                options=options,
                force=force,
                progress=lambda line: LOGGER.info(f"setup: {line}"),
            )
    config = json.loads(SetupDir(folder).setup_json.read_text())
    runrec.finish(swarms=config["swarms"], glowworms=config["glowworms"])
    LOGGER.info(f"setup in {folder}: {config['swarms']} swarms × {options.glowworms} glowworms")
    return Path(folder)


def setup(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    restraints: str | os.PathLike[str] | None = None,
    force: bool = False,
    protocol: str = "sparkledock",
    quiet: bool = False,
    **options: Any,
) -> DockingSetup:
    """Write a LightDock-compatible setup folder (``sparkledock setup``) and return it loaded
    (:class:`~sparkledock.molecule.system.DockingSetup`: partners, pose layout, ``config``,
    ``path``). ``options``: :class:`~sparkledock.preparation.prepare.SetupOptions` fields;
    without ``swarm_spacing``, ``protocol`` places the swarms as ``sparkledock setup`` does
    (restraint-focused with receptor restraints under ``sparkledock``). The defaults are the
    command's: no normal modes unless ``anm=True`` (as LightDock's setup), OXT atoms, waters
    and hydrogens kept unless ``noxt``/``now``/``noh``."""
    check_paths(
        "setup", ("restraints",), receptor=receptor, ligand=ligand, out=out, restraints=restraints
    )
    from ..docking.options import protocol_setup
    from ..io.lightdock import load_setup
    from ..preparation.prepare import SetupOptions
    from ..runlog import console_for_api

    console_for_api(quiet)
    chosen = protocol_setup(dict(options), protocol, restraints is not None)
    folder = prepare(
        receptor,
        ligand,
        out,
        options_of(chosen, SetupOptions, "setup"),
        restraints=restraints,
        force=force,
    )
    return load_setup(folder)


def execute(
    setup_folder: str | os.PathLike[str] | DockingSetup,
    steps: int,
    options: RunOptions,
    *,
    comm: Any = None,
    keep_final: bool = False,
) -> RunResult | None:
    """The run stage (``sparkledock run``, ``lightdock3.py``, :func:`run`): checks the options
    (:func:`~sparkledock.engine.options.check_run_options`) and that the folder holds a setup,
    takes its lock (on MPI rank 0), records the steps and ``options`` in run.json and runs
    :func:`~sparkledock.engine.driver.run_simulation`. Returns its result (None on MPI ranks
    other than 0; ``keep_final``: with every swarm's final glowworms)."""
    import contextlib

    from ..backend import Engine
    from ..engine.driver import run_simulation
    from ..engine.options import check_run_options
    from ..fileutil import folder_lock
    from ..io.setupdir import SetupDir
    from ..runlog import RunRecord, untimed

    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise SparkledockError(f"run: steps must be an integer of at least 1, got {steps!r}")
    gso_params = check_run_options(options)
    engine = options.engine or Engine()
    path = Path(getattr(setup_folder, "path", setup_folder))  # (a folder, or a loaded setup)
    root = path if path.is_dir() else path.parent
    if not SetupDir(root).setup_json.is_file():
        raise SparkledockError(f"{SetupDir(root).setup_json}: no such file (not a setup folder?)")
    lead = comm is None or comm.Get_rank() == 0
    simulation = {**options.simulation(gso_params), "engine": engine, "keep_final": keep_final}
    with contextlib.ExitStack() as stack:
        if lead:  # one process at a time per setup folder
            stack.enter_context(folder_lock(root))
        name = f"{engine.backend} {engine.device} {engine.precision}"
        recorded = {"steps": steps, **{f.name: getattr(options, f.name) for f in fields(options)}}
        runrec = RunRecord(root, "run", options=recorded, engine=name)
        with runrec.stage("run", f"{steps} steps") if lead else untimed("run"):
            result = run_simulation(setup_folder, steps, comm=comm, **simulation)
        if lead:
            runrec.finish()
    return result


def run(setup_folder: str | os.PathLike[str], steps: int, **options: Any) -> RunResult:
    """Run GSO on a setup folder (``sparkledock run``): every swarm unless ``swarms`` lists
    some; returns the :class:`~sparkledock.engine.driver.RunResult` (score history, the final
    glowworms per swarm, timings). ``options``: :class:`~sparkledock.engine.options.RunOptions`
    fields (``swarms``, ``scoring``, ``scoring_mode``, ``seed``, ``exact``, ``threads``,
    ``gso_config``, the step sizes, ``local_minimization``, ``stop_tolerance``, ``engine``...),
    checked before any work as the command's are."""
    check_paths("run", setup_folder=setup_folder)
    from ..engine.options import RunOptions
    from ..runlog import console_for_api

    chosen = options_of(options, RunOptions, "run")
    console_for_api(chosen.quiet)
    result = execute(setup_folder, steps, chosen, keep_final=True)
    if result is None:  # only under MPI, on ranks other than 0
        raise SparkledockError("run: no result on this MPI rank")
    return result


def screen(
    pairs: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    force: bool = False,
    comm: Any = None,
    **options: Any,
) -> Path | None:
    """Dock many pairs (``sparkledock screen``): a CSV with columns name, receptor, ligand
    and optional restraints and reference; each pair docks into ``out/<name>/`` as
    :func:`dock` would, ``out/summary.csv`` (returned) lists every docked pair's best model
    and ``out/screen_summary.csv`` every pair's outcome. ``options``:
    :class:`~sparkledock.docking.DockOptions` fields, checked before any work, as for
    :func:`dock`. Every pair is checked first: a bad pair is reported and the others dock."""
    check_paths("screen", pairs=pairs, out=out)
    from ..docking import DockOptions
    from ..docking.screen import screen as screen_pairs
    from ..runlog import console_for_api

    chosen = options_of(options, DockOptions, "screen")
    console_for_api(chosen.quiet)
    return screen_pairs(pairs, out, options=chosen, comm=comm, force=force)
