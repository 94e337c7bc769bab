"""The docking workflow as Python calls that return results: :func:`dock`, :func:`setup`,
:func:`run`, :func:`rank` and :func:`evaluate`, exported at the package's top level.

>>> import sparkledock                                   # doctest: +SKIP
>>> result = sparkledock.dock("rec.pdb", "lig.pdb", "out", restraints="restraints.list",
...                           steps=100, top=10)
>>> result.top["score"], result.models[0]["model"]       # best first, as ranking.csv
>>> pandas.DataFrame(result.models)                      # one row per ranked solution
>>> result.timings                                       # seconds per stage

Each is a thin layer over the modules that do the work (:mod:`.docking`,
:mod:`.preparation.prepare`, :mod:`.engine.driver`, :mod:`.analysis`). The setup and run
stages themselves (:func:`prepare`, :func:`execute`: the folder's lock, the run.json record,
the work) are the ones ``sparkledock setup``/``run`` and LightDock's ``lightdock3_setup.py``/
``lightdock3.py`` call: the CLI and these calls run the same code, and say what the CLI
says: the stage lines and the run's progress on stderr (``quiet=True``: warnings only;
handlers a caller adds to the ``sparkledock`` logger get the lines too). Options
are keyword arguments named as :class:`~sparkledock.docking.DockOptions`'s and
:class:`~sparkledock.preparation.prepare.SetupOptions`'s fields.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import SparkledockError
from .runlog import RUN_JSON

if TYPE_CHECKING:  # (imported where used: ``import sparkledock`` stays light)
    from .analysis.evaluate import Quality
    from .analysis.rank import Ranked
    from .backend import Engine
    from .engine.simulation import RunResult
    from .molecule.system import DockingSetup
    from .preparation.prepare import SetupOptions


def _typed(value: str) -> Any:
    """A ranking.csv cell as a number where it is one (empty cells: None)."""
    if value == "":
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


@dataclass(frozen=True)
class DockResult:
    """What :func:`dock` made: the ranked solutions, the files written, the timings."""

    folder: Path
    #: one dict per ranked solution, best first: ranking.csv's columns (rank, score, model,
    #: swarm, glowworm, score terms, DockQ/CAPRI with a reference), numbers as numbers
    models: list[dict[str, Any]]
    #: the files the docking wrote in ``folder`` (models, ranking.csv, report.html, run.json)
    files: list[Path]
    #: seconds per stage (setup, run, cluster, rank, filter, models, evaluate, report)
    timings: dict[str, float]
    #: run.json as a dict
    record: dict[str, Any]

    @property
    def top(self) -> dict[str, Any]:
        """The best-ranked solution (an empty dict when nothing was ranked)."""
        return self.models[0] if self.models else {}

    def model_paths(self) -> list[Path]:
        """The written models, best first."""
        return [self.folder / m["model"] for m in self.models if m.get("model")]

    def to_dataframe(self) -> Any:
        """The ranked solutions as a pandas DataFrame (pandas is not a dependency: a one-line
        error says so where it is not installed)."""
        try:
            import pandas
        except ImportError:
            raise SparkledockError(
                "DockResult.to_dataframe needs pandas (pip install pandas); result.models is "
                "the same table as a list of dicts"
            ) from None
        return pandas.DataFrame(self.models)


def example_files() -> dict[str, Path]:
    """The bundled 2X9A example's files: ``receptor``, ``ligand``, ``restraints`` (LightDock's
    format) and ``reference`` (the bound complex), as ``dock --example`` docks them."""
    from importlib import resources

    folder = Path(str(resources.files("sparkledock").joinpath("data/example")))
    names = {
        "receptor": "2X9A_r_u.pdb",
        "ligand": "2X9A_l_u.pdb",
        "restraints": "restraints.list",
        "reference": "2X9A_target.pdb",
    }
    return {key: folder / name for key, name in names.items()}


def read_dock_result(folder: str | os.PathLike[str]) -> DockResult:
    """The :class:`DockResult` of a finished docking folder (``ranking.csv``, ``run.json``)."""
    folder = Path(folder)
    table = folder / "ranking.csv"
    if not table.is_file():
        raise SparkledockError(f"{folder}: no ranking.csv (not a finished docking)")
    with table.open(newline="") as handle:
        models = [{k: _typed(v) for k, v in row.items()} for row in csv.DictReader(handle)]
    record_file = folder / RUN_JSON
    record = json.loads(record_file.read_text()) if record_file.is_file() else {}
    timings = {s["name"]: s["seconds"] for s in record.get("stages", [])}
    names = {"ranking.csv", "report.html", RUN_JSON}
    files = sorted(p for p in folder.iterdir() if p.name in names or p.name.startswith("top_"))
    return DockResult(folder, models, files, timings, record)


def _engine(value: Any) -> Any:
    """An engine given by name (``"torch"``, ``"numba"``, ``"auto"``) resolved; anything else
    as it is (the type check names a wrong one)."""
    if isinstance(value, str):
        from .backend import resolve_engine

        return resolve_engine(value)
    return value


def _split(options: dict[str, Any], kind: type, what: str) -> Any:
    """``kind``'s options from keyword arguments, each checked against its field's type (an
    ``engine`` may be given by name: ``"torch"``, ``"numba"``, ``"auto"``)."""
    from .schema import check_fields

    known = {f.name for f in fields(kind)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise SparkledockError(
            f"{what}: unknown option(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )
    if "engine" in options:
        options = {**options, "engine": _engine(options["engine"])}
    chosen = kind(**options)
    check_fields(chosen, what)
    return chosen


def dock(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    restraints: str | os.PathLike[str] | None = None,
    reference: str | os.PathLike[str] | None = None,
    force: bool = False,
    **options: Any,
) -> DockResult:
    """Dock ``ligand`` onto ``receptor`` into folder ``out`` (``sparkledock dock``): setup,
    GSO run, clustering, ranking, restraint filter, the top models, ranking.csv, report.html
    and run.json. ``options``: :class:`~sparkledock.docking.DockOptions` fields (``steps``,
    ``glowworms``, ``swarms``, ``top``, ``scoring``, ``scoring_mode``, ``threads``, ...).
    Resumes an interrupted docking of the same inputs and options."""
    from .docking import DockOptions
    from .docking import dock as dock_folder
    from .runlog import console_for_api

    chosen = _split(options, DockOptions, "dock")
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
    from .fileutil import check_input_file, folder_lock
    from .io.setupdir import SetupDir
    from .preparation.prepare import check_setup_options, prepare_setup
    from .runlog import LOGGER, RunRecord, file_record

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
    from .docking.options import setup_spacing
    from .io.lightdock import load_setup
    from .preparation.prepare import SetupOptions
    from .runlog import console_for_api

    console_for_api(quiet)
    chosen = dict(options)
    chosen["swarm_spacing"] = setup_spacing(chosen, protocol, restraints is not None)
    folder = prepare(
        receptor,
        ligand,
        out,
        _split(chosen, SetupOptions, "setup"),
        restraints=restraints,
        force=force,
    )
    return load_setup(folder)


def execute(
    setup_folder: str | os.PathLike[str] | DockingSetup,
    steps: int,
    *,
    engine: Engine | None = None,
    comm: Any = None,
    record: dict[str, Any] | None = None,
    **simulation: Any,
) -> RunResult | None:
    """The run stage (``sparkledock run``, ``lightdock3.py``, :func:`run`): checks the folder
    holds a setup, takes its lock (on MPI rank 0), records the run in run.json (``record``:
    the options as given; default, these keywords) and runs
    :func:`~sparkledock.engine.driver.run_simulation` with ``simulation``'s keywords. Returns
    its result (None on MPI ranks other than 0)."""
    import contextlib

    from .backend import Engine
    from .engine.driver import run_simulation
    from .fileutil import folder_lock
    from .io.setupdir import SetupDir
    from .runlog import RunRecord, untimed

    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise SparkledockError(f"run: steps must be an integer of at least 1, got {steps!r}")
    engine = _engine(engine) or Engine()
    path = Path(getattr(setup_folder, "path", setup_folder))  # (a folder, or a loaded setup)
    root = path if path.is_dir() else path.parent
    if not SetupDir(root).setup_json.is_file():
        raise SparkledockError(f"{SetupDir(root).setup_json}: no such file (not a setup folder?)")
    lead = comm is None or comm.Get_rank() == 0
    with contextlib.ExitStack() as stack:
        if lead:  # one process at a time per setup folder
            stack.enter_context(folder_lock(root))
        name = f"{engine.backend} {engine.device} {engine.precision}"
        options = record if record is not None else {"steps": steps, **simulation}
        runrec = RunRecord(root, "run", options=options, engine=name)
        with runrec.stage("run", f"{steps} steps") if lead else untimed("run"):
            result = run_simulation(setup_folder, steps, engine=engine, comm=comm, **simulation)
        if lead:
            runrec.finish()
    return result


def run(setup_folder: str | os.PathLike[str], steps: int, **options: Any) -> RunResult:
    """Run GSO on a setup folder (``sparkledock run``): every swarm unless ``swarms`` lists
    some; returns the :class:`~sparkledock.engine.driver.RunResult` (score history, the final
    glowworms per swarm, timings). ``options``: :func:`~sparkledock.engine.driver.run_simulation`'s
    keywords (``swarms``, ``scoring``, ``scoring_mode``, ``threads``, ``seed``, ``engine``...)."""
    from .runlog import console_for_api

    console_for_api(bool(options.get("quiet", False)))
    result = execute(setup_folder, steps, **{"keep_final": True, **options})
    if result is None:  # only under MPI, on ranks other than 0
        raise SparkledockError("run: no result on this MPI rank")
    return result


def rank(setup_folder: str | os.PathLike[str], steps: int, clusters: bool = True) -> list[Ranked]:
    """The solutions of a run at ``steps``, best score first (``sparkledock rank``): each
    swarm's cluster representatives (clustered now where not yet), or with ``clusters=False``
    every glowworm. Each :class:`~sparkledock.analysis.rank.Ranked` holds swarm, glowworm,
    pose, luciferin, neighbours, vision range and score."""
    from .analysis.cluster import cluster_glowworms
    from .analysis.rank import rank_glowworms
    from .io.lightdock import load_setup, read_gso_output
    from .io.setupdir import SetupDir

    loaded = load_setup(setup_folder)
    folder = SetupDir(loaded.path)
    chosen = {}
    for swarm in range(loaded.n_swarms):
        path = folder.gso(swarm, steps)
        if not path.is_file():
            continue
        data = read_gso_output(path)
        ids = [members[0] for members in cluster_glowworms(loaded, data)] if clusters else None
        chosen[swarm] = (data, ids)
    if not chosen:
        raise SparkledockError(f"{folder.root}: no swarm has gso_{steps}.out (run it first)")
    return rank_glowworms(chosen)


def evaluate(
    reference: str | os.PathLike[str],
    model: str | os.PathLike[str],
    receptor_chains: list[str] | None = None,
) -> Quality:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of a model against a reference complex, in
    ``sparkledock evaluate REFERENCE MODEL``'s order (the DockQ package's definitions; the
    built-in evaluation). A call with the two swapped (a sparkledock model given as the
    reference, a file that is not one as the model) is refused in one line.

    Raises:
        SparkledockError: swapped arguments, or a file that cannot be evaluated.
    """
    from .analysis.evaluate import evaluate as evaluate_model
    from .analysis.evaluate import refuse_swapped

    order = "the reference comes first (evaluate(REFERENCE, MODEL), as on the command line)"
    refuse_swapped(reference, model, order)
    return evaluate_model(model, reference, receptor_chains)
