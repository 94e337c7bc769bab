"""Blind docking's best sites docked again under their own restraints (``--redock-sites N``).

A blind ranking often finds the right site without an acceptable model of it: on training
complexes the first ten distinct sites of the learned order hold one near the true interface
for far more complexes than the first ten models hold an acceptable one
(benchmarks/notebook/performance.md,
"eighth part"). Each of the first N sites (leaders of a greedy landmark-RMSD clustering of the
ranking, :data:`SITE_RADIUS_A` apart, looked for among the first :data:`SITE_HEAD`) gives its
interface residues (within 5 Å of the other partner, both sides) as active restraints to a
restrained docking of the same partners (``OUT/sites/site_<i>/``, the restrained protocol's
defaults: focused swarms, fast search, learned restrained ranking); each site's best model
is ranked first, ahead of the blind ranking, in the blind ranking's order of the sites
(:func:`site_order`). The site dockings are ordinary dockings: each resumes on its own.
"""

from __future__ import annotations

import csv
import dataclasses
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..analysis.contacts import pose_interfaces
from ..analysis.learned import outside
from ..analysis.rank import Ranked
from ..analysis.ranking import landmark_atoms, landmarks, leaders
from ..errors import OptionsSaid, SparkledockError, SparkledockWarning
from ..fileutil import atomic_write_text
from ..molecule.system import DockingSetup
from ..runlog import LOGGER
from .disk import keeps_everything, settle_site
from .options import SITE_DEFAULT, DockOptions

#: How far apart (Å, ligand-landmark RMSD) two sites' leaders are at least (chosen on
#: training complexes: benchmarks/notebook/performance.md, "eighth part").
SITE_RADIUS_A = 15.0
#: How far down the blind ranking sites are looked for.
SITE_HEAD = 600
#: How :func:`site_order` ranks the site models (in a finished docking's ranking record: a
#: docking ranked under another order is ranked again).
SITE_ORDER = "blind order"
#: Where a docking keeps its site dockings.
SITES_FOLDER = "sites"


@dataclasses.dataclass(frozen=True)
class SiteModel:
    """A site's best model, as the blind docking ranks it: its solution (pose in the
    partners' frame, which every docking of the same inputs shares) and where it came from."""

    site: int
    solution: Ranked
    cluster_size: int


def site_count(options: DockOptions, setup: DockingSetup) -> int:
    """How many sites a docking docks again: the number asked for, else (the protocol's
    default, :func:`~.options.default_sites`) :data:`~.options.SITE_DEFAULT` for protein
    partners and none for a nucleic acid, outside the domain the stage was measured on (as
    the blind ranking falls back there: :func:`sparkledock.analysis.learned.outside`)."""
    if options.redock_sites is not None:
        return options.redock_sites
    why = outside(setup)
    if why is not None:
        LOGGER.info(f"no sites docked again by default: {why}")
        return 0
    if options.swarms > 0:  # (the user's size bounds the stage: a swarm per site at least)
        return min(SITE_DEFAULT, options.swarms)
    return SITE_DEFAULT


@dataclasses.dataclass(frozen=True)
class SiteJob:
    """One site docking: its number, the partners, its folder and restraints (paths as
    strings: rank 0 broadcasts the jobs under MPI)."""

    site: int
    receptor: str
    ligand: str
    folder: str
    restraints: str


def _dock_jobs(
    jobs: list[SiteJob],
    options: DockOptions,
    dock: Callable[..., Path | None],
    rank: int,
    size: int,
) -> None:
    """Dock this rank's share of ``jobs`` (every ``size``-th from ``rank``), one process each.
    Their warnings are not repeated: the blind docking said those of its inputs, and the
    sites' restraints are the stage's own, not the user's (a site whose models miss 40 % of
    them is not news)."""
    for job in jobs[rank::size]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SparkledockWarning)
            dock(job.receptor, job.ligand, job.folder, restraints=job.restraints, options=options)


class SiteShare:
    """A docking's site dockings shared among its MPI ranks (the folders on a file system
    they share, as the run's): rank 0 broadcasts the jobs once (:meth:`dock`, or none from
    :meth:`close`), every rank docks every size-th site on its own threads
    (:func:`follow_sites` on the others), and a failure anywhere stops every rank, said once.
    Each site docking is an ordinary single-process docking: the models do not depend on
    the number of ranks."""

    def __init__(self, comm: Any) -> None:
        self.comm, self.sent = comm, False

    def dock(self, jobs: list[SiteJob], options: DockOptions, dock: Callable) -> None:
        self.sent = True
        self.comm.bcast((jobs, options), root=0)
        _shared_jobs(jobs, options, dock, self.comm)

    def close(self) -> None:
        """Rank 0 after its analysis, whatever happened: the others stop waiting."""
        if not self.sent:
            self.sent = True
            self.comm.bcast(None, root=0)


def follow_sites(comm: Any, dock: Callable) -> None:
    """An MPI rank other than 0: dock its share of rank 0's site dockings, if any."""
    given = comm.bcast(None, root=0)
    if given is not None:
        _shared_jobs(*given, dock, comm)


def _shared_jobs(jobs: list[SiteJob], options: DockOptions, dock: Callable, comm: Any) -> None:
    rank, size = comm.Get_rank(), comm.Get_size()
    if options.engine is not None:  # (on CUDA, each rank on its node's device, as in the run)
        from ..engine.parallel import rank_engine

        options = dataclasses.replace(options, engine=rank_engine(options.engine, comm))
    failed = None
    try:
        _dock_jobs(jobs, options, dock, rank, size)
    except SparkledockError as exc:  # (its options spelled by whoever prints it)
        failed = (exc.template, exc.names)
    except Exception as exc:  # (said on every rank, not left to hang them)
        failed = (f"{type(exc).__name__}: {exc}", ())
    said = next((f for f in comm.allgather(failed) if f is not None), None)
    if said is not None:
        error = SparkledockError(*said)
        error.shared, error.echo = True, rank != 0
        raise error


def site_leaders(setup: DockingSetup, ranking: list[Ranked], count: int) -> list[int]:
    """Positions in ``ranking`` of its first ``count`` distinct sites."""
    head = ranking[:SITE_HEAD]
    if not head or count < 1:
        return []
    poses = np.array([r.pose for r in head]).reshape(len(head), setup.layout.size)
    marks = landmarks(setup, poses, landmark_atoms(setup))
    return leaders(marks, np.arange(len(head)), SITE_RADIUS_A, count).tolist()


def site_order(models: list[SiteModel]) -> list[SiteModel]:
    """The site models in the blind ranking's order of their sites. Chosen on the 28
    training complexes with every site docked again, by a rule registered before the last
    16 were docked (most top 1, then top 5, then top 10): 8 / 18 / 24 against 6 / 19 / 24
    for the best score first, which had been chosen on 12 of them and did not transfer to
    the twenty (benchmarks/notebook/performance.md, "ninth" and "tenth part")."""
    return sorted(models, key=lambda m: m.site)


def restraint_lines(receptor: list[str], ligand: list[str]) -> str:
    """A LightDock restraints file: every interface residue an active restraint."""
    return "".join(f"R {r}\n" for r in receptor) + "".join(f"L {r}\n" for r in ligand)


def site_options(options: DockOptions) -> DockOptions:
    """A site docking's options: the blind docking's search settings (steps, glowworms,
    engine, seed, threads, anm, scoring) under the sparkledock protocol's restrained
    defaults for placement, search mode, stopping and ranking (whatever the blind docking's
    protocol: LightDock's 20 swarms per restraint residue and exact search would make each
    site cost several blind dockings); one model; no nested sites. Swarms the user gave
    bound the stage: each site docks with a :data:`~.options.SITE_DEFAULT`-th of them (one
    at least; the default stage docks at most as many sites, :func:`site_count`, so it costs
    at most the search's size, and the share does not change with the number of sites, so
    a finished docking asked for more keeps its site dockings); otherwise each site covers
    its patch as a restrained docking does."""
    swarms = max(1, options.swarms // SITE_DEFAULT) if options.swarms > 0 else 0
    return dataclasses.replace(
        options, redock_sites=0, rank_method=None, scoring_mode=None, swarm_spacing=None,
        stop_tolerance=None, swarms=swarms, top=1, refine=False, diverse=False,
        paratope=False, quiet=True, protocol="sparkledock", keep_trajectories=False,
    )  # fmt: skip


def same_partners(a: Path, b: Path) -> bool:
    """Whether two setup folders hold the same partners (structures and normal modes, byte
    for byte): a pose of one then means the same complex in the other."""
    names = sorted(p.name for p in a.glob("lightdock_*") if p.suffix in (".pdb", ".npy"))
    return bool(names) and all(
        (b / n).is_file() and (a / n).read_bytes() == (b / n).read_bytes() for n in names
    )


def _best_row(folder: Path) -> dict[str, str] | None:
    with open(folder / "ranking.csv", newline="") as handle:
        return next(csv.DictReader(handle), None)


def redock_sites(
    out: Path,
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    options: DockOptions,
    setup: DockingSetup,
    ranking: list[Ranked],
    count: int,
    dock: Callable[..., Path | None],
    share: SiteShare | None = None,
) -> list[SiteModel]:
    """Dock the first ``count`` (:func:`site_count`) sites of ``ranking`` again (``dock``:
    the docking function, :func:`sparkledock.docking.dock`; ``share``: among MPI ranks) and
    return each one's best model, in :func:`site_order`. A site whose representative touches
    nothing (no interface residue on a side) is passed over."""
    root = out / SITES_FOLDER
    chosen = site_leaders(setup, ranking, count)
    poses = np.array([ranking[i].pose for i in chosen]).reshape(len(chosen), setup.layout.size)
    jobs: list[SiteJob] = []
    for n, (position, (rec, lig)) in enumerate(
        zip(chosen, pose_interfaces(setup, poses), strict=True), start=1
    ):
        if not rec or not lig:
            LOGGER.info(f"site {n} (rank {position + 1}): no interface residues, passed over")
            continue
        root.mkdir(exist_ok=True)
        restraints, text = root / f"site_{n}.restraints", restraint_lines(rec, lig)
        if not restraints.is_file() or restraints.read_text() != text:  # (kept on a rerun)
            atomic_write_text(restraints, text)
        folder = root / f"site_{n}"
        LOGGER.info(
            f"site {n} of {len(chosen)} (blind rank {position + 1}): {len(rec)} + {len(lig)} "
            f"interface residues as restraints, docking into {folder}"
        )
        jobs.append(SiteJob(n, str(receptor), str(ligand), str(folder), str(restraints)))
    chosen = site_options(options)
    if jobs:
        each = f"{chosen.swarms} swarm(s)" if chosen.swarms else "swarms covering its site"
        said = (
            f"sites: {len(jobs)} of the blind ranking's sites docked again, each with {each} "
            f"× {chosen.glowworms} glowworms × {chosen.steps} steps ({{0}} 0: none)"
        )
        LOGGER.info(OptionsSaid(said, "redock_sites"))
    if share is not None:
        share.dock(jobs, chosen, dock)
    else:
        _dock_jobs(jobs, chosen, dock, 0, 1)
    models = []
    for job in jobs:
        n, folder = job.site, Path(job.folder)
        if not same_partners(setup.path, folder / "setup"):
            raise SparkledockError(
                f"{folder}: the site docking's partners differ from {setup.path}'s (its models "
                "cannot be ranked with the blind docking's); remove it and dock again"
            )
        row = _best_row(folder)
        settle_site(folder, setup.path, keep_swarms=keeps_everything(options))
        if row is None:
            continue
        pose = tuple(float(x) for x in row["pose"].split())
        solution = Ranked(int(row["swarm"]), int(row["glowworm"]), pose, 0.0, 0, 0.0,
                          float(row["score"]))  # fmt: skip
        models.append(SiteModel(n, solution, int(row["cluster_size"] or 1)))
    return site_order(models)
