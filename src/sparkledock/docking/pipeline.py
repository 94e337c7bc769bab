"""``sparkledock dock``: a whole docking, from two structures to ranked models and a report:
the folder, its record and resume key, setup, run and the analysis stages in order."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..engine.driver import run_simulation
from ..errors import InputFileError, OptionError, OptionsSaid, SparkledockError
from ..fileutil import LOCK_NAME, atomic_write_text, folder_lock
from ..io.lightdock import load_setup
from ..io.setupdir import SetupDir
from ..molecule.restraints import Knowledge
from ..molecule.structure import read_structure
from ..molecule.system import DockingSetup
from ..preparation.inputs import ReadPartners
from ..preparation.paratope import require_paratope
from ..preparation.prepare import prepare_setup
from ..runlog import LOGGER, RunRecord, file_record, untimed
from .alternatives import dock_alternatives
from .analyse import analyse, ranking_identity
from .checks import check_docking, check_ranked_molecules
from .disk import refuse_slimmed, settle
from .knowledge import ligand_face, resolve
from .options import (
    DockOptions,
    check_ranking,
    dock_setup_options,
    engine_name,
    key_options,
    with_defaults,
)
from .sites import SITES_FOLDER, SiteShare, follow_sites, redock_sites

#: What ``dock`` records in its output folder: the run's key, its stage and score history.
DOCK_RECORD = "sparkledock_dock.json"


def _check_reference(reference: str | os.PathLike[str] | None) -> None:
    """A reference complex is read now, not after the docking it evaluates."""
    if reference is not None:
        chains = set(read_structure(reference).chain.astype(str))
        if len(chains) < 2:
            raise InputFileError(
                f"{reference}: a reference complex needs both partners' chains, it has "
                f"{len(chains)} ({', '.join(sorted(chains))})"
            )


def dock_key(receptor, ligand, restraints, options: DockOptions) -> str:
    """What a docking's results depend on: its input files' bytes and the options that
    change a trajectory (:func:`~.options.key_options`, from each field's part in the key).
    A folder resumes only the docking of the same key."""
    digest = hashlib.sha256()
    for path in (receptor, ligand, restraints):
        digest.update(b"-" if path is None else hashlib.sha256(Path(path).read_bytes()).digest())
    protocol = key_options(options)
    digest.update(json.dumps(protocol, sort_keys=True).encode())
    return digest.hexdigest()


def read_record(out: Path) -> dict:
    try:
        record = json.loads((out / DOCK_RECORD).read_text())
        return record if isinstance(record, dict) else {}
    except (OSError, ValueError):
        return {}


def write_record(
    out: Path, key: str, stage: str, history=None, mode: str = "exact", ranking=None
) -> dict:
    """The folder's record: its key, stage, score history and (once finished) what its
    ranking depends on (:func:`~.analyse.ranking_identity`)."""
    record = {
        "key": key,
        "stage": stage,
        "scoring_mode": mode,
        "history": [list(h) for h in history or []],
    }
    if ranking is not None:
        record["ranking"] = ranking
    atomic_write_text(out / DOCK_RECORD, json.dumps(record) + "\n")
    return record


def own_outputs(out: Path) -> list[Path]:
    """What a docking writes in its folder (``--force`` removes these, and only these)."""
    names = ("setup", "ranking.csv", "interface.csv", "report.html", DOCK_RECORD, SITES_FOLDER)
    found = [out / n for n in names if (out / n).exists()]
    return found + sorted(out.glob("top_*.pdb")) + sorted(out.glob("top_*.cif"))


def remove_paths(paths: list[Path]) -> None:
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def _begin(out: Path, key: str, force: bool) -> dict:
    """Decide, holding the folder's lock, whether this docking resumes; returns the record
    to resume from (empty for a fresh start). A different docking's files are refused, or
    removed with ``force``; files that are not a docking's are never touched."""
    record = read_record(out)
    if record.get("key") == key and not force:
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
            f"{out}: output folder is not empty (it holds {what}; use {{0}} to replace "
            "the docking's files, or another folder)",
            "force",
        )
    remove_paths(own_outputs(out))
    return {}


def dock(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    restraints: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
    reference: str | os.PathLike[str] | None = None,
    options: DockOptions = DockOptions(),  # noqa: B008  (frozen: one shared default)
    force: bool = False,
    comm: Any = None,
) -> Path | None:
    """Set up, run, cluster, rank, filter (with restraints) and write the top models.

    ``out`` receives ``top_<n>.pdb``, ``ranking.csv`` (rank, score, model, swarm, glowworm
    and, with a reference, DockQ and CAPRI class), ``report.html`` and the working ``setup/``.

    Resumable: the same command (same inputs and protocol options) started again after a
    crash or a kill continues where it stopped (the setup is kept, the run resumes from its
    checkpoint, the analysis is redone) and ends with the same files; its run.json keeps the
    first attempt's stages and when it was resumed. The same docking, finished, is left as
    it is (nothing is redone or rewritten), unless asked with another ranking method or
    after the shipped ranking model changed: then only its analysis is redone. A folder
    holding another docking, or other files, is refused unless ``force``, which removes the
    previous docking's files first (the same docking's too: it is docked afresh). A second
    process on the same folder is refused (a lock). A docking that fails before its setup is
    complete leaves no folder behind.

    With an MPI communicator ``comm`` (more than one rank), rank 0 prepares and analyses,
    every rank runs swarms (:func:`sparkledock.engine.parallel.run_parallel`); only rank 0 returns
    the folder, the others None.

    ``restraints`` may be several files, alternatives (candidate patches): each is docked
    in ``OUT/alternative_<n>`` and their models ranked together in ``out``
    (:mod:`.alternatives`).

    Raises:
        SparkledockError: bad options or inputs, a busy or foreign output folder (one line).
    """
    if restraints is not None and not isinstance(restraints, (str, os.PathLike)):
        given = list(restraints)
        if not given:
            raise SparkledockError("restraints: an empty list of files (give None to dock blind)")
        if len(given) > 1:
            return dock_alternatives(dock, receptor, ligand, out, given, reference=reference,
                                     options=options, force=force, comm=comm)  # fmt: skip
        restraints = given[0]
    out = Path(out)
    parallel = comm is not None and comm.Get_size() > 1
    lead = not parallel or comm.Get_rank() == 0
    asked = options
    options = with_defaults(asked, restrained=restraints is not None)
    runrec = RunRecord(out, "dock", options=options, engine=engine_name(options))
    with contextlib.ExitStack() as stack:
        key = ""
        record: Any = {}
        if lead:
            try:
                partners = check_docking(receptor, ligand, restraints, reference, options)
                _check_reference(reference)
                if options.paratope:  # an antibody receptor and no restraints, before any work
                    if restraints is not None:
                        raise OptionError(
                            "paratope",
                            f"{restraints}: restraints and {{0}} both choose where swarms go; "
                            "give one",
                        )
                    require_paratope(partners.raw[0], str(receptor))
                if options.redock_sites and restraints is not None:
                    raise OptionError(
                        "redock_sites",
                        f"{restraints}: {{0}} docks a blind docking's sites again under their "
                        "own restraints; a restrained docking has its site",
                    )
                if partners.restraints is not None:  # (said once every refusal is ruled out)
                    options = _by_knowledge(asked, options, partners, runrec, (receptor, ligand))
                files = {"receptor": receptor, "ligand": ligand}
                files |= {"restraints": restraints, "reference": reference}
                runrec.inputs = {k: file_record(v) for k, v in files.items() if v is not None}
                created = not out.exists()
                stack.enter_context(folder_lock(out))  # (which checks the folder first)
                if created:
                    stack.callback(_forget_unfinished, out)
                key = dock_key(receptor, ligand, restraints, options)
                ranked = ranking_identity(options)
                record = _begin(out, key, force)
                known = runrec.result.get("knowledge")
                if known:  # (once nothing can refuse the docking)
                    LOGGER.info(
                        f"restraints: {known['level']} ({known['receptor']} receptor and "
                        f"{known['ligand']} ligand residues): ranking by {options.rank_method}"
                    )
                if not record:
                    _ligand_face(partners, options, runrec)
                    with runrec.stage("setup", f"{Path(receptor).name} + {Path(ligand).name}"):
                        prepare_dock_setup(receptor, ligand, out, restraints, options, partners)
                    record = write_record(out, key, "setup")
                elif record.get("stage") == "done" and record.get("ranking", ranked) != ranked:
                    # the same run, ranked another way or by another model: the analysis is
                    # redone from the run's files (a record without it predates the field)
                    LOGGER.info(
                        f"{out} holds this docking ranked by {_ranked_line(record['ranking'])}: "
                        f"ranking it again by {_ranked_line(ranked)}"
                    )
                    refuse_slimmed(out)
                    record = {**record, "stage": "run"}
                    runrec.continue_from(out)
                elif record.get("stage") == "done":
                    said = (
                        f"{out} holds this docking, finished: nothing to do (its results are "
                        "there; {0} docks it again)"
                    )
                    LOGGER.info(OptionsSaid(said, "force"))
                    settle(out, options)  # (a packing killed half-way ends now)
                else:
                    LOGGER.info(f"resuming the docking in {out} (it reached: {record['stage']})")
                    runrec.continue_from(out)
            except SparkledockError as exc:
                record = exc
        if parallel:
            from ..engine.parallel import share_error

            record = share_error(record, comm)
        elif isinstance(record, SparkledockError):
            raise record
        if record.get("stage") == "done":  # (every rank has rank 0's record)
            return out if lead else None
        # under MPI a blind docking's sites are docked again by every rank (docking.sites)
        sites_shared = parallel and options.redock_sites != 0 and restraints is None
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
                return _follow(comm, sites_shared)
            history, final = result.history, result.final
        if not lead:
            return _follow(comm, sites_shared)
        write_record(out, key, "run", history, options.scoring_mode)
        share = SiteShare(comm) if sites_shared else None
        sites = functools.partial(
            redock_sites, out, receptor, ligand, options, dock=dock, share=share
        )
        try:
            analyse(out, setup, restraints, reference, options, history, final, runrec, sites)
        finally:
            if share is not None:
                share.close()
        write_record(out, key, "done", history, options.scoring_mode, ranking_identity(options))
        settle(out, options)
        runrec.finish()
        return out


def _by_knowledge(
    asked: DockOptions,
    options: DockOptions,
    partners: ReadPartners,
    runrec: RunRecord,
    paths: tuple[Any, Any],
) -> DockOptions:
    """The options a restrained docking runs with once its restraints are read: the
    protocol's defaults decided again for the level of knowledge they give
    (:func:`~.options.with_defaults`), checked, and the level named in run.json."""
    decided, known = resolve(asked, partners.restraints)
    assert known is not None  # (restraints were read)
    if decided != options:
        check_ranked_molecules(check_ranking(decided, True), partners.raw, paths)
    runrec.options = decided
    runrec.result["knowledge"] = known.as_dict()
    return decided


def _ligand_face(partners: ReadPartners, options: DockOptions, runrec: RunRecord) -> None:
    """Before a new setup: with the ligand's side unknown, the starting ligands turn their
    likeliest interface residues toward the receptor's restraints (:func:`.knowledge.
    ligand_face`), named in run.json and the log."""
    known = runrec.result.get("knowledge", {})
    level = Knowledge(known["level"], known["receptor"], known["ligand"]) if known else None
    likely = ligand_face(partners, options, level)
    if likely:
        known["ligand_face"] = likely
        LOGGER.info(
            f"setup: the ligands start facing their {len(likely)} likeliest interface residues"
        )


def _follow(comm: Any, sites_shared: bool) -> None:
    """An MPI rank other than 0 after the run: its share of the site dockings, if any."""
    if sites_shared:
        follow_sites(comm, dock)
    return None


def _ranked_line(ranking: dict) -> str:
    model = f" (model {ranking['model']})" if "model" in ranking else ""
    return f"{ranking.get('rank_method')}{model}"


def _run_line(setup: DockingSetup | None, options: DockOptions) -> str:
    if setup is None:
        return f"{options.steps} steps"
    return (
        f"{setup.n_swarms} swarms × {setup.n_glowworms} glowworms, "
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


def prepare_dock_setup(
    receptor, ligand, out: Path, restraints, options: DockOptions, partners=None
) -> Path:
    """Write the setup (``OUT/setup``) from the partners as the checks read them (``partners``:
    read again when not given); a half-written one is removed on failure."""
    try:
        return prepare_setup(
            receptor,
            ligand,
            out / "setup",
            restraints=restraints,
            options=dock_setup_options(options),
            partners=partners,
            progress=lambda line: LOGGER.info(f"setup: {line}"),
        )
    except BaseException:
        shutil.rmtree(out / "setup", ignore_errors=True)
        raise
