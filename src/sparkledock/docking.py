"""``sparkledock dock``: a whole docking, from two structures to ranked models and a report."""

from __future__ import annotations

import base64
import csv
import html
import io
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .analysis.cluster import write_cluster_repr
from .analysis.filter import satisfaction
from .analysis.models import write_models
from .analysis.rank import rank, write_ranking
from .backend import Engine
from .errors import InputFileError, SparkledockError, SparkledockWarning
from .fileutil import atomic_write_text
from .io.lightdock import load_setup
from .io.restraints import read_restraints
from .setup.prepare import SetupOptions, prepare_setup
from .simulation import run_simulation

FILTER_FRACTION = 0.4


@dataclass(frozen=True)
class DockOptions:
    """What a docking run does (LightDock's protocol by default)."""

    steps: int = 100
    glowworms: int = 200
    swarms: int = 0
    anm: bool = True
    top: int = 10
    seed: int = 324324
    threads: int | None = None
    quiet: bool = False
    engine: Engine | None = None


def _png(figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buffer.getvalue()).decode()


def _report(out: Path, history, cluster_sizes, rows, reference: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    images = []
    fig, ax = plt.subplots(figsize=(6, 3.5))
    steps = [h[0] for h in history]
    ax.plot(steps, [h[1] for h in history], label="best")
    ax.plot(steps, [h[2] for h in history], label="mean")
    ax.set_xlabel("GSO step")
    ax.set_ylabel("DFIRE score")
    ax.legend()
    images.append(("Score per step", _png(fig)))
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.hist(cluster_sizes, bins=max(1, min(30, max(cluster_sizes))))
    ax.set_xlabel("glowworms per cluster")
    ax.set_ylabel("clusters")
    images.append(("Cluster populations", _png(fig)))
    plt.close(fig)
    if reference:
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.scatter([r["score"] for r in rows], [r["DockQ"] for r in rows])
        ax.set_xlabel("DFIRE score")
        ax.set_ylabel("DockQ")
        images.append(("Score against DockQ (top models)", _png(fig)))
        plt.close(fig)
    head = list(rows[0].keys()) if rows else []
    table = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(r[k]))}</td>" for k in head) + "</tr>" for r in rows
    )
    body = "".join(f"<h2>{t}</h2><img src='data:image/png;base64,{b}'/>" for t, b in images)
    atomic_write_text(
        out / "report.html",
        (
            "<!doctype html><html><head><meta charset='utf-8'><title>sparkledock report</title>"
            "</head><body><h1>sparkledock docking report</h1><h2>Top models</h2><table border=1>"
            "<tr>"
            + "".join(f"<th>{k}</th>" for k in head)
            + "</tr>"
            + table
            + "</table>"
            + body
            + "</body></html>\n"
        ),
    )


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

    With an MPI communicator ``comm`` (more than one rank), rank 0 prepares and analyses,
    every rank runs swarms (:func:`sparkledock.parallel.run_parallel`); only rank 0 returns
    the folder, the others None.

    Raises:
        InputFileError: ``out`` exists and is not empty (unless ``force``), or bad inputs.
    """
    out = Path(out)
    if comm is not None and comm.Get_size() > 1:
        from .parallel import run_parallel, share_error

        setup_dir: Any = None
        if comm.Get_rank() == 0:
            try:
                setup_dir = _prepare(receptor, ligand, out, restraints, options, force)
            except SparkledockError as exc:
                setup_dir = exc
        setup_dir = share_error(setup_dir, comm)
        report = run_parallel(
            setup_dir,
            options.steps,
            comm,
            seed=options.seed,
            threads=options.threads,
            engine=options.engine,
            quiet=options.quiet,
        )
        if report is None:
            return None
        return _analyse(out, setup_dir, restraints, reference, options, report.history)
    setup_dir = _prepare(receptor, ligand, out, restraints, options, force)
    history: list[tuple[int, float, float]] = []
    run_simulation(
        setup_dir,
        options.steps,
        seed=options.seed,
        threads=options.threads,
        quiet=options.quiet,
        history=history,
        engine=options.engine,
    )
    return _analyse(out, setup_dir, restraints, reference, options, history)


def _prepare(receptor, ligand, out: Path, restraints, options: DockOptions, force: bool) -> Path:
    """Check the output folder and write the setup (``OUT/setup``)."""
    if out.exists() and any(out.iterdir()) and not force:
        raise InputFileError(f"{out}: output folder is not empty (use --force to reuse it)")
    out.mkdir(parents=True, exist_ok=True)
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
        ),
    )


def _analyse(out: Path, setup_dir: Path, restraints, reference, options: DockOptions, history):
    """Cluster, rank, filter, write the top models, ranking.csv and report.html."""
    setup = load_setup(setup_dir)
    n_swarms = int(setup.config["swarms"])
    sizes = []
    for swarm in range(n_swarms):
        path = write_cluster_repr(setup, setup_dir / f"swarm_{swarm}" / f"gso_{options.steps}.out")
        sizes.extend(int(line.split(":")[1]) for line in path.read_text().splitlines())
    ranking = rank(setup_dir, list(range(n_swarms)), options.steps)
    write_ranking(setup_dir / "rank_by_scoring.list", ranking)
    if restraints is not None:
        poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
        kept = satisfaction(setup, poses, read_restraints(setup_dir / "restraints.list"))
        filtered = [
            r for r, f in zip(ranking, kept, strict=True) if f >= FILTER_FRACTION and r.score > 0.0
        ]
        write_ranking(setup_dir / "rank_filtered.list", filtered)
        if filtered:
            ranking = filtered
        else:
            warnings.warn(
                f"{out}: no solution satisfies {FILTER_FRACTION:.0%} of the restraints; "
                "ranking all of them (run more steps?)",
                SparkledockWarning,
                stacklevel=2,
            )
    best = ranking[: options.top]
    poses = np.array([r.pose for r in best]).reshape(-1, setup.layout.size)
    names = [f"top_{i + 1}.pdb" for i in range(len(best))]
    write_models(setup, poses, [out / n for n in names])
    rows = []
    for i, r in enumerate(ranking):
        row = {
            "rank": i + 1,
            "score": round(r.score, 3),
            "model": names[i] if i < len(names) else "",
            "swarm": r.swarm,
            "glowworm": r.glowworm,
        }
        rows.append(row)
    if reference is not None:
        from .analysis.evaluate import evaluate

        for row in rows[: len(names)]:
            q = evaluate(out / row["model"], reference)
            row["DockQ"], row["CAPRI"] = round(q.dockq, 4), q.capri
        for row in rows[len(names) :]:
            row["DockQ"], row["CAPRI"] = "", ""
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0].keys()), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    atomic_write_text(out / "ranking.csv", buffer.getvalue())
    _report(out, history, sizes or [0], rows[: len(names)], reference is not None)
    return out
