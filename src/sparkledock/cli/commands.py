"""The ``sparkledock`` subcommands: each translates its parsed arguments into a call of the
stage API (:mod:`sparkledock.workflow`, :mod:`sparkledock.docking`) and prints what it
wrote."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import SparkledockError
from ..version import __version__
from ..workflow.commands import (
    FILTERED_FILE,
    ScoreOptions,
    SetupDir,
    check_score_options,
    load_setup,
    prepare_scoring,
    read_poses,
)

if TYPE_CHECKING:
    from ..docking import DockOptions

#: Poses scored per call when streaming results (and reporting progress).
from .options import (
    CHUNK,
    engine_of,
    example_dir,
    options_by_name,
    report_run,
    run_options,
    setup_options,
)


def cmd_score(args: argparse.Namespace) -> int:
    options = ScoreOptions(**options_by_name(ScoreOptions, vars(args)))
    check_score_options(options)
    engine = engine_of(args)
    prepared = prepare_scoring(
        args.setup_dir,
        restraints=args.restraints,
        scoring=options.scoring,
        lightdock_compat=options.lightdock_compat,
        skip_unknown=options.skip_unknown,
    )
    poses = read_poses(args.poses, prepared.setup.layout)
    total = len(poses)
    start = time.perf_counter()
    threads = options.threads
    parts_of = getattr(prepared.function, "term_scores", None) if options.terms else None
    if options.terms:
        names = list(prepared.model.names) if parts_of else [prepared.function.name]
        sys.stdout.write(",".join(["score", *names]) + "\n")
    for first in range(0, total, CHUNK):
        chunk = poses[first : first + CHUNK]
        if parts_of is not None:  # each function's weighted score next to the total
            parts = parts_of(prepared.model, chunk, threads=threads, engine=engine)
            scores = sum(parts.values(), np.zeros(len(chunk)))
            columns = [scores, *parts.values()]
            rows = zip(*columns, strict=True)
            sys.stdout.write("".join(",".join(repr(float(v)) for v in r) + "\n" for r in rows))
        else:
            scores = prepared.score(chunk, threads=threads, engine=engine)
            repeat = 2 if options.terms else 1  # (one function: its term is the score)
            sys.stdout.write("".join(",".join([repr(float(s))] * repeat) + "\n" for s in scores))
        sys.stdout.flush()
        if total > CHUNK:
            done = min(first + CHUNK, total)
            rate = done / (time.perf_counter() - start)
            print(f"sparkledock: scored {done}/{total} poses ({rate:,.0f}/s)", file=sys.stderr)
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    from ..workflow import prepare

    options = setup_options(vars(args))
    prepare(
        args.receptor,
        args.ligand,
        args.output,
        options,
        restraints=args.restraints,
        force=args.force,
    )
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from ..workflow import execute
    from ..workflow.commands import mpi_world

    comm = mpi_world()
    options = run_options(vars(args), engine_of(args, exact=args.exact))
    result = execute(args.setup, args.steps, options, comm=comm)
    if not args.quiet:
        report_run(result, comm)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from ..workflow.commands import generate_models

    paths = generate_models(args.setup_dir, args.gso_file, args.glowworms, args.suffix)
    folder = Path(args.gso_file).parent
    print(f"sparkledock: wrote {len(paths)} models in {folder}", file=sys.stderr)
    return 0


def cmd_cluster(args: argparse.Namespace) -> int:
    from ..workflow.commands import cluster_swarm

    target = cluster_swarm(args.setup_dir, args.gso_file)
    print(f"sparkledock: wrote {target}", file=sys.stderr)
    return 0


def cmd_rank(args: argparse.Namespace) -> int:
    from ..workflow import rank
    from ..workflow.commands import RankOptions, write_ranking

    chosen = options_by_name(RankOptions, vars(args))
    chosen["unclustered"] = "refuse"  # (the command ranks what its cluster stage wrote)
    ranking = rank(args.setup_dir, args.step, swarms=range(args.swarms), **chosen)
    root = Path(args.setup_dir)
    if args.method == "dfire" and not args.diverse:
        target = SetupDir(root).ranking
    else:
        target = root / f"rank_by_{args.method}{'_diverse' if args.diverse else ''}.list"
    write_ranking(target, ranking)
    print(f"sparkledock: ranked {len(ranking)} solutions in {target}", file=sys.stderr)
    return 0


def cmd_filter(args: argparse.Namespace) -> int:
    from ..workflow import filter_ranking
    from ..workflow.commands import FilterOptions, write_ranking

    molecules = ("nucleic" if args.rnuc else "all", "nucleic" if args.lnuc else "all")
    chosen = options_by_name(FilterOptions, vars(args))
    filtered = filter_ranking(
        args.setup_dir, args.ranking, args.restraints, **chosen, molecules=molecules
    )
    target = Path(args.ranking).with_name(FILTERED_FILE)
    write_ranking(target, filtered.kept)
    for r, f in zip(filtered.ranking, filtered.fractions, strict=True):
        print(f"{SetupDir(Path()).model(r.swarm, r.glowworm)} {f:5.3f}")
    rule = (
        f"have the given pair within {args.pair_within:g} Å"
        if filtered.pairs is not None
        else f"satisfy at least {args.fnat:.0%} of the restraints"
    )
    print(
        f"sparkledock: {len(filtered.kept)} of {len(filtered.ranking)} solutions {rule}: {target}",
        file=sys.stderr,
    )
    return 0


def cmd_top(args: argparse.Namespace) -> int:
    from ..workflow import top

    out = Path(args.output)
    paths = top(args.setup_dir, args.ranking, args.n, out, suffix=args.suffix)
    print(
        f"sparkledock: wrote {len(paths)} models top_1..top_{len(paths)} in {out}",
        file=sys.stderr,
    )
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..workflow import evaluate
    from ..workflow.commands import EvaluateOptions, check_evaluate_options, refuse_swapped

    chains = args.receptor_chains
    check_evaluate_options(EvaluateOptions(receptor_chains=chains))  # (before any line)
    for model in args.models:  # (all checked before any is evaluated)
        order = "give the reference first (sparkledock evaluate REFERENCE MODELS...)"
        refuse_swapped(args.reference, model, order)
    print("model,DockQ,fnat,iRMSD,LRMSD,CAPRI")
    for model in args.models:
        q = evaluate(args.reference, model, chains)
        print(f"{model},{q.dockq:.4f},{q.fnat:.4f},{q.irmsd:.3f},{q.lrmsd:.3f},{q.capri}")
    return 0


def dock_options(args: argparse.Namespace, **fixed: int) -> DockOptions:
    """`dock`/`screen` options from the command line (``fixed``: defaults of --example's that
    the command line's options override):
    every :class:`~sparkledock.docking.DockOptions` field the command has an option of, by
    name, ``--no-map-modified`` turned around and the engine resolved."""
    from ..docking import DockOptions

    given = {k: v for k, v in options_by_name(DockOptions, vars(args)).items() if v is not None}
    chosen = {**fixed, **given}  # (what the command line gives wins over the example's)
    return DockOptions(**{**chosen, "engine": engine_of(args)})


def cmd_dock(args: argparse.Namespace) -> int:
    from ..docking import dock

    if args.example:
        given = [f for f in ("receptor", "ligand", "restraints", "reference") if getattr(args, f)]
        if given:
            raise SparkledockError(
                f"--example docks the bundled 2X9A files; it takes no {given[0]} (drop one)"
            )
        from ..workflow import example_files

        files = example_files()
        receptor, ligand = files["receptor"], files["ligand"]
        restraints, reference = files["restraints"], files["reference"]
        options = dock_options(args, steps=60, glowworms=100, swarms=20, top=5)
        out = args.output or "sparkledock_example"
    else:
        if not (args.receptor and args.ligand):
            raise SparkledockError("dock needs RECEPTOR and LIGAND (or --example)")
        receptor, ligand, restraints = args.receptor, args.ligand, args.restraints
        reference = args.reference
        options = dock_options(args)
        out = args.output or "sparkledock_out"
    from ..workflow.commands import mpi_world

    folder = dock(
        receptor,
        ligand,
        out,
        restraints=restraints,
        reference=reference,
        options=options,
        force=args.force,
        comm=mpi_world(),
    )
    if folder is None:  # an MPI rank other than 0
        return 0
    from ..runlog import LOGGER

    LOGGER.info(f"top models, ranking.csv, report.html and run.json in {folder}")
    return 0


def cmd_screen(args: argparse.Namespace) -> int:
    from ..docking.screen import failed_pairs, screen
    from ..workflow.commands import mpi_world

    summary = screen(
        args.pairs, args.output, options=dock_options(args), comm=mpi_world(), force=args.force
    )
    if summary is None:  # (MPI ranks other than 0)
        return 0
    sys.stdout.write(summary.read_text())
    failed = failed_pairs(args.output)
    print(
        f"sparkledock: per-pair results, summary.csv and screen_summary.csv in {args.output}"
        + (f"; {len(failed)} pair(s) not docked: {', '.join(failed)}" if failed else ""),
        file=sys.stderr,
    )
    return 1 if failed else 0


def cmd_demo(args: argparse.Namespace) -> int:
    ex = example_dir()
    reference = json.loads((ex / "lightdock_scores.json").read_text())
    setup = load_setup(ex)
    poses = read_poses(ex / "poses.dat", setup.layout)
    rows = []
    for label, restraints, key in (
        ("no restraints", None, "scores"),
        ("restraints", SetupDir(ex).restraints, "scores_with_restraints"),
    ):
        prepared = prepare_scoring(setup, restraints=restraints)
        prepared.score(poses[:1], threads=args.threads)  # compile once
        start = time.perf_counter()
        ours = prepared.score(poses, threads=args.threads)
        elapsed = time.perf_counter() - start
        ref = np.array(reference[key])
        rows.append((label, ours, ref, elapsed))
    print(
        f"sparkledock {__version__} demo: DFIRE scores of {len(poses)} poses of 2X9A "
        f"(example at {ex})"
    )
    print(f"{'':>4}  {'no restraints':^37}  {'with restraints':^37}")
    head = f"{'sparkledock':>18} {'LightDock 0.9.4':>18}"
    print(f"{'pose':>4}  {head}  {head}")
    for i in range(len(poses)):
        cells = [f"{rows[r][c][i]:>18.12f}" for r in (0, 1) for c in (1, 2)]
        print(f"{i + 1:>4}  {cells[0]} {cells[1]}  {cells[2]} {cells[3]}")
    ok = True
    for label, ours, ref, elapsed in rows:
        rel = float(np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300)))
        same = int(np.sum(ours == ref))
        ok &= rel <= 1e-9
        print(
            f"{label}: {same}/{len(ref)} scores bit-identical to LightDock 0.9.4, "
            f"max relative difference {rel:.1e}; {len(ref) / elapsed:,.0f} poses/s"
        )
    return 0 if ok else 1


def cmd_scoring_list(args: argparse.Namespace) -> int:
    """The scoring functions, their backends and the molecules they score."""
    from ..workflow.commands import describe_scoring

    for row in describe_scoring():
        notes = [f"needs sparkledock[{e}]" for e in row["extras"]]
        notes += ["fast mode"] * row["fast"] + ["rigid only (no normal modes)"] * row["rigid_only"]
        print(
            f"{row['name']:<10} backends: {', '.join(row['backends']):<20} "
            f"molecules: {', '.join(row['molecules']):<18} {row['summary']}"
            + (f" [{'; '.join(notes)}]" if notes else "")
        )
    return 0


def cmd_lightdock(args: argparse.Namespace) -> int:
    from ..lightdock.commands import main as lightdock_main

    return lightdock_main(args.name, args.arguments)


def cmd_lightdock_commands(args: argparse.Namespace) -> int:
    from ..lightdock.commands import install_commands

    written = install_commands(args.folder, force=args.force)
    print(
        f"sparkledock: wrote {', '.join(p.name for p in written)} in {args.folder}",
        file=sys.stderr,
    )
    return 0
