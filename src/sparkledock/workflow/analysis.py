"""The stages that read a run: :func:`rank`, :func:`filter_ranking`, :func:`top` (the
ranking, its restraint filter, the top models) and :func:`evaluate` (a model against a
reference)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SparkledockError
from .checks import check_paths, options_of

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..analysis.evaluate import Quality
    from ..analysis.filter import Filtered
    from ..analysis.rank import Ranked
    from ..molecule.restraints import Restraints
    from ..molecule.system import DockingSetup


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
    ``unclustered`` says, :data:`~sparkledock.analysis.ranking_options.UNCLUSTERED`), or with
    ``clusters=False`` every glowworm (these four: :class:`~sparkledock.analysis.
    ranking_options.RankOptions`, the command's options);
    ``solutions`` (a ranking file or list, e.g. :func:`filter_ranking`'s ``kept``): only
    those, ordered among themselves, as a restrained ``dock`` orders what its filter kept.
    ``restraints``: what a method that reads restraint satisfaction (``learned``,
    ``restraints``) counts (default: the docking's own, from its setup). ``swarms``: which
    swarms (default: every swarm with a ``gso_<steps>.out``; a listed one without it is
    refused); ``gso_name``: another file name in each swarm folder. Each
    :class:`~sparkledock.analysis.rank.Ranked` holds swarm, glowworm, pose, luciferin,
    neighbours, vision range and score. Options are checked before any file is read. How
    the stages give ``dock``'s own ranking: ``tests/test_stages_reproduce_dock.py``."""
    check_paths("rank", setup_folder=setup_folder)
    from ..analysis.cluster import cluster_glowworms
    from ..analysis.rank import read_cluster_sizes, read_ranking
    from ..analysis.ranking import NEEDS, rerank, rerank_kept
    from ..analysis.ranking_options import RankOptions, check_rank_options
    from ..engine.context import setup_restraints
    from ..io.lightdock import load_setup, read_gso_output
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
        from ..analysis.rank import rank_glowworms

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
    **options: Any,
) -> Filtered:
    """The filter stage (``sparkledock filter``, ``lgd_filter_restraints.py``): the ranked
    solutions with a positive score (a ranking file, or :func:`rank`'s list), each one's
    restraint satisfaction (active restraint residues of both partners, passive ones too on
    request, within ``cutoff`` Å of the other partner; ``molecules``: which atoms of the
    receptor and the ligand count: all, protein or nucleic) and those satisfying at least
    ``fnat`` (:class:`~sparkledock.analysis.filter.Filtered`); ``restraints`` default: the
    docking's own. ``options``: :class:`~sparkledock.analysis.options.FilterOptions` fields
    (``fnat``, default 0.4; ``cutoff``, default 5 Å; ``include_passive``; ``molecules``),
    checked before any file is read."""
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
    positive = [r for r in solutions if r.score > 0.0]  # (LightDock drops the others first)
    return filter_solutions(
        loaded, positive, restraints, chosen.fnat, chosen.cutoff, chosen.include_passive,
        chosen.molecules,
    )  # fmt: skip


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

    from ..analysis.models import write_models
    from ..analysis.rank import read_ranking
    from ..io.lightdock import load_setup

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SparkledockError(f"top: n must be an integer of at least 1, got {n!r}")
    from ..analysis.options import ModelOptions, check_model_options

    check_model_options(options_of({"suffix": suffix}, ModelOptions, "top"), "top")
    solutions = read_ranking(ranking) if isinstance(ranking, str | os.PathLike) else ranking
    best = solutions[:n]
    loaded = setup_folder if hasattr(setup_folder, "layout") else load_setup(setup_folder)
    poses = numpy.array([r.pose for r in best]).reshape(-1, loaded.layout.size)
    paths = [Path(out) / f"top_{i + 1}{suffix}" for i in range(len(best))]
    write_models(loaded, poses, paths)
    return paths


def evaluate(
    reference: str | os.PathLike[str],
    model: str | os.PathLike[str],
    receptor_chains: Sequence[str] | None = None,
) -> Quality:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of a model against a reference complex, in
    ``sparkledock evaluate REFERENCE MODEL``'s order (the DockQ package's definitions; the
    built-in evaluation). ``receptor_chains``: the model's receptor chains (None: a model of
    two chains, the first; :class:`~sparkledock.analysis.options.EvaluateOptions`). A call
    with the two swapped (a sparkledock model given as the reference, a file that is not one
    as the model) is refused in one line.

    Raises:
        SparkledockError: swapped arguments, or a file that cannot be evaluated.
    """
    check_paths("evaluate", reference=reference, model=model)
    from ..analysis.evaluate import evaluate as evaluate_model
    from ..analysis.evaluate import refuse_swapped
    from ..analysis.options import EvaluateOptions, check_evaluate_options

    if isinstance(receptor_chains, list):
        receptor_chains = tuple(receptor_chains)
    options = options_of({"receptor_chains": receptor_chains}, EvaluateOptions, "evaluate")
    check_evaluate_options(options)

    order = "the reference comes first (evaluate(REFERENCE, MODEL), as on the command line)"
    refuse_swapped(reference, model, order)
    return evaluate_model(model, reference, options.receptor_chains)
