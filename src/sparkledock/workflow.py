"""The stage API: the docking workflow as Python calls that return results, what the command
lines call. :func:`dock` and :func:`screen` (whole dockings), :func:`setup`, :func:`run`,
:func:`rank`, :func:`filter_ranking`, :func:`top` and :func:`evaluate` (one stage each),
exported at the package's top level.

>>> import sparkledock                                   # doctest: +SKIP
>>> result = sparkledock.dock("rec.pdb", "lig.pdb", "out", restraints="restraints.list",
...                           steps=100, top=10)
>>> result.top["score"], result.models[0]["model"]       # best first, as ranking.csv
>>> pandas.DataFrame(result.models)                      # one row per ranked solution
>>> result.timings                                       # seconds per stage

Each checks its options and inputs before any work and is a thin layer over the modules that
do the work (:mod:`.docking`, :mod:`.preparation`, :mod:`.engine`, :mod:`.analysis`). The
setup and run stages themselves (:func:`prepare`, :func:`execute`: the folder's lock, the
run.json record, the work) are the ones ``sparkledock setup``/``run`` and LightDock's
``lightdock3_setup.py``/``lightdock3.py`` call; ``sparkledock rank``/``filter``/``top`` and
``lgd_rank.py``/``lgd_filter_restraints.py``/``lgd_top.py`` translate their arguments into
:func:`rank`, :func:`filter_ranking` and :func:`top`. The CLI and these calls run the same
code, and say what the CLI says: the stage lines and the run's progress on stderr
(``quiet=True``: warnings only; handlers a caller adds to the ``sparkledock`` logger get the
lines too). Options are keyword arguments named as the fields of
:class:`~sparkledock.docking.DockOptions` (``dock``, ``screen``),
:class:`~sparkledock.preparation.prepare.SetupOptions` (``setup``) and
:class:`~sparkledock.engine.options.RunOptions` (``run``), with the command line's defaults.
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
from .schema import DEFAULT_CONTACT_CUTOFF_A

if TYPE_CHECKING:  # (imported where used: ``import sparkledock`` stays light)
    from collections.abc import Sequence

    from .analysis.evaluate import Quality
    from .analysis.filter import Filtered
    from .analysis.rank import Ranked
    from .engine.options import RunOptions
    from .engine.simulation import RunResult
    from .molecule.restraints import Restraints
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


def _paths(what: str, optional: tuple[str, ...] = (), **given: Any) -> None:
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


def _engine(value: Any) -> Any:
    """An engine given by name (``"torch"``, ``"numba"``, ``"auto"``) resolved; anything else
    as it is (the type check names a wrong one)."""
    if isinstance(value, str):
        from .backend import resolve_engine

        return resolve_engine(value)
    return value


def _split(options: dict[str, Any], kind: type, what: str) -> Any:
    """``kind``'s options from keyword arguments, each checked against its field's type (an
    ``engine`` may be given by name: ``"torch"``, ``"numba"``, ``"auto"``; none given is the
    command line's default, ``auto``: torch on a GPU if there is one, else numba), so that
    the same options give the same run, record and resume key as the command's."""
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
    if "engine" in known and chosen.engine is None:  # (the command line's --backend auto)
        from dataclasses import replace

        from .backend import resolve_engine

        exact = bool(getattr(chosen, "exact", False))
        chosen = replace(chosen, engine=resolve_engine("auto", exact=exact))
    return chosen


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
    _paths(
        "dock",
        ("restraints", "reference"),
        receptor=receptor,
        ligand=ligand,
        out=out,
        restraints=restraints,
        reference=reference,
    )
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
    _paths(
        "setup", ("restraints",), receptor=receptor, ligand=ligand, out=out, restraints=restraints
    )
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

    from .backend import Engine
    from .engine.driver import run_simulation
    from .engine.options import check_run_options
    from .fileutil import folder_lock
    from .io.setupdir import SetupDir
    from .runlog import RunRecord, untimed

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
    _paths("run", setup_folder=setup_folder)
    from .engine.options import RunOptions
    from .runlog import console_for_api

    chosen = _split(options, RunOptions, "run")
    console_for_api(chosen.quiet)
    result = execute(setup_folder, steps, chosen, keep_final=True)
    if result is None:  # only under MPI, on ranks other than 0
        raise SparkledockError("run: no result on this MPI rank")
    return result


#: What a swarm without ``cluster.repr`` gives :func:`rank`: its representatives clustered
#: now (``cluster``, the Python API's), every glowworm (``all``, ``lgd_rank.py``'s) or a
#: one-line refusal (``refuse``, ``sparkledock rank``'s).
UNCLUSTERED = ("cluster", "all", "refuse")


def rank(
    setup_folder: str | os.PathLike[str],
    steps: int,
    clusters: bool = True,
    *,
    swarms: Sequence[int] | None = None,
    method: str = "dfire",
    diverse: bool = False,
    unclustered: str = "cluster",
    gso_name: str | None = None,
    solutions: str | os.PathLike[str] | Sequence[Ranked] | None = None,
    restraints: str | os.PathLike[str] | Restraints | None = None,
) -> list[Ranked]:
    """The rank stage (``sparkledock rank``, ``lgd_rank.py``): the solutions of a run at
    ``steps`` in ``method``'s order (``dfire``: by score, LightDock's; see
    :data:`~sparkledock.analysis.ranking.NEEDS`), ``diverse``: near-duplicates moved back.
    Solutions are each swarm's cluster representatives (a swarm without ``cluster.repr``: as
    ``unclustered`` says, :data:`UNCLUSTERED`), or with ``clusters=False`` every glowworm;
    ``solutions`` (a ranking file or list, e.g. :func:`filter_ranking`'s ``kept``): only
    those, ordered among themselves, as a restrained ``dock`` orders what its filter kept.
    ``restraints``: what a method that reads restraint satisfaction (``learned``,
    ``restraints``) counts (default: the docking's own, from its setup). ``swarms``: which
    swarms (default: every swarm with a ``gso_<steps>.out``; a listed one without it is
    refused); ``gso_name``: another file name in each swarm folder. Each
    :class:`~sparkledock.analysis.rank.Ranked` holds swarm, glowworm, pose, luciferin,
    neighbours, vision range and score. Options are checked before any file is read. How
    the stages give ``dock``'s own ranking: ``tests/test_stages_reproduce_dock.py``."""
    _paths("rank", setup_folder=setup_folder)
    from .analysis.cluster import cluster_glowworms
    from .analysis.rank import read_cluster_sizes, read_ranking
    from .analysis.ranking import NEEDS, rerank, rerank_kept
    from .engine.context import setup_restraints
    from .io.lightdock import load_setup, read_gso_output
    from .io.pack import ensure_unpacked
    from .io.restraints import read_restraints
    from .io.setupdir import SetupDir

    if method not in NEEDS:
        raise SparkledockError(f"rank: no such ranking {method!r} (known: {', '.join(NEEDS)})")
    if unclustered not in UNCLUSTERED:
        known = ", ".join(UNCLUSTERED)
        raise SparkledockError(f"rank: unclustered must be one of {known}, got {unclustered!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise SparkledockError(f"rank: steps must be an integer from 0, got {steps!r}")
    if isinstance(solutions, str | os.PathLike):
        solutions = read_ranking(solutions)
    if isinstance(restraints, str | os.PathLike):
        restraints = read_restraints(restraints)
    folder = SetupDir(Path(setup_folder))
    ensure_unpacked(folder.root)  # (a finished docking's packed swarm files)
    by_score = method == "dfire" and not diverse and solutions is None
    loaded = None if by_score else load_setup(folder.root)
    if loaded is not None and restraints is None and "satisfaction" in NEEDS[method]:
        restraints = setup_restraints(loaded)  # (the docking's own)
        if restraints is None:
            said = f"{folder.root} was set up without any (give restraints=)"
            raise SparkledockError(f"rank: ranking {method!r} needs restraints and {said}")

    def setup() -> DockingSetup:
        nonlocal loaded
        loaded = loaded or load_setup(folder.root)
        return loaded

    def gso(swarm: int) -> Path:
        return folder.swarm(swarm) / gso_name if gso_name else folder.gso(swarm, steps)

    if swarms is None:
        if not folder.setup_json.is_file():
            setup()  # (its one-line refusal: not a setup folder)
        n_swarms = int(json.loads(folder.setup_json.read_text()).get("swarms", 0))
        ids = [swarm for swarm in range(n_swarms) if gso(swarm).is_file()]
        if not ids:
            raise SparkledockError(f"{folder.root}: no swarm has {gso(0).name} (run it first)")
    else:
        ids = [int(swarm) for swarm in swarms]
    chosen = {}
    sizes: dict[tuple[int, int], int] = {}  # (each representative's cluster size)
    for swarm in ids:
        data = read_gso_output(gso(swarm))
        kept = None
        if clusters and (folder.cluster(swarm).is_file() or unclustered == "refuse"):
            found = read_cluster_sizes(folder.cluster(swarm))
            kept = list(found)
            sizes.update({(swarm, glowworm): n for glowworm, n in found.items()})
        elif clusters and unclustered == "cluster":
            members = cluster_glowworms(setup(), data)
            kept = [group[0] for group in members]
            sizes.update({(swarm, group[0]): len(group) for group in members})
        chosen[swarm] = (data, kept)
    if loaded is None:  # (by score: LightDock's ranking needs no structure)
        from .analysis.rank import rank_glowworms

        return rank_glowworms(chosen)
    if solutions is not None:
        for r in solutions:
            if r.swarm not in chosen or not 0 <= r.glowworm < len(chosen[r.swarm][0].scores):
                where = f"{folder.root}'s ranked swarms at step {steps}"
                raise SparkledockError(f"rank: solution swarm {r.swarm} glowworm {r.glowworm} "
                                       f"is not one of {where}")  # fmt: skip
        return rerank_kept(
            loaded, chosen, list(solutions), method, diverse, restraints, cluster_sizes=sizes
        )
    return rerank(loaded, chosen, method, diverse, restraints, cluster_sizes=sizes)


def filter_ranking(
    setup_folder: str | os.PathLike[str] | DockingSetup,
    ranking: str | os.PathLike[str] | list[Ranked],
    restraints: str | os.PathLike[str] | Restraints | None = None,
    *,
    fnat: float | None = 0.4,
    cutoff: float = DEFAULT_CONTACT_CUTOFF_A,
    include_passive: bool = False,
    molecules: tuple[str, str] = ("all", "all"),
) -> Filtered:
    """The filter stage (``sparkledock filter``, ``lgd_filter_restraints.py``): the ranked
    solutions with a positive score (a ranking file, or :func:`rank`'s list), each one's
    restraint satisfaction (active restraint residues of both partners, passive ones too on
    request, within ``cutoff`` Å of the other partner; ``molecules``: which atoms of the
    receptor and the ligand count: all, protein or nucleic) and those satisfying at least
    ``fnat`` (:class:`~sparkledock.analysis.filter.Filtered`); ``restraints`` default: the
    docking's own. The cutoff and fraction are checked before any file is read."""
    from .analysis.filter import MOLECULES, check_filter, filter_solutions
    from .analysis.rank import read_ranking
    from .engine.context import setup_restraints
    from .io.lightdock import load_setup
    from .io.restraints import read_restraints

    check_filter(cutoff, fnat)
    if any(m not in MOLECULES for m in molecules):
        raise SparkledockError(f"filter: molecules must be of {', '.join(MOLECULES)}")
    solutions = read_ranking(ranking) if isinstance(ranking, str | os.PathLike) else ranking
    if isinstance(restraints, str | os.PathLike):
        restraints = read_restraints(restraints)
    loaded = setup_folder if hasattr(setup_folder, "layout") else load_setup(setup_folder)
    if restraints is None:
        restraints = setup_restraints(loaded)
        if restraints is None:
            raise SparkledockError(
                f"filter: {loaded.path} was set up without restraints (give restraints=)"
            )
    positive = [r for r in solutions if r.score > 0.0]  # (LightDock drops the others first)
    return filter_solutions(loaded, positive, restraints, fnat, cutoff, include_passive, molecules)


def top(
    setup_folder: str | os.PathLike[str] | DockingSetup,
    ranking: str | os.PathLike[str] | list[Ranked],
    n: int,
    out: str | os.PathLike[str] = ".",
    *,
    suffix: str = ".pdb",
) -> list[Path]:
    """The top stage (``sparkledock top``, ``lgd_top.py``): models of the ``n`` best-ranked
    solutions (a ranking file, or :func:`rank`'s list), ``top_1`` to ``top_<n>`` in ``out``,
    PDB or mmCIF (``suffix``); returns their paths. The ranking is read before any model is
    written."""
    import numpy

    from .analysis.models import write_models
    from .analysis.rank import read_ranking
    from .io.lightdock import load_setup

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SparkledockError(f"top: n must be an integer of at least 1, got {n!r}")
    if suffix not in (".pdb", ".cif"):
        raise SparkledockError(f"top: suffix must be .pdb or .cif, got {suffix!r}")
    solutions = read_ranking(ranking) if isinstance(ranking, str | os.PathLike) else ranking
    best = solutions[:n]
    loaded = setup_folder if hasattr(setup_folder, "layout") else load_setup(setup_folder)
    poses = numpy.array([r.pose for r in best]).reshape(-1, loaded.layout.size)
    paths = [Path(out) / f"top_{i + 1}{suffix}" for i in range(len(best))]
    write_models(loaded, poses, paths)
    return paths


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
    _paths("screen", pairs=pairs, out=out)
    from .docking import DockOptions
    from .docking.screen import screen as screen_pairs
    from .runlog import console_for_api

    chosen = _split(options, DockOptions, "screen")
    console_for_api(chosen.quiet)
    return screen_pairs(pairs, out, options=chosen, comm=comm, force=force)


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
    _paths("evaluate", reference=reference, model=model)
    from .analysis.evaluate import evaluate as evaluate_model
    from .analysis.evaluate import refuse_swapped

    order = "the reference comes first (evaluate(REFERENCE, MODEL), as on the command line)"
    refuse_swapped(reference, model, order)
    return evaluate_model(model, reference, receptor_chains)
