"""The stages that order a run's solutions: :func:`cluster` (each swarm's clusters, its
:class:`Pool`), :func:`rank` (the pool in a method's order) and :func:`filter_ranking` (each
solution's restraint satisfaction, and those satisfying enough). ``dock`` calls them in that
order on the run it holds; ``sparkledock rank``/``filter`` and LightDock's ``lgd_rank.py``/
``lgd_filter_restraints.py`` call them on a folder."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SparkledockError
from .checks import check_paths, options_of

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..analysis.filter import Filtered
    from ..analysis.rank import Ranked
    from ..io.lightdock import GSOOutput
    from ..molecule.restraints import Restraints
    from ..molecule.system import DockingSetup


@dataclass(frozen=True)
class Pool:
    """A run's solutions at one step, as a ranking reads them: each swarm's glowworms and the
    ones that stand for it (its cluster representatives; None: every glowworm), each
    representative's cluster size, and (when clustered here) each cluster's members,
    representative first (the report's cluster table)."""

    chosen: dict[int, tuple[GSOOutput, list[int] | None]]
    sizes: dict[tuple[int, int], int] = field(default_factory=dict)
    members: dict[int, list[list[int]]] = field(default_factory=dict)


def cluster(
    setup: DockingSetup,
    steps: int,
    *,
    final: Mapping[int, GSOOutput] | None = None,
) -> Pool:
    """The cluster stage: every swarm's glowworms at ``steps`` clustered as LightDock's BSAS
    does, each swarm's ``cluster.repr`` written; the :class:`Pool` that :func:`rank` orders.
    ``final``: the glowworms a run returned, by swarm (one missing is read from its gso
    file, as after a resume)."""
    from ..analysis.cluster import cluster_glowworms, format_cluster_repr
    from ..fileutil import atomic_write_text
    from ..io.lightdock import read_gso_output
    from ..io.setupdir import SetupDir

    folder = SetupDir(setup.path)
    chosen: dict[int, tuple[GSOOutput, list[int] | None]] = {}
    sizes: dict[tuple[int, int], int] = {}
    members: dict[int, list[list[int]]] = {}
    for swarm in range(setup.n_swarms):
        data = (final or {}).get(swarm) or read_gso_output(folder.gso(swarm, steps))
        groups = cluster_glowworms(setup, data)
        atomic_write_text(folder.cluster(swarm), format_cluster_repr(groups, data.scores))
        chosen[swarm] = (data, [group[0] for group in groups])
        sizes.update({(swarm, group[0]): len(group) for group in groups})
        members[swarm] = groups
    return Pool(chosen, sizes, members)


def _read_pool(
    folder: Any,
    ids: Sequence[int],
    gso: Any,
    clusters: bool,
    unclustered: str,
    setup: Any,
) -> Pool:
    """The pool of the swarms ``ids`` as their files hold it: each gso file (``gso(swarm)``),
    its ``cluster.repr`` where there is one, else as ``unclustered`` says."""
    from ..analysis.cluster import cluster_glowworms
    from ..analysis.rank import read_cluster_sizes
    from ..io.lightdock import read_gso_output

    chosen = {}
    sizes: dict[tuple[int, int], int] = {}
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
    return Pool(chosen, sizes)


def rank(
    setup_folder: str | os.PathLike[str] | DockingSetup,
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
    pool: Pool | None = None,
) -> list[Ranked]:
    """The rank stage (``sparkledock rank``, ``lgd_rank.py``): the solutions of a run at
    ``steps`` in ``method``'s order (``dfire``: by score, LightDock's; see
    :data:`~sparkledock.analysis.ranking.NEEDS`), ``diverse``: near-duplicates moved back.
    Solutions are each swarm's cluster representatives (a swarm without ``cluster.repr``: as
    ``unclustered`` says, :data:`~sparkledock.analysis.ranking_options.UNCLUSTERED`), or with
    ``clusters=False`` every glowworm (these four: :class:`~sparkledock.analysis.
    ranking_options.RankOptions`, the command's options);
    ``solutions`` (a ranking file or list, e.g. :func:`filter_ranking`'s ``kept``): only
    those, ordered among themselves, as a restrained ``dock`` orders what its filter kept.
    ``restraints``: what a method that reads restraint satisfaction (``learned``,
    ``restraints``) counts (default: the docking's own, from its setup). ``swarms``: which
    swarms (default: every swarm with a ``gso_<steps>.out``; a listed one without it is
    refused); ``gso_name``: another file name in each swarm folder. ``pool``: the run's
    solutions as :func:`cluster` returned them (``dock``'s; no file is read). Each
    :class:`~sparkledock.analysis.rank.Ranked` holds swarm, glowworm, pose, luciferin,
    neighbours, vision range and score. Options are checked before any file is read. How
    the stages give ``dock``'s own ranking: ``tests/test_stages_reproduce_dock.py``."""
    given = setup_folder if hasattr(setup_folder, "layout") else None
    if given is None:
        check_paths("rank", setup_folder=setup_folder)
    from ..analysis.rank import rank_glowworms, read_ranking
    from ..analysis.ranking import NEEDS, rerank, rerank_kept
    from ..analysis.ranking_options import RankOptions, check_rank_options
    from ..engine.context import setup_restraints
    from ..io.lightdock import load_setup
    from ..io.pack import ensure_unpacked
    from ..io.restraints import read_restraints
    from ..io.setupdir import SetupDir

    asked = {"method": method, "diverse": diverse, "clusters": clusters}
    options = options_of({**asked, "unclustered": unclustered}, RankOptions, "rank")
    check_rank_options(options)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise SparkledockError(f"rank: steps must be an integer from 0, got {steps!r}")
    if isinstance(solutions, str | os.PathLike):
        solutions = read_ranking(solutions)
    if isinstance(restraints, str | os.PathLike):
        restraints = read_restraints(restraints)
    folder = SetupDir(Path(given.path if given is not None else setup_folder))
    if pool is None:
        ensure_unpacked(folder.root)  # (a finished docking's packed swarm files)
    by_score = method == "dfire" and not diverse and solutions is None
    loaded = given if given is not None or by_score else load_setup(folder.root)
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

    if pool is None:
        if swarms is None:
            if not folder.setup_json.is_file():
                setup()  # (its one-line refusal: not a setup folder)
            n_swarms = int(json.loads(folder.setup_json.read_text()).get("swarms", 0))
            ids = [swarm for swarm in range(n_swarms) if gso(swarm).is_file()]
            if not ids:
                raise SparkledockError(f"{folder.root}: no swarm has {gso(0).name} (run it first)")
        else:
            ids = [int(swarm) for swarm in swarms]
        pool = _read_pool(folder, ids, gso, clusters, unclustered, setup)
    if by_score:  # (LightDock's ranking needs no structure)
        return rank_glowworms(pool.chosen)
    if solutions is not None:
        for r in solutions:
            known = pool.chosen.get(r.swarm)
            if known is None or not 0 <= r.glowworm < len(known[0].scores):
                where = f"{folder.root}'s ranked swarms at step {steps}"
                raise SparkledockError(f"rank: solution swarm {r.swarm} glowworm {r.glowworm} "
                                       f"is not one of {where}")  # fmt: skip
        return rerank_kept(
            setup(), pool.chosen, list(solutions), method, diverse, restraints,
            cluster_sizes=pool.sizes,
        )  # fmt: skip
    return rerank(setup(), pool.chosen, method, diverse, restraints, cluster_sizes=pool.sizes)


def filter_ranking(
    setup_folder: str | os.PathLike[str] | DockingSetup,
    ranking: str | os.PathLike[str] | list[Ranked],
    restraints: str | os.PathLike[str] | Restraints | None = None,
    *,
    positive: bool = True,
    **options: Any,
) -> Filtered:
    """The filter stage (``sparkledock filter``, ``lgd_filter_restraints.py``): the ranked
    solutions with a positive score (a ranking file, or :func:`rank`'s list; every one with
    ``positive=False``, as ``dock`` judges them), each one's
    restraint satisfaction (active restraint residues of both partners, passive ones too on
    request, within ``cutoff`` Å of the other partner; ``molecules``: which atoms of the
    receptor and the ligand count: all, protein or nucleic) and those satisfying at least
    ``fnat`` (:class:`~sparkledock.analysis.filter.Filtered`); ``restraints`` default: the
    docking's own. ``options``: :class:`~sparkledock.analysis.options.FilterOptions` fields
    (``fnat``, default 0.4; ``cutoff``, default 5 Å; ``include_passive``; ``molecules``;
    ``pair_within``: with one receptor and one ligand residue, the solutions with the two
    within it of each other keep instead, where any is; ``dock``'s: 8 Å), checked before any
    file is read."""
    from ..analysis.filter import filter_solutions
    from ..analysis.options import FilterOptions, check_filter_options
    from ..analysis.rank import read_ranking
    from ..engine.context import setup_restraints
    from ..io.lightdock import load_setup
    from ..io.restraints import read_restraints

    chosen = options_of(options, FilterOptions, "filter")
    check_filter_options(chosen)
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
    if positive:  # (LightDock drops the others first)
        solutions = [r for r in solutions if r.score > 0.0]
    return filter_solutions(
        loaded, list(solutions), restraints, chosen.fnat, chosen.cutoff,
        chosen.include_passive, chosen.molecules, chosen.pair_within,
    )  # fmt: skip
