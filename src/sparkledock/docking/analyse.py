"""A docking's analysis, the stages in order (:mod:`sparkledock.stages`): cluster, rank, the
blind default's site dockings, the restraint filter and the ranking of what it kept, the top
models (refined on request), evaluation against a reference, and the report; each a stage of
the run record (timed, announced, in run.json)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

from ..engine.context import setup_restraints
from ..errors import SparkledockWarning
from ..io.lightdock import GSOOutput, load_setup
from ..io.setupdir import FILTERED_FILE, SetupDir
from ..molecule.system import DockingSetup
from ..runlog import LOGGER, RunRecord, untimed
from ..stages import (
    cluster,
    evaluate_ranking,
    filter_ranking,
    rank,
    ranking_rows,
    refine,
    report,
    term_columns,
    top,
)
from .options import FILTER_FRACTION, DockOptions, pair_within
from .sites import SITE_ORDER, SITES_FOLDER, SiteModel, site_count


def _model_identity(method: str | None) -> dict[str, str]:
    """What run.json records of a learned ranking's model: its file's hash (nothing for the
    other methods)."""
    from ..analysis.learned import METHOD_MODELS, model_hash

    return {"model": model_hash(METHOD_MODELS[method])} if method in METHOD_MODELS else {}


def ranking_identity(options: DockOptions) -> dict[str, str]:
    """What a finished docking's ranking depends on besides the run (its record keeps it):
    the method and, for a learned one, the shipped model's hash. A finished docking asked
    again with another is ranked again (:func:`sparkledock.docking.dock`), not docked."""
    identity = {"rank_method": str(options.rank_method), **_model_identity(options.rank_method)}
    if options.redock_sites != 0:  # (and the site dockings' own ranking model)
        sites = options.redock_sites
        identity["redock_sites"] = "the protocol's" if sites is None else str(sites)
        identity["site_model"] = _model_identity("learned")["model"]
        identity["site_order"] = SITE_ORDER
    return identity


def _remarks(best: list, origins: dict[int, str]) -> list[list[str]]:
    """The REMARK lines each top model opens with: what wrote it, its rank and origin (a
    site docking's, ``origins``, by position)."""
    from ..version import __version__

    return [
        [
            f"REMARK   1 sparkledock {__version__} model {i + 1}",
            f"REMARK   1 rank {i + 1} score {r.score:.3f} swarm {r.swarm} glowworm {r.glowworm}"
            + (f" of {origins[i]}" if i in origins else ""),
        ]
        for i, r in enumerate(best)
    ]


def analyse(
    out: Path,
    setup: Path | DockingSetup,
    restraints,
    reference,
    options: DockOptions,
    history,
    final: dict[int, GSOOutput] | None = None,
    runrec: RunRecord | None = None,
    sites: Callable[[DockingSetup, list, int], list[SiteModel]] | None = None,
):
    """Cluster, rank, filter, write the top models, ranking.csv and report.html; each a stage
    of ``runrec`` when given (timed, announced, in run.json).

    ``final``: the run's last glowworms per swarm, as the run returned them; a swarm missing
    there (a resumed docking) is read from its gso file. ``sites`` (blind docking,
    ``--redock-sites``): given the setup, the ranking and how many sites, the site dockings'
    best models, ranked first (:mod:`.sites`).
    """
    from ..analysis.rank import write_ranking

    if not isinstance(setup, DockingSetup):
        setup = load_setup(setup)
    if options.rank_method is None:  # (the caller resolves the protocol: .knowledge.resolve)
        raise ValueError("analyse: options must have the protocol's defaults decided")
    stage = runrec.stage if runrec is not None else untimed
    folder = SetupDir(setup.path)
    steps = options.steps
    with stage("cluster", f"{setup.n_swarms} swarms") as info:
        pool = cluster(setup, steps, final=final)
        info["summary"] = f"{len(pool.sizes)} cluster representatives"
    docked_with = setup_restraints(setup) if restraints is not None else None
    reorder = options.rank_method != "dfire" or options.diverse
    method = f"{options.rank_method}{' (diverse)' if options.diverse else ''}"
    ordered = {"method": options.rank_method, "diverse": options.diverse, "pool": pool}
    with stage("rank", f"by {method if docked_with is None else 'score'}") as info:
        ranking = rank(setup, steps, pool=pool)
        write_ranking(folder.ranking, ranking)  # LightDock's rank_by_scoring.list, by score
        if reorder and docked_with is None:
            ranking = rank(setup, steps, **ordered)
            info.update(_model_identity(options.rank_method))
    front: list[SiteModel] = []
    count = site_count(options, setup) if sites is not None and docked_with is None else 0
    if count:
        with stage("sites", f"the first {count} sites docked again") as info:
            front = sites(setup, ranking, count)
            ranking = [m.solution for m in front] + ranking
            info["summary"] = f"{len(front)} site models ranked first"
    origins = {i: f"{SITES_FOLDER}/site_{m.site}" for i, m in enumerate(front)}
    fractions = None
    if docked_with is not None:
        within = pair_within(options)
        with stage("filter", f"{FILTER_FRACTION:.0%} of the restraints") as info:
            judged = filter_ranking(
                setup, ranking, docked_with, positive=False, fnat=FILTER_FRACTION,
                pair_within=within,
            )  # fmt: skip
            fractions = {
                (r.swarm, r.glowworm): float(f)
                for r, f in zip(ranking, judged.fractions, strict=True)
            }
            filtered = judged.kept
            write_ranking(folder.root / FILTERED_FILE, filtered)
            info["summary"] = f"{len(filtered)} of {len(ranking)} solutions kept" + (
                f" (the given pair within {within:g} Å)" if judged.pairs is not None else ""
            )
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
            with stage("rerank", f"{len(ranking)} solutions by {method}") as info:
                info.update(_model_identity(options.rank_method))
                ranking = rank(setup, steps, solutions=ranking, restraints=docked_with, **ordered)
    best = ranking[: options.top]
    with stage("models", f"the top {len(best)}") as info:
        models = top(setup, best, max(len(best), 1), out, remarks=_remarks(best, origins))
        names = [path.name for path in models]
        terms = term_columns(setup, docked_with, options.scoring, ranking)
        info["summary"] = f"top_1..top_{len(best)}.pdb" if names else "none"
    rows = ranking_rows(
        ranking, names, pool, origins=origins, front_sizes=[m.cluster_size for m in front],
        fractions=fractions, terms=terms,
    )  # fmt: skip
    if reference is not None:
        with stage("evaluate", f"{len(rows)} ranked models against {Path(reference).name}") as info:
            for row, quality in zip(rows, evaluate_ranking(setup, ranking, reference), strict=True):
                row.update(quality)
            if names:
                info["summary"] = f"top 1 DockQ {rows[0]['DockQ']} ({rows[0]['CAPRI']})"
    if options.refine and names:
        with stage("refine", f"{len(names)} models with OpenMM"):
            _refined_columns(setup, out, rows, models, reference, options)
    with stage("report", "ranking.csv, interface.csv and report.html"):
        report(
            out, setup, pool, rows, best, models, steps=steps, history=history,
            scoring=options.scoring, evaluated=reference is not None,
            top_swarms=[r.swarm for i, r in enumerate(best) if i not in origins],
            record=runrec.as_dict() if runrec is not None else None,
        )  # fmt: skip
    if runrec is not None:
        first = rows[0] if rows else {}
        result = runrec.result
        result.update({"ranked": len(rows), "models": names, "top_score": first.get("score")})
        if reference is not None:
            result.update({"top_dockq": first.get("DockQ"), "top_capri": first.get("CAPRI")})
    return out


def _refined_columns(setup, out: Path, rows, models, reference, options: DockOptions) -> None:
    """Refine the written top models into ``out/refined`` (:func:`~sparkledock.stages.refine`)
    and add each one's clashes before and after (and its DockQ after, with a reference) to
    its ranking row; the other rows get empty cells."""
    refined = refine(
        setup, models, out / "refined", reference, threads=options.threads, progress=LOGGER.info
    )
    for row, result in zip(rows, refined, strict=False):
        row["clashes"] = result.clashes_before
        row["refined_model"] = str(result.path.relative_to(out))
        row["clashes_refined"] = result.clashes_after
        if reference is not None:
            row["DockQ_refined"] = result.dockq
    for row in rows[len(refined) :]:
        row.update(dict.fromkeys(("clashes", "refined_model", "clashes_refined"), ""))
        if reference is not None:
            row["DockQ_refined"] = ""
