"""The report stage: a ranking as ``ranking.csv``'s rows (:func:`ranking_rows`, with each
weighted function's terms, :func:`term_columns`), and ``ranking.csv``, ``interface.csv`` and
``report.html`` written from them (:func:`report`)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..analysis.rank import Ranked
    from ..molecule.restraints import Restraints
    from ..molecule.system import DockingSetup
    from .ranking import Pool


def term_columns(
    setup: DockingSetup, restraints: Restraints | None, scoring: str, ranking: Sequence[Ranked]
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


def ranking_rows(
    ranking: Sequence[Ranked],
    names: Sequence[str],
    pool: Pool,
    *,
    origins: Mapping[int, str] | None = None,
    front_sizes: Sequence[int] = (),
    fractions: Mapping[tuple[int, int], float] | None = None,
    terms: Mapping[str, np.ndarray] | None = None,
) -> list[dict[str, Any]]:
    """``ranking.csv``'s rows: rank, score, model file (the first ``len(names)``), swarm,
    glowworm, cluster size (the site models', ``front_sizes``, first), the site docking each
    came from (``origins``, by position, a blind docking's), restraint satisfaction
    (``fractions``, a restrained docking's), each weighted term and the pose."""
    rows = []
    for i, r in enumerate(ranking):
        row: dict[str, Any] = {
            "rank": i + 1,
            "score": round(r.score, 3),
            "model": names[i] if i < len(names) else "",
            "swarm": r.swarm,
            "glowworm": r.glowworm,
            "cluster_size": front_sizes[i]
            if i < len(front_sizes)
            else pool.sizes.get((r.swarm, r.glowworm), ""),
        }
        if front_sizes:
            row["site"] = (origins or {}).get(i, "")
        if fractions is not None:
            row["restraints"] = round(fractions[(r.swarm, r.glowworm)], 3)
        row.update({column: round(float(v[i]), 3) for column, v in (terms or {}).items()})
        row["pose"] = " ".join(f"{x:.7f}" for x in r.pose)
        rows.append(row)
    return rows


def _viewer_models(setup: DockingSetup, models: Sequence[Path]) -> tuple[str, list[str]]:
    """The receptor (from the first model) and each model's ligand, as PDB text."""
    receptor_chains = set(setup.receptor.atoms.chain.astype(str))
    receptor, ligands = "", []
    for i, path in enumerate(models):
        lines = [x for x in path.read_text().splitlines() if x.startswith(("ATOM", "HETATM"))]
        if i == 0:
            receptor = "\n".join(x for x in lines if x[21] in receptor_chains) + "\n"
        ligands.append("\n".join(x for x in lines if x[21] not in receptor_chains) + "\n")
    return receptor, ligands


def report(
    out: Path,
    setup: DockingSetup,
    pool: Pool,
    rows: Sequence[dict[str, Any]],
    best: Sequence[Ranked],
    models: Sequence[Path],
    *,
    steps: int,
    history: Any,
    scoring: str,
    evaluated: bool,
    top_swarms: Sequence[int],
    record: dict[str, Any] | None = None,
) -> None:
    """``ranking.csv`` (``rows``), ``interface.csv`` (the contacts of the ``best``
    solutions, modelled as ``models``) and ``report.html`` (the run's ``history``, the
    pool's clusters, the ranking, the models in a viewer, ``record``: the run record) in
    ``out``."""
    from ..analysis.contacts import consensus_interface, pose_interfaces
    from ..analysis.convergence import swarm_convergence
    from ..analysis.report import Cluster, interface_csv, write_report
    from ..engine.spec import SAVE_EVERY
    from ..fileutil import atomic_write_text
    from ..io.setupdir import SetupDir

    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0].keys()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    atomic_write_text(out / "ranking.csv", buffer.getvalue())
    receptor_pdb, ligand_pdbs = _viewer_models(setup, models)
    swarms = range(setup.n_swarms)
    convergence = swarm_convergence(SetupDir(setup.path), swarms, steps, SAVE_EVERY)
    poses = np.array([r.pose for r in best]).reshape(-1, setup.layout.size)
    interfaces = pose_interfaces(setup, poses) if len(best) else []
    consensus = consensus_interface(interfaces)
    atomic_write_text(out / "interface.csv", interface_csv(consensus, len(interfaces)))
    groups = [
        Cluster(swarm, m[0], len(m), float(data.scores[m].max()), float(data.scores[m].mean()))
        for swarm, (data, _) in pool.chosen.items()
        for m in pool.members.get(swarm, ())
    ]
    swarm_best = {swarm: float(data.scores.max()) for swarm, (data, _) in pool.chosen.items()}
    write_report(
        out, history, groups, rows, evaluated, scoring, record=record,
        receptor_pdb=receptor_pdb, ligand_pdbs=ligand_pdbs, swarm_best=swarm_best,
        convergence=convergence, top_swarms=top_swarms, interfaces=interfaces,
        consensus=consensus,
    )  # fmt: skip
