"""A docking's analysis stages: clustering, ranking, the restraint filter, the top models
(refined on request), evaluation against a reference, ranking.csv and report.html."""

from __future__ import annotations

import csv
import io
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..analysis.cluster import cluster_glowworms, format_cluster_repr
from ..analysis.contacts import consensus_interface, pose_interfaces
from ..analysis.convergence import swarm_convergence
from ..analysis.filter import filter_solutions
from ..analysis.models import write_models
from ..analysis.rank import rank_glowworms, write_ranking
from ..analysis.ranking import rerank, rerank_kept
from ..analysis.report import Cluster, interface_csv, write_report
from ..engine.context import setup_restraints
from ..engine.spec import SAVE_EVERY
from ..errors import SparkledockWarning
from ..fileutil import atomic_write_text
from ..io.lightdock import GSOOutput, load_setup, read_gso_output
from ..io.setupdir import FILTERED_FILE, SetupDir
from ..molecule.system import DockingSetup
from ..runlog import LOGGER, RunRecord, untimed
from .options import FILTER_FRACTION, DockOptions
from .sites import SITE_ORDER, SITES_FOLDER, SiteModel, site_count


def _refine_top(
    setup: DockingSetup, out: Path, rows: list[dict], reference: Path | None, options: DockOptions
) -> None:
    """Refine the written top models into ``out/refined`` and add each one's clashes before
    and after (and its DockQ after, with a reference) to its ranking row."""
    from ..analysis.refine import refine_models
    from ..molecule.system import ligand_chain_ids

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
            from ..analysis.evaluate import evaluate

            row["DockQ_refined"] = round(evaluate(result.path, reference).dockq, 4)


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


def _evaluate_rows(setup, out: Path, ranking, rows, names, reference) -> None:
    """fnat, iRMSD, LRMSD, DockQ and CAPRI class of every ranked row, by
    :mod:`sparkledock.analysis.quality`'s vectorised pass over their poses (equal to the DockQ
    package's values on the written models; tested), partners of several chains included."""
    from ..analysis.evaluate import capri_class
    from ..analysis.quality import pose_quality, quality_reference

    ref = quality_reference(setup, reference)
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    q = pose_quality(ref, setup, poses) if len(poses) else {}
    for k, row in enumerate(rows):
        fnat, irmsd, lrmsd = (float(q[n][k]) for n in ("fnat", "irmsd", "lrmsd"))
        row.update(
            fnat=round(fnat, 4), iRMSD=round(irmsd, 3), LRMSD=round(lrmsd, 3),
            DockQ=round(float(q["dockq"][k]), 4), CAPRI=capri_class(fnat, irmsd, lrmsd),
        )  # fmt: skip


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


def term_columns(
    setup: DockingSetup, restraints, scoring: str, ranking: list
) -> dict[str, np.ndarray]:
    """For a weighted combination, each function's weighted score of every ranked solution
    (``score_<name>`` columns of ``ranking.csv``); nothing for a single function.

    The terms score each pose as its gso file keeps it (7 decimals), so they add up to
    ``score`` (the run's unrounded pose) to rounding, which on a clash pose is ~1e-5 relative."""
    from ..scoring import get_scoring
    from ..scoring.prepared import prepare_scoring

    if not hasattr(get_scoring(scoring), "term_scores") or not ranking:
        return {}
    prepared = prepare_scoring(setup, restraints=restraints, scoring=scoring)
    parts_of = prepared.function.term_scores
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    parts = parts_of(prepared.model, poses)
    return {f"score_{name}": values for name, values in parts.items()}


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
    if not isinstance(setup, DockingSetup):
        setup = load_setup(setup)
    if options.rank_method is None:  # (the caller resolves the protocol: .knowledge.resolve)
        raise ValueError("analyse: options must have the protocol's defaults decided")
    stage = runrec.stage if runrec is not None else untimed
    folder = SetupDir(setup.path)
    n_swarms = setup.n_swarms
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
    with stage("rank", f"by {method if docked_with is None else 'score'}") as info:
        ranking = rank_glowworms(chosen)
        write_ranking(folder.ranking, ranking)  # LightDock's rank_by_scoring.list, by score
        if reorder and docked_with is None:
            ranking = rerank(
                setup, chosen, options.rank_method, options.diverse, cluster_sizes=population
            )
            info.update(_model_identity(options.rank_method))
    front: list[SiteModel] = []
    count = site_count(options, setup) if sites is not None and docked_with is None else 0
    if count:
        with stage("sites", f"the first {count} sites docked again") as info:
            front = sites(setup, ranking, count)
            ranking = [m.solution for m in front] + ranking
            info["summary"] = f"{len(front)} site models ranked first"
    origins = {i: f"{SITES_FOLDER}/site_{m.site}" for i, m in enumerate(front)}
    if docked_with is not None:
        with stage("filter", f"{FILTER_FRACTION:.0%} of the restraints") as info:
            judged = filter_solutions(setup, ranking, docked_with, FILTER_FRACTION)
            fraction = {
                (r.swarm, r.glowworm): float(f)
                for r, f in zip(ranking, judged.fractions, strict=True)
            }
            filtered = judged.kept
            write_ranking(folder.root / FILTERED_FILE, filtered)
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
            with stage("rerank", f"{len(ranking)} solutions by {method}") as info:
                info.update(_model_identity(options.rank_method))
                ranking = rerank_kept(
                    setup, chosen, ranking, options.rank_method, options.diverse, docked_with,
                    cluster_sizes=population,
                )  # fmt: skip
    best = ranking[: options.top]
    names = [f"top_{i + 1}.pdb" for i in range(len(best))]
    with stage("models", f"the top {len(best)}") as info:
        poses = np.array([r.pose for r in best]).reshape(-1, setup.layout.size)
        write_models(setup, poses, [out / n for n in names], _remarks(best, origins))
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
            "cluster_size": front[i].cluster_size
            if i < len(front)
            else population.get((r.swarm, r.glowworm), ""),
        }
        if front:
            row["site"] = origins.get(i, "")
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
    with stage("report", "ranking.csv, interface.csv and report.html"):
        buffer = io.StringIO()
        if rows:
            writer = csv.DictWriter(buffer, fieldnames=list(rows[0].keys()), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        atomic_write_text(out / "ranking.csv", buffer.getvalue())
        receptor_pdb, ligand_pdbs = _viewer_models(setup, [out / n for n in names])
        convergence = swarm_convergence(folder, range(n_swarms), options.steps, SAVE_EVERY)
        top_poses = np.array([r.pose for r in best]).reshape(-1, setup.layout.size)
        interfaces = pose_interfaces(setup, top_poses) if len(best) else []
        consensus = consensus_interface(interfaces)
        atomic_write_text(out / "interface.csv", interface_csv(consensus, len(interfaces)))
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
            top_swarms=[r.swarm for i, r in enumerate(best) if i not in origins],
            interfaces=interfaces,
            consensus=consensus,
        )
    if runrec is not None:
        top = rows[0] if rows else {}
        runrec.result.update({"ranked": len(rows), "models": names, "top_score": top.get("score")})
        if reference is not None:
            runrec.result.update({"top_dockq": top.get("DockQ"), "top_capri": top.get("CAPRI")})
    return out
