"""``sparkledock dock``: a whole docking, from two structures to ranked models and a report."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import os
import shutil
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .analysis.cluster import cluster_glowworms, format_cluster_repr
from .analysis.convergence import swarm_convergence
from .analysis.filter import satisfaction
from .analysis.models import write_models
from .analysis.rank import rank_glowworms, write_ranking
from .analysis.ranking import DFIRE_SEARCH, NEEDS, default_method, rerank
from .analysis.report import Cluster, write_report
from .backend import Engine
from .driver import run_simulation
from .errors import InputFileError, SparkledockError, SparkledockWarning
from .fileutil import LOCK_NAME, atomic_write_text, folder_lock
from .io.lightdock import GSOOutput, load_setup, read_gso_output
from .io.setupdir import SetupDir
from .runlog import LOGGER, RunRecord, file_record, untimed
from .seeds import DEFAULT_SEED
from .setup.paratope import require_paratope
from .setup.prepare import SetupOptions, prepare_setup
from .simulation import SAVE_EVERY, SCORING_MODES, setup_restraints
from .structure import read_structure
from .system import DockingSetup

FILTER_FRACTION = 0.4

#: The protocols ``dock`` runs: ``sparkledock`` (its own defaults, decided in
#: :func:`with_defaults`) and ``lightdock`` (LightDock 0.9.4's: its swarm rule, exact search,
#: ranking by score; what the LightDock-named commands always run).
PROTOCOLS = ("sparkledock", "lightdock")
#: The restraint-focused rule's spacing (Å) between swarm centres over the restraint patch
#: (:func:`sparkledock.setup.swarms.covering_count`), chosen on the training complexes
#: (docs/performance.md, "Restrained protocol").
RESTRAINED_SPACING_A = 8.0
#: The sparkledock protocol's early stopping with restraints
#: (:func:`sparkledock.simulation.converged`), chosen on the training complexes.
RESTRAINED_STOP_TOLERANCE = 0.01


@dataclass(frozen=True)
class DockOptions:
    """What a docking run does (LightDock's protocol by default)."""

    steps: int = 100
    glowworms: int = 200
    swarms: int = 0
    anm: bool = True
    top: int = 10
    seed: int = DEFAULT_SEED
    threads: int | None = None
    quiet: bool = False
    engine: Engine | None = None
    #: read modified residues (MSE, SEP, ...) as their parent amino acids
    map_modified: bool = True
    #: the scoring function of the search (a name in :data:`sparkledock.scoring.SCORING_FUNCTIONS`)
    scoring: str = "dfire"
    #: ``exact``, ``fast`` (the search on the fast path, final glowworms re-scored exactly)
    #: or ``fast-flex`` (fast, receptor modes as a local shift); None:
    #: :func:`default_scoring_mode`, by the protocol
    scoring_mode: str | None = None
    #: how the representatives are ranked (:data:`sparkledock.analysis.ranking.NEEDS`;
    #: ``dfire``: by score, LightDock's; None: :func:`~sparkledock.analysis.ranking.
    #: default_method`, by the protocol and the presence of restraints), and whether
    #: near-duplicates move back
    rank_method: str | None = None
    diverse: bool = False
    #: swarms only above the receptor's membrane beads, or between its two layers
    membrane: bool = False
    transmembrane: bool = False
    #: an antibody receptor: swarms only on its CDRs (:mod:`sparkledock.setup.paratope`)
    paratope: bool = False
    #: refine the top models with OpenMM (restrained minimisation; :mod:`sparkledock.refine`)
    refine: bool = False
    #: :data:`PROTOCOLS`: the defaults of the options left None (placement, search, ranking)
    protocol: str = "sparkledock"
    #: with restraints, the spacing (Å) of the restraint-focused swarm rule (0: LightDock
    #: 0.9.4's 20 swarms per restraint residue; None: the protocol's)
    swarm_spacing: float | None = None
    #: early stopping of converged swarms (:func:`sparkledock.simulation.converged`; 0:
    #: every swarm runs every step; None: the protocol's)
    stop_tolerance: float | None = None


#: What ``dock`` records in its output folder: the run's key, its stage and score history.
DOCK_RECORD = "sparkledock_dock.json"


def _refine_top(
    setup: DockingSetup, out: Path, rows: list[dict], reference: Path | None, options: DockOptions
) -> None:
    """Refine the written top models into ``out/refined`` and add each one's clashes before
    and after (and its DockQ after, with a reference) to its ranking row."""
    from .analysis.models import ligand_chain_ids
    from .refine import refine_models

    chains = set(ligand_chain_ids(setup.receptor.atoms, setup.ligand.atoms).values())
    results = refine_models(
        [out / row["model"] for row in rows],
        out / "refined",
        chains,
        threads=options.threads,
        progress=LOGGER.info,
    )
    for row, result in zip(rows, results, strict=True):
        row["clashes"] = result.clashes_before
        row["refined_model"] = str(result.path.relative_to(out))
        row["clashes_refined"] = result.clashes_after
        if reference is not None:
            from .analysis.evaluate import evaluate

            row["DockQ_refined"] = round(evaluate(result.path, reference).dockq, 4)


def check_options(options: DockOptions) -> None:
    """Refuse impossible protocol options before any work (one line each)."""
    for name, least in (("steps", 1), ("glowworms", 1), ("swarms", 0), ("top", 1)):
        value = getattr(options, name)
        if value < least:
            raise SparkledockError(f"--{name} must be at least {least}, got {value}")
    if options.refine:
        from .refine import require_openmm

        require_openmm()
    if options.threads is not None and options.threads < 1:
        raise SparkledockError(f"--threads must be at least 1, got {options.threads}")
    protocol_spacing(options.protocol, True)  # (refuses an unknown protocol)
    for name in ("swarm_spacing", "stop_tolerance"):
        value = getattr(options, name)
        if value is not None and not (0 <= value < float("inf")):
            flag = "--" + name.replace("_", "-")
            raise SparkledockError(f"{flag} must be 0 or a positive number, got {value}")
    if options.scoring_mode is not None and options.scoring_mode not in SCORING_MODES:
        known = ", ".join(SCORING_MODES)
        raise SparkledockError(
            f"--scoring-mode {options.scoring_mode!r}: no such scoring mode (known: {known})"
        )
    if options.rank_method is not None and options.rank_method not in NEEDS:
        raise SparkledockError(
            f"--rank-method {options.rank_method!r}: no such ranking (known: {', '.join(NEEDS)})"
        )


def _check_inputs(**files: str | os.PathLike[str] | None) -> None:
    for what, path in files.items():
        if path is not None and not Path(path).is_file():
            raise InputFileError(f"{path}: no such {what} file")
    reference = files.get("reference")
    if reference is not None:  # read now, not after the docking it evaluates
        from .analysis.evaluate import require_dockq

        require_dockq()
        chains = set(read_structure(reference).chain.astype(str))
        if len(chains) < 2:
            raise InputFileError(
                f"{reference}: a reference complex needs both partners' chains, it has "
                f"{len(chains)} ({', '.join(sorted(chains))})"
            )


def dock_key(receptor, ligand, restraints, options: DockOptions) -> str:
    """What a docking's results depend on: its input files' bytes and the protocol options
    (not ``top``, ``threads`` or ``quiet``, which change no trajectory). A folder resumes only
    the docking of the same key."""
    digest = hashlib.sha256()
    for path in (receptor, ligand, restraints):
        digest.update(b"-" if path is None else hashlib.sha256(Path(path).read_bytes()).digest())
    engine = options.engine
    protocol = {
        "steps": options.steps,
        "glowworms": options.glowworms,
        "swarms": options.swarms,
        "anm": options.anm,
        "seed": options.seed,
        "map_modified": options.map_modified,
        "scoring": options.scoring,
        **({"scoring_mode": options.scoring_mode} if options.scoring_mode != "exact" else {}),
        "engine": None if engine is None else [engine.backend, engine.precision],
        # where the swarms go (only when set, so that earlier dockings keep their keys)
        **{k: True for k in ("membrane", "transmembrane", "paratope") if getattr(options, k)},
        # always: a folder made before protocols existed never resumes under a new default
        "protocol": options.protocol,
        "swarm_spacing": options.swarm_spacing,
        "stop_tolerance": options.stop_tolerance,
    }
    digest.update(json.dumps(protocol, sort_keys=True).encode())
    return digest.hexdigest()


def _read_record(out: Path) -> dict:
    try:
        record = json.loads((out / DOCK_RECORD).read_text())
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_record(out: Path, key: str, stage: str, history=None, mode: str = "exact") -> dict:
    record = {
        "key": key,
        "stage": stage,
        "scoring_mode": mode,
        "history": [list(h) for h in history or []],
    }
    atomic_write_text(out / DOCK_RECORD, json.dumps(record) + "\n")
    return record


def _own_outputs(out: Path) -> list[Path]:
    """What a docking writes in its folder (``--force`` removes these, and only these)."""
    names = ("setup", "ranking.csv", "report.html", DOCK_RECORD)
    found = [out / n for n in names if (out / n).exists()]
    return found + sorted(out.glob("top_*.pdb")) + sorted(out.glob("top_*.cif"))


def _remove(paths: list[Path]) -> None:
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def _begin(out: Path, key: str, force: bool) -> dict:
    """Decide, holding the folder's lock, whether this docking resumes; returns the record
    to resume from (empty for a fresh start). A different docking's files are refused, or
    removed with ``force``; files that are not a docking's are never touched."""
    record = _read_record(out)
    if record.get("key") == key:
        return record
    entries = [p for p in out.iterdir() if p.name != LOCK_NAME]
    half_made = [p.name for p in entries] == ["setup"] and not SetupDir(
        out / "setup"
    ).setup_json.exists()
    if not record and half_made:  # a setup killed half-way
        entries = []
    if entries and not force:
        what = "a different docking" if record else "files"
        raise InputFileError(
            f"{out}: output folder is not empty (it holds {what}; use --force to replace "
            "the docking's files, or another folder)"
        )
    _remove(_own_outputs(out))
    return {}


def dock(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    restraints: str | os.PathLike[str] | None = None,
    reference: str | os.PathLike[str] | None = None,
    options: DockOptions = DockOptions(),
    force: bool = False,
    comm: Any = None,
) -> Path | None:
    """Set up, run, cluster, rank, filter (with restraints) and write the top models.

    ``out`` receives ``top_<n>.pdb``, ``ranking.csv`` (rank, score, model, swarm, glowworm
    and, with a reference, DockQ and CAPRI class), ``report.html`` and the working ``setup/``.

    Resumable: the same command (same inputs and protocol options) started again after a
    crash or a kill continues where it stopped (the setup is kept, the run resumes from its
    checkpoint, the analysis is redone) and ends with the same files. A folder holding another
    docking, or other files, is refused unless ``force``, which removes the previous docking's
    files first. A second process on the same folder is refused (a lock). A docking that
    fails before its setup is complete leaves no folder behind.

    With an MPI communicator ``comm`` (more than one rank), rank 0 prepares and analyses,
    every rank runs swarms (:func:`sparkledock.parallel.run_parallel`); only rank 0 returns
    the folder, the others None.

    Raises:
        SparkledockError: bad options or inputs, a busy or foreign output folder (one line).
    """
    out = Path(out)
    parallel = comm is not None and comm.Get_size() > 1
    lead = not parallel or comm.Get_rank() == 0
    options = with_defaults(options, restrained=restraints is not None)
    runrec = RunRecord(out, "dock", options=options, engine=engine_name(options))
    with contextlib.ExitStack() as stack:
        key = ""
        record: Any = {}
        if lead:
            try:
                check_options(options)
                _check_inputs(
                    receptor=receptor, ligand=ligand, restraints=restraints, reference=reference
                )
                if options.paratope:  # an antibody receptor and no restraints, before any work
                    if restraints is not None:
                        raise SparkledockError(
                            f"{restraints}: restraints and --paratope both choose where swarms "
                            "go; give one"
                        )
                    require_paratope(read_structure(receptor), str(receptor))
                files = {"receptor": receptor, "ligand": ligand}
                files |= {"restraints": restraints, "reference": reference}
                runrec.inputs = {k: file_record(v) for k, v in files.items() if v is not None}
                created = not out.exists()
                stack.enter_context(folder_lock(out))  # (which checks the folder first)
                if created:
                    stack.callback(_forget_unfinished, out)
                key = dock_key(receptor, ligand, restraints, options)
                record = _begin(out, key, force)
                if not record:
                    with runrec.stage("setup", f"{Path(receptor).name} + {Path(ligand).name}"):
                        prepare_dock_setup(receptor, ligand, out, restraints, options)
                    record = _write_record(out, key, "setup")
                else:
                    LOGGER.info(f"resuming the docking in {out} (it reached: {record['stage']})")
            except SparkledockError as exc:
                record = exc
        if parallel:
            from .parallel import share_error

            record = share_error(record, comm)
        elif isinstance(record, SparkledockError):
            raise record
        setup_dir = out / "setup"
        # the setup as its files define it (what LightDock and a resumed run read), loaded
        # once and handed to the run and the analysis
        setup = load_setup(setup_dir) if lead else None
        final = None
        if record.get("stage") in ("run", "done"):  # every rank has rank 0's record
            history = [tuple(h) for h in record["history"]]
        else:
            with runrec.stage("run", _run_line(setup, options)) if lead else untimed("run"):
                result = _run(setup, setup_dir, options, comm if parallel else None)
            if result is None:
                return None
            history, final = result.history, result.final
        if not lead:
            return None
        _write_record(out, key, "run", history, options.scoring_mode)
        analyse(out, setup, restraints, reference, options, history, final, runrec)
        _write_record(out, key, "done", history, options.scoring_mode)
        runrec.finish()
        return out


def _evaluate_rows(setup, out: Path, ranking, rows, names, reference) -> None:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of every ranked row: the written top models
    by the DockQ package, the others by :mod:`sparkledock.analysis.quality` (its vectorised
    pass over their poses, equal to the package's values; tested). A reference the pass
    cannot take (a partner of several chains) leaves the rows below the top models blank."""
    from .analysis.evaluate import capri_class, evaluate

    keys = ("fnat", "iRMSD", "LRMSD", "DockQ", "CAPRI")
    rest = ranking[len(names) :]
    if rest:
        from .analysis.quality import pose_quality, quality_reference

        try:
            ref = quality_reference(setup, reference)
        except InputFileError as exc:
            LOGGER.info(f"evaluate: only the top models ({exc})")
            ref = None
        if ref is not None:
            poses = np.array([r.pose for r in rest]).reshape(-1, setup.layout.size)
            q = pose_quality(ref, setup, poses)
            for k, row in enumerate(rows[len(names) :]):
                fnat, irmsd, lrmsd = (float(q[n][k]) for n in ("fnat", "irmsd", "lrmsd"))
                row.update(
                    fnat=round(fnat, 4), iRMSD=round(irmsd, 3), LRMSD=round(lrmsd, 3),
                    DockQ=round(float(q["dockq"][k]), 4), CAPRI=capri_class(fnat, irmsd, lrmsd),
                )  # fmt: skip
    for row in rows[: len(names)]:
        q = evaluate(out / row["model"], reference)
        row.update(
            fnat=round(q.fnat, 4), iRMSD=round(q.irmsd, 3), LRMSD=round(q.lrmsd, 3),
            DockQ=round(q.dockq, 4), CAPRI=q.capri,
        )  # fmt: skip
    for row in rows:
        for key in keys:
            row.setdefault(key, "")


def _viewer_models(setup: DockingSetup, models: list[Path]) -> tuple[str, list[str]]:
    """The receptor (from the first model) and each model's ligand, as PDB text."""
    receptor_chains = set(setup.receptor.atoms.chain.astype(str))
    receptor, ligands = "", []
    for i, path in enumerate(models):
        lines = [x for x in path.read_text().splitlines() if x.startswith(("ATOM", "HETATM"))]
        if i == 0:
            receptor = "\n".join(x for x in lines if x[21] in receptor_chains) + "\n"
        ligands.append("\n".join(x for x in lines if x[21] not in receptor_chains) + "\n")
    return receptor, ligands


def _remarks(best: list) -> list[list[str]]:
    """The REMARK lines each top model opens with: what wrote it, its rank and origin."""
    from . import __version__

    return [
        [
            f"REMARK   1 sparkledock {__version__} model {i + 1}",
            f"REMARK   1 rank {i + 1} score {r.score:.3f} swarm {r.swarm} glowworm {r.glowworm}",
        ]
        for i, r in enumerate(best)
    ]


def engine_name(options: DockOptions) -> str:
    engine = options.engine
    if engine is None:
        return "numba (CPU)"
    return f"{engine.backend} {engine.device} {engine.precision}"


def _run_line(setup: DockingSetup | None, options: DockOptions) -> str:
    if setup is None:
        return f"{options.steps} steps"
    return (
        f"{setup.config['swarms']} swarms x {setup.config['glowworms']} glowworms, "
        f"{options.steps} steps, {options.scoring} ({options.scoring_mode} scoring)"
    )


def _run(setup, setup_dir: Path, options: DockOptions, comm):
    """The GSO run of a docking (every rank)."""
    return run_simulation(
        setup if setup is not None else setup_dir,
        options.steps,
        scoring=options.scoring,
        seed=options.seed,
        scoring_mode=options.scoring_mode,
        threads=options.threads,
        quiet=options.quiet,
        engine=options.engine,
        comm=comm,
        keep_final=True,
        stop_tolerance=options.stop_tolerance or 0.0,
    )


def _forget_unfinished(out: Path) -> None:
    """Remove a folder this docking created if it holds nothing resumable (no finished
    setup): a failed docking leaves no empty or half-made folder behind."""
    if out.is_dir() and not (out / DOCK_RECORD).exists():
        shutil.rmtree(out, ignore_errors=True)


def prepare_dock_setup(receptor, ligand, out: Path, restraints, options: DockOptions) -> Path:
    """Write the setup (``OUT/setup``); a half-written one is removed on failure."""
    try:
        return prepare_setup(
            receptor,
            ligand,
            out / "setup",
            restraints=restraints,
            options=SetupOptions(
                glowworms=options.glowworms,
                swarms=options.swarms,
                anm=options.anm,
                noxt=True,
                noh=True,
                now=True,
                seed=options.seed,
                map_modified=options.map_modified,
                scoring=options.scoring,
                membrane=options.membrane,
                transmembrane=options.transmembrane,
                paratope=options.paratope,
                swarm_spacing=options.swarm_spacing or 0.0,
            ),
            progress=lambda line: LOGGER.info(f"setup: {line}"),
        )
    except BaseException:
        shutil.rmtree(out / "setup", ignore_errors=True)
        raise


def term_columns(
    setup: DockingSetup, restraints, scoring: str, ranking: list
) -> dict[str, np.ndarray]:
    """For a weighted combination, each function's weighted score of every ranked solution
    (``score_<name>`` columns of ``ranking.csv``); nothing for a single function.

    The terms score each pose as its gso file keeps it (7 decimals), so they add up to
    ``score`` (the run's unrounded pose) to rounding, which on a clash pose is ~1e-5 relative."""
    from .api import prepare_scoring
    from .scoring import get_scoring

    if not hasattr(get_scoring(scoring), "term_scores") or not ranking:
        return {}
    prepared = prepare_scoring(setup, restraints=restraints, scoring=scoring)
    parts_of = prepared.function.term_scores
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    parts = parts_of(prepared.model, poses)
    return {f"score_{name}": values for name, values in parts.items()}


def default_scoring_mode(options: DockOptions, restrained: bool) -> str:
    """The search's scoring mode unless told: ``fast`` for a DFIRE docking without a
    membrane under the sparkledock protocol: blind (or on an antibody's CDRs), where fast and
    exact searches give pools of the same quality in a seventh of the time (docs/
    performance.md, "Blind docking, fifth pass"), and restrained, where the restraint-focused
    protocol was chosen and measured with it (docs/performance.md, "Restrained protocol");
    ``exact`` otherwise (LightDock's protocol; membrane dockings and the other scoring
    functions were not measured in fast mode)."""
    if options.protocol == "lightdock":
        return "exact"
    membrane = options.membrane or options.transmembrane
    return "fast" if not membrane and options.scoring in DFIRE_SEARCH else "exact"


def protocol_spacing(protocol: str, restrained: bool, paratope: bool = False) -> float:
    """The swarm spacing (Å) of a protocol's setup: :data:`RESTRAINED_SPACING_A` for
    sparkledock's with receptor restraints, 0 (LightDock 0.9.4's rule) otherwise."""
    if protocol not in PROTOCOLS:
        known = ", ".join(PROTOCOLS)
        raise SparkledockError(f"--protocol {protocol!r}: no such protocol (known: {known})")
    focused = protocol == "sparkledock" and restrained and not paratope
    return RESTRAINED_SPACING_A if focused else 0.0


def with_defaults(options: DockOptions, restrained: bool) -> DockOptions:
    """``options`` with what follows the protocol and the presence of restraints decided: the
    ranking method (the one asked for, else :func:`~sparkledock.analysis.ranking.
    default_method`), the scoring mode (the one asked for, else :func:`default_scoring_mode`)
    and the swarm spacing. The ``lightdock`` protocol is LightDock 0.9.4's: its swarm rule,
    exact search, ranking by score; ``sparkledock`` with restraints places swarms by the
    restraint-focused rule (:data:`RESTRAINED_SPACING_A`)."""
    if options.swarm_spacing is None:
        spacing = protocol_spacing(options.protocol, restrained, options.paratope)
        options = dataclasses.replace(options, swarm_spacing=spacing)
    if options.stop_tolerance is None:
        focused = options.swarm_spacing > 0  # (the restraint-focused protocol)
        tolerance = RESTRAINED_STOP_TOLERANCE if focused else 0.0
        options = dataclasses.replace(options, stop_tolerance=tolerance)
    if options.protocol == "lightdock":
        chosen = {"rank_method": "dfire", "scoring_mode": "exact"}
        chosen = {k: v for k, v in chosen.items() if getattr(options, k) is None}
        return dataclasses.replace(options, **chosen)
    if options.rank_method is None:
        method = default_method(restrained, options.scoring, paratope=options.paratope)
        options = dataclasses.replace(options, rank_method=method)
    if options.scoring_mode is None:
        mode = default_scoring_mode(options, restrained)
        options = dataclasses.replace(options, scoring_mode=mode)
    return options


def analyse(
    out: Path,
    setup: Path | DockingSetup,
    restraints,
    reference,
    options: DockOptions,
    history,
    final: dict[int, GSOOutput] | None = None,
    runrec: RunRecord | None = None,
):
    """Cluster, rank, filter, write the top models, ranking.csv and report.html; each a stage
    of ``runrec`` when given (timed, announced, in run.json).

    ``final``: the run's last glowworms per swarm, as the run returned them; a swarm missing
    there (a resumed docking) is read from its gso file.
    """
    if not isinstance(setup, DockingSetup):
        setup = load_setup(setup)
    options = with_defaults(options, restrained=restraints is not None)
    stage = runrec.stage if runrec is not None else untimed
    folder = SetupDir(setup.path)
    n_swarms = int(setup.config["swarms"])
    sizes = []
    chosen = {}
    groups: list[Cluster] = []
    swarm_best: dict[int, float] = {}
    population: dict[tuple[int, int], int] = {}  # each representative's cluster size
    fraction: dict[tuple[int, int], float] = {}  # and restraint satisfaction
    with stage("cluster", f"{n_swarms} swarms") as info:
        for swarm in range(n_swarms):
            data = (final or {}).get(swarm) or read_gso_output(folder.gso(swarm, options.steps))
            clusters = cluster_glowworms(setup, data)
            atomic_write_text(folder.cluster(swarm), format_cluster_repr(clusters, data.scores))
            sizes.extend(len(members) for members in clusters)
            population.update({(swarm, members[0]): len(members) for members in clusters})
            groups.extend(
                Cluster(
                    swarm,
                    members[0],
                    len(members),
                    float(data.scores[members].max()),
                    float(data.scores[members].mean()),
                )
                for members in clusters
            )
            swarm_best[swarm] = float(data.scores.max())
            chosen[swarm] = (data, [members[0] for members in clusters])
        info["summary"] = f"{len(sizes)} cluster representatives"
    docked_with = setup_restraints(setup) if restraints is not None else None
    reorder = options.rank_method != "dfire" or options.diverse
    method = f"{options.rank_method}{' (diverse)' if options.diverse else ''}"
    with stage("rank", f"by {method if docked_with is None else 'score'}"):
        ranking = rank_glowworms(chosen)
        write_ranking(folder.ranking, ranking)  # LightDock's rank_by_scoring.list, by score
        if reorder and docked_with is None:
            ranking = rerank(setup, chosen, options.rank_method, options.diverse)
    if docked_with is not None:
        with stage("filter", f"{FILTER_FRACTION:.0%} of the restraints") as info:
            poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
            kept = satisfaction(setup, poses, docked_with)
            fraction = {(r.swarm, r.glowworm): float(f) for r, f in zip(ranking, kept, strict=True)}
            filtered = [
                r
                for r, f in zip(ranking, kept, strict=True)
                if f >= FILTER_FRACTION and r.score > 0.0
            ]
            write_ranking(folder.root / "rank_filtered.list", filtered)
            info["summary"] = f"{len(filtered)} of {len(ranking)} solutions kept"
            if filtered:
                ranking = filtered
            else:
                warnings.warn(
                    f"{out}: no solution satisfies {FILTER_FRACTION:.0%} of the restraints; "
                    "ranking all of them (run more steps?)",
                    SparkledockWarning,
                    stacklevel=2,
                )
        if reorder:  # the kept solutions only: a consensus ranks them among themselves
            with stage("rerank", f"{len(ranking)} solutions by {method}"):
                kept_ids: dict[int, tuple[GSOOutput, list[int]]] = {}
                for r in ranking:
                    kept_ids.setdefault(r.swarm, (chosen[r.swarm][0], []))[1].append(r.glowworm)
                ranking = rerank(setup, kept_ids, options.rank_method, options.diverse, docked_with)
    best = ranking[: options.top]
    names = [f"top_{i + 1}.pdb" for i in range(len(best))]
    with stage("models", f"the top {len(best)}") as info:
        poses = np.array([r.pose for r in best]).reshape(-1, setup.layout.size)
        write_models(setup, poses, [out / n for n in names], _remarks(best))
        terms = term_columns(setup, docked_with, options.scoring, ranking)
        info["summary"] = f"top_1..top_{len(best)}.pdb" if names else "none"
    rows = []
    for i, r in enumerate(ranking):
        row = {
            "rank": i + 1,
            "score": round(r.score, 3),
            "model": names[i] if i < len(names) else "",
            "swarm": r.swarm,
            "glowworm": r.glowworm,
            "cluster_size": population.get((r.swarm, r.glowworm), ""),
        }
        if docked_with is not None:
            row["restraints"] = round(fraction[(r.swarm, r.glowworm)], 3)
        row.update({column: round(float(v[i]), 3) for column, v in terms.items()})
        row["pose"] = " ".join(f"{x:.7f}" for x in r.pose)
        rows.append(row)
    if reference is not None:
        with stage("evaluate", f"{len(rows)} ranked models against {Path(reference).name}") as info:
            _evaluate_rows(setup, out, ranking, rows, names, reference)
            if names:
                info["summary"] = f"top 1 DockQ {rows[0]['DockQ']} ({rows[0]['CAPRI']})"
    if options.refine and names:
        with stage("refine", f"{len(names)} models with OpenMM"):
            _refine_top(setup, out, rows[: len(names)], reference, options)
        for row in rows[len(names) :]:
            row.update(dict.fromkeys(("clashes", "refined_model", "clashes_refined"), ""))
            if reference is not None:
                row["DockQ_refined"] = ""
    with stage("report", "ranking.csv and report.html"):
        buffer = io.StringIO()
        if rows:
            writer = csv.DictWriter(buffer, fieldnames=list(rows[0].keys()), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        atomic_write_text(out / "ranking.csv", buffer.getvalue())
        receptor_pdb, ligand_pdbs = _viewer_models(setup, [out / n for n in names])
        convergence = swarm_convergence(folder, range(n_swarms), options.steps, SAVE_EVERY)
        write_report(
            out,
            history,
            groups,
            rows,
            reference is not None,
            options.scoring,
            record=runrec.as_dict() if runrec is not None else None,
            receptor_pdb=receptor_pdb,
            ligand_pdbs=ligand_pdbs,
            swarm_best=swarm_best,
            convergence=convergence,
            top_swarms=[r.swarm for r in best],
        )
    if runrec is not None:
        top = rows[0] if rows else {}
        runrec.result.update({"ranked": len(rows), "models": names, "top_score": top.get("score")})
        if reference is not None:
            runrec.result.update({"top_dockq": top.get("DockQ"), "top_capri": top.get("CAPRI")})
    return out
