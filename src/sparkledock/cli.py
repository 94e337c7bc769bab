"""The ``sparkledock`` command: a thin shell over :mod:`sparkledock.api`.

Errors on bad input print one line (``sparkledock: error: ...``) and exit 1; warnings print
one line each on standard error.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import sys
import time
import warnings
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import __version__
from .api import prepare_scoring
from .backend import BACKENDS, PRECISIONS, Engine, resolve_engine
from .errors import SparkledockError
from .fileutil import folder_lock
from .io.lightdock import load_setup, read_poses
from .io.setupdir import SetupDir, model_name
from .scoring import SCORING_FUNCTIONS
from .seeds import DEFAULT_SEED

if TYPE_CHECKING:
    from .docking import DockOptions

#: Poses scored per call when streaming results (and reporting progress).
CHUNK = 8192


def show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"sparkledock: warning: {message}", file=sys.stderr)


def example_dir() -> Path:
    """Folder of the bundled 2X9A example (a LightDock setup plus poses)."""
    return Path(str(resources.files("sparkledock").joinpath("data/example")))


def add_engine_options(p: argparse.ArgumentParser, backends: Sequence[str] = BACKENDS) -> None:
    """--backend, --device and --precision (resolved in :func:`engine_of`)."""
    p.add_argument(
        "--backend",
        default="auto",
        choices=backends,
        help="numba: CPU kernel (LightDock's scores bit for bit); torch: PyTorch on CPU or GPU; "
        "auto (default): torch on a GPU if there is one, else numba",
    )
    p.add_argument("--device", default=None, help="torch device: cpu, cuda or cuda:N")
    p.add_argument(
        "--precision",
        default="fp64",
        choices=PRECISIONS,
        help="torch arithmetic: fp64 (LightDock's scores to 1e-9) or fp32 (to 1e-4, faster)",
    )


def add_scoring_option(p: argparse.ArgumentParser, what: str) -> None:
    """--scoring: a function, a weighted combination or a LightDock scoring file."""
    p.add_argument(
        "--scoring",
        default="dfire",
        help=f"{what}: a name ({', '.join(sorted(SCORING_FUNCTIONS))}), a weighted "
        "combination such as dfire:1,vdw:0.5, or a LightDock scoring file (default: dfire)",
    )


def add_scoring_mode_option(p: argparse.ArgumentParser, docking: bool = False) -> None:
    """--scoring-mode (run; dock and screen, whose default follows the restraints)."""
    default = (
        "default: fast for a DFIRE docking without restraints, exact otherwise"
        if docking
        else "default: exact"
    )
    p.add_argument(
        "--scoring-mode",
        default=None if docking else "exact",
        choices=("exact", "fast", "fast-flex"),
        help="exact: every score exact; fast: the search scores with DFIRE's field on a grid "
        "(numba or torch), the final glowworms are re-scored exactly; fast-flex: fast, with the "
        f"receptor's normal modes as a local shift of the ligand ({default})",
    )


def add_logging_options(p: argparse.ArgumentParser) -> None:
    """--quiet, --verbose and --log-file (read by :func:`main`)."""
    p.add_argument("--quiet", action="store_true", help="warnings and errors only, no progress")
    p.add_argument("--verbose", action="store_true", help="more detail on each stage")
    p.add_argument("--log-file", metavar="FILE", help="also write every message, timed, here")


def add_protocol_options(p: argparse.ArgumentParser, top_help: str) -> None:
    """The docking protocol's options that ``dock`` and ``screen`` share (read by
    :func:`dock_options`), plus threads, quiet and the engine."""
    p.add_argument("--steps", type=int, default=100, help="GSO steps (100)")
    p.add_argument("-g", "--glowworms", type=int, default=200, help="glowworms per swarm (200)")
    p.add_argument("-s", "--swarms", type=int, default=0, help="default: LightDock's rule")
    p.add_argument("--top", type=int, default=10, help=top_help)
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all)")
    add_logging_options(p)
    add_scoring_option(p, "scoring function of the search")
    add_scoring_mode_option(p, docking=True)
    add_spacing_options(p)
    add_stop_option(p, "default: the protocol's")
    add_engine_options(p)


def at_least(least: int):
    """An argparse type: an integer no smaller than ``least`` (argparse reports the rest)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    parse.__name__ = f"integer >= {least}"
    return parse


def add_modified_option(p: argparse.ArgumentParser) -> None:
    """--no-map-modified (setup and dock)."""
    p.add_argument(
        "--no-map-modified",
        action="store_true",
        help="drop modified residues (MSE, SEP, TPO, PTR, ...) as hetero groups instead of "
        "reading them as their parent amino acids",
    )


def add_rank_options(p: argparse.ArgumentParser, flag: str) -> None:
    """The ranking method and the diversity switch (``rank --method``, ``dock --rank-method``)."""
    from .analysis.ranking import NEEDS

    p.add_argument(
        flag,
        dest="method" if flag == "--method" else "rank_method",
        default="dfire" if flag == "--method" else None,
        help=f"how to rank the representatives: {', '.join(NEEDS)} (default: "
        + (
            "dfire, by score as LightDock"
            if flag == "--method"
            else "soft_consensus without restraints, dfire (by score, as LightDock) with them"
        )
        + "; rank_by_scoring.list is always by score)",
    )
    p.add_argument(
        "--diverse",
        action="store_true",
        help="move representatives within 5 Å ligand RMSD of a better-ranked one back",
    )


def add_spacing_options(p: argparse.ArgumentParser) -> None:
    """--protocol and --swarm-spacing (setup, dock, screen)."""
    from .docking import PROTOCOLS, RESTRAINED_SPACING_A

    p.add_argument(
        "--protocol",
        default="sparkledock",
        choices=PROTOCOLS,
        help="sparkledock (default): with restraints, swarms cover the restraint patch "
        f"{RESTRAINED_SPACING_A:g} Å apart, fast search, restraint-aware ranking; lightdock: "
        "LightDock 0.9.4's protocol (20 swarms per restraint residue, exact search, ranking by "
        "score)",
    )
    p.add_argument(
        "--swarm-spacing",
        dest="swarm_spacing",
        type=float,
        default=None,
        metavar="Å",
        help="with receptor restraints: swarm centres cover the restraint patch this far apart "
        "(0: LightDock 0.9.4's 20 per restraint residue; default: the protocol's)",
    )


def add_stop_option(p: argparse.ArgumentParser, default_help: str) -> None:
    """--stop-tolerance (run, dock, screen)."""
    p.add_argument(
        "--stop-tolerance",
        dest="stop_tolerance",
        type=float,
        default=0.0 if "every swarm" in default_help else None,
        metavar="T",
        help="stop a swarm once its best and mean scores rose by at most T x max(1, |best|) "
        f"over 10 steps (checked from step 30; {default_help})",
    )


def add_placement_options(p: argparse.ArgumentParser) -> None:
    """Where swarms go besides restraints (``setup`` and ``dock``): ``--membrane`` /
    ``--transmembrane`` / ``--paratope``, one at most."""
    side = p.add_mutually_exclusive_group()
    side.add_argument(
        "--membrane",
        "-membrane",
        action="store_true",
        help="swarms only above the receptor's membrane beads (MMB residues)",
    )
    side.add_argument(
        "--transmembrane",
        "-transmembrane",
        action="store_true",
        help="swarms only between the receptor's two membrane layers",
    )
    side.add_argument(
        "--paratope",
        action="store_true",
        help="antibody receptor: swarms only on its CDRs (found from its sequence), the ranking "
        "favouring poses whose antibody contacts are CDR residues",
    )


def engine_of(args: argparse.Namespace, exact: bool = False) -> Engine:
    """The engine the options ask for (an :class:`EngineError`, one line, otherwise)."""
    return resolve_engine(args.backend, args.device, args.precision, exact=exact)


def cmd_score(args: argparse.Namespace) -> int:
    engine = engine_of(args)
    prepared = prepare_scoring(
        args.setup_dir,
        restraints=args.restraints,
        scoring=args.scoring,
        lightdock_compat=not args.no_lightdock_compat,
        skip_unknown=args.skip_unknown,
    )
    poses = read_poses(args.poses, prepared.setup.layout)
    total = len(poses)
    start = time.perf_counter()
    parts_of = getattr(prepared.function, "term_scores", None) if args.terms else None
    if args.terms:
        names = list(prepared.model.names) if parts_of else [prepared.function.name]
        sys.stdout.write(",".join(["score", *names]) + "\n")
    for first in range(0, total, CHUNK):
        chunk = poses[first : first + CHUNK]
        if parts_of is not None:  # each function's weighted score next to the total
            parts = parts_of(prepared.model, chunk, threads=args.threads, engine=engine)
            scores = sum(parts.values(), np.zeros(len(chunk)))
            columns = [scores, *parts.values()]
            rows = zip(*columns, strict=True)
            sys.stdout.write("".join(",".join(repr(float(v)) for v in r) + "\n" for r in rows))
        else:
            scores = prepared.score(chunk, threads=args.threads, engine=engine)
            repeat = 2 if args.terms else 1  # (one function: its term is the score)
            sys.stdout.write("".join(",".join([repr(float(s))] * repeat) + "\n" for s in scores))
        sys.stdout.flush()
        if total > CHUNK:
            done = min(first + CHUNK, total)
            rate = done / (time.perf_counter() - start)
            print(f"sparkledock: scored {done}/{total} poses ({rate:,.0f}/s)", file=sys.stderr)
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    from .docking import protocol_spacing
    from .setup.prepare import SetupOptions, prepare_setup

    spacing = args.swarm_spacing
    if spacing is None:
        restrained = args.restraints is not None
        spacing = protocol_spacing(args.protocol, restrained, getattr(args, "paratope", False))

    options = SetupOptions(
        glowworms=args.glowworms,
        swarms=args.swarms,
        anm=args.anm,
        anm_rec=args.anm_rec,
        anm_lig=args.anm_lig,
        anm_rmsd=args.anm_rmsd,
        anm_lig_rmsd=args.anm_lig_rmsd,
        anm_seed=args.anm_seed,
        noxt=args.noxt,
        noh=args.noh,
        now=args.now,
        seed=args.seed,
        swarm_radius=args.swarm_radius,
        skip_unknown=args.skip_unknown,
        map_modified=not args.no_map_modified,
        scoring=args.scoring,
        surface_density=args.surface_density,
        fixed_distance=args.fixed_distance,
        swarms_per_restraint=args.swarms_per_restraint,
        swarm_spacing=spacing,
        dense_sampling=args.dense_sampling,
        flip=args.flip,
        membrane=args.membrane,
        transmembrane=args.transmembrane,
        paratope=getattr(args, "paratope", False),
        lightdock_poses=args.lightdock_poses,
        write_starting_positions=args.starting,
    )
    from .runlog import LOGGER, RunRecord, file_record

    runrec = RunRecord(Path(args.output), "setup", options=options)
    files = {"receptor": args.receptor, "ligand": args.ligand, "restraints": args.restraints}
    with folder_lock(args.output):
        runrec.inputs = {k: file_record(v) for k, v in files.items() if v is not None}
        with runrec.stage("setup", f"{Path(args.receptor).name} + {Path(args.ligand).name}"):
            out = prepare_setup(
                args.receptor,
                args.ligand,
                args.output,
                restraints=args.restraints,
                options=options,
                force=args.force,
                progress=lambda line: LOGGER.info(f"setup: {line}"),
            )
    config = json.loads(SetupDir(out).setup_json.read_text())
    runrec.finish(swarms=config["swarms"], glowworms=config["glowworms"])
    LOGGER.info(f"setup in {out}: {config['swarms']} swarms × {args.glowworms} glowworms")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .parallel import mpi_world

    engine = engine_of(args, exact=args.exact)
    comm = mpi_world()
    setup = Path(args.setup)
    root = setup if setup.is_dir() else setup.parent
    if not SetupDir(root).setup_json.is_file():
        raise SparkledockError(f"{SetupDir(root).setup_json}: no such file (not a setup folder?)")
    with contextlib.ExitStack() as stack:
        lead = comm is None or comm.Get_rank() == 0
        if lead:  # one process at a time per setup folder
            stack.enter_context(folder_lock(root))
        from .runlog import RunRecord, untimed

        name = f"{engine.backend} {engine.device} {engine.precision}"
        runrec = RunRecord(root, "run", options=vars_of(args), engine=name)
        with runrec.stage("run", f"{args.steps} steps") if lead else untimed("run"):
            code = _run(args, engine, comm)
        if lead:
            runrec.finish()
        return code


def vars_of(args: argparse.Namespace) -> dict:
    """A command's options as recorded in run.json (without the function it dispatches to)."""
    return {k: v for k, v in vars(args).items() if k != "func"}


def gso_params_of(args: argparse.Namespace):
    """The GSO constants (``--gso-config``) and step sizes of a run's options."""
    from dataclasses import replace

    from .gso import GSOParameters
    from .io.gsoconfig import read_gso_config

    config = getattr(args, "gso_config", None)
    params = read_gso_config(config) if config else GSOParameters()
    steps = {k: getattr(args, k, 0.5) for k in ("translation_step", "rotation_step", "nmodes_step")}
    for name, value in steps.items():
        if not value > 0:
            raise SparkledockError(f"--{name.replace('_', '-')} must be positive, got {value}")
    minimize = bool(getattr(args, "local_minimization", False))
    return replace(params, **steps, local_minimization=minimize)


def _run(args: argparse.Namespace, engine: Engine, comm) -> int:
    from .driver import run_simulation

    result = run_simulation(
        args.setup,
        args.steps,
        swarms=args.swarms,
        scoring=args.scoring,
        seed=args.seed,
        exact=args.exact,
        scoring_mode=args.scoring_mode,
        threads=args.threads,
        quiet=args.quiet,
        engine=engine,
        comm=comm,
        swarms_per_task=args.swarms_per_task,
        gso_params=gso_params_of(args),
        stop_tolerance=args.stop_tolerance,
    )
    if result is None or args.quiet:
        return 0
    if comm is not None:
        print(
            f"sparkledock: {result.tasks} tasks on {result.ranks} ranks in "
            f"{result.wall_seconds:.1f} s (busy-time imbalance {result.imbalance:.2f}, "
            f"{result.skipped} swarms already done)",
            file=sys.stderr,
        )
    else:
        print(f"sparkledock: wrote swarm_*/gso_*.out in {result.root}", file=sys.stderr)
    return 0


def cmd_generate(args: argparse.Namespace) -> int:
    from .analysis.models import write_models
    from .io.lightdock import read_gso_output

    setup = load_setup(args.setup_dir)
    data = read_gso_output(args.gso_file)
    count = min(args.glowworms, len(data.poses))
    folder = Path(args.gso_file).parent
    suffix = ".cif" if args.format == "cif" else ".pdb"
    names = [Path(model_name(i)).with_suffix(suffix).name for i in range(count)]
    write_models(setup, data.poses[:count], [folder / n for n in names])
    print(f"sparkledock: wrote {count} models in {folder}", file=sys.stderr)
    return 0


def cmd_cluster(args: argparse.Namespace) -> int:
    from .analysis.cluster import write_cluster_repr

    target = write_cluster_repr(load_setup(args.setup_dir), args.gso_file)
    print(f"sparkledock: wrote {target}", file=sys.stderr)
    return 0


def cmd_rank(args: argparse.Namespace) -> int:
    from .analysis.rank import chosen_glowworms, rank_glowworms, write_ranking
    from .analysis.ranking import NEEDS, rerank

    if args.method not in NEEDS:
        raise SparkledockError(
            f"--method {args.method!r}: no such ranking (known: {', '.join(NEEDS)})"
        )
    root = Path(args.setup_dir)
    chosen = chosen_glowworms(
        root, list(range(args.swarms)), args.step, use_clusters=not args.ignore_clusters
    )
    if args.method == "dfire" and not args.diverse:
        ranking, target = rank_glowworms(chosen), SetupDir(root).ranking
    else:
        ranking = rerank(load_setup(root), chosen, args.method, args.diverse)
        name = args.method + ("_diverse" if args.diverse else "")
        target = root / f"rank_by_{name}.list"
    write_ranking(target, ranking)
    print(f"sparkledock: ranked {len(ranking)} solutions in {target}", file=sys.stderr)
    return 0


def cmd_filter(args: argparse.Namespace) -> int:
    from .analysis.filter import satisfaction
    from .analysis.rank import read_ranking, write_ranking
    from .io.restraints import read_restraints

    setup = load_setup(args.setup_dir)
    ranking = [r for r in read_ranking(args.ranking) if r.score > 0.0]
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    molecules = ("nucleic" if args.rnuc else "all", "nucleic" if args.lnuc else "all")
    fractions = satisfaction(
        setup,
        poses,
        read_restraints(args.restraints),
        args.cutoff,
        args.include_passive,
        molecules,
    )
    kept = [r for r, f in zip(ranking, fractions, strict=True) if f >= args.fnat]
    target = Path(args.ranking).with_name("rank_filtered.list")
    write_ranking(target, kept)
    for r, f in zip(ranking, fractions, strict=True):
        print(f"{SetupDir(Path()).model(r.swarm, r.glowworm)} {f:5.3f}")
    print(
        f"sparkledock: {len(kept)} of {len(ranking)} solutions satisfy at least "
        f"{args.fnat:.0%} of the restraints: {target}",
        file=sys.stderr,
    )
    return 0


def cmd_top(args: argparse.Namespace) -> int:
    from .analysis.models import write_models
    from .analysis.rank import read_ranking

    setup = load_setup(args.setup_dir)
    best = read_ranking(args.ranking)[: args.n]
    poses = np.array([r.pose for r in best]).reshape(-1, setup.layout.size)
    out = Path(args.output)
    suffix = ".cif" if args.format == "cif" else ".pdb"
    write_models(setup, poses, [out / f"top_{i + 1}{suffix}" for i in range(len(best))])
    print(f"sparkledock: wrote {len(best)} models top_1..top_{len(best)} in {out}", file=sys.stderr)
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from .analysis.evaluate import evaluate

    print("model,DockQ,fnat,iRMSD,LRMSD,CAPRI")
    for model in args.models:
        q = evaluate(model, args.reference)
        print(f"{model},{q.dockq:.4f},{q.fnat:.4f},{q.irmsd:.3f},{q.lrmsd:.3f},{q.capri}")
    return 0


def dock_options(args: argparse.Namespace, **fixed: int) -> DockOptions:
    """`dock`/`screen` options from the command line (``fixed`` overrides, for --example)."""
    from .docking import DockOptions

    chosen = {k: getattr(args, k) for k in ("steps", "glowworms", "swarms", "top")}
    chosen["map_modified"] = not getattr(args, "no_map_modified", False)
    chosen["scoring"] = args.scoring
    chosen["scoring_mode"] = args.scoring_mode
    chosen["rank_method"] = getattr(args, "rank_method", None)
    chosen["diverse"] = getattr(args, "diverse", False)
    chosen["membrane"] = getattr(args, "membrane", False)
    chosen["transmembrane"] = getattr(args, "transmembrane", False)
    chosen["paratope"] = getattr(args, "paratope", False)
    chosen["refine"] = getattr(args, "refine", False)
    chosen["protocol"] = args.protocol
    chosen["swarm_spacing"] = args.swarm_spacing
    chosen["stop_tolerance"] = args.stop_tolerance
    chosen.update(fixed)
    return DockOptions(**chosen, threads=args.threads, quiet=args.quiet, engine=engine_of(args))


def cmd_dock(args: argparse.Namespace) -> int:
    from .docking import dock

    if args.example:
        ex = example_dir()
        receptor, ligand = ex / "2X9A_r_u.pdb", ex / "2X9A_l_u.pdb"
        restraints, reference = SetupDir(ex).restraints, ex / "2X9A_target.pdb"
        options = dock_options(args, steps=60, glowworms=100, swarms=20, top=5)
        if importlib.util.find_spec("DockQ") is None:
            from .analysis.evaluate import DOCKQ_HINT
            from .runlog import LOGGER

            LOGGER.info(f"the example docks without its reference: {DOCKQ_HINT}")
            reference = None
        out = args.output or "sparkledock_example"
    else:
        if not (args.receptor and args.ligand):
            raise SparkledockError("dock needs RECEPTOR and LIGAND (or --example)")
        receptor, ligand, restraints = args.receptor, args.ligand, args.restraints
        reference = args.reference
        options = dock_options(args)
        out = args.output or "sparkledock_out"
    from .parallel import mpi_world

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
    from .runlog import LOGGER

    LOGGER.info(f"top models, ranking.csv, report.html and run.json in {folder}")
    return 0


def cmd_screen(args: argparse.Namespace) -> int:
    from .parallel import mpi_world
    from .screen import screen

    summary = screen(args.pairs, args.output, options=dock_options(args), comm=mpi_world())
    if summary is not None:
        sys.stdout.write(summary.read_text())
        print(f"sparkledock: per-pair results and summary.csv in {args.output}", file=sys.stderr)
    return 0


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
    from .scoring import describe_scoring

    for row in describe_scoring():
        print(
            f"{row['name']:<10} backends: {', '.join(row['backends']):<20} "
            f"molecules: {', '.join(row['molecules']):<18} {row['summary']}"
        )
    return 0


def cmd_lightdock(args: argparse.Namespace) -> int:
    from .lightdock_commands import main as lightdock_main

    return lightdock_main(args.name, args.arguments)


def cmd_lightdock_commands(args: argparse.Namespace) -> int:
    from .lightdock_commands import install_commands

    written = install_commands(args.folder, force=args.force)
    print(
        f"sparkledock: wrote {', '.join(p.name for p in written)} in {args.folder}",
        file=sys.stderr,
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sparkledock",
        description="Fast, flexible protein-protein docking, compatible with LightDock.",
    )
    parser.add_argument("--version", action="version", version=f"sparkledock {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("score", help="score poses of a LightDock setup (one score per line)")
    p.add_argument(
        "setup_dir",
        help="LightDock setup directory (setup.json, lightdock_*.pdb, "
        "masks, lightdock_rec/lig.nm.npy)",
    )
    p.add_argument("poses", help="poses file, one pose per line (initial_positions format)")
    p.add_argument("--restraints", help="LightDock restraints file (active restraints count)")
    add_scoring_option(p, "scoring function")
    p.add_argument(
        "--terms",
        action="store_true",
        help="CSV with a header: the score, then each function's weighted score",
    )
    p.add_argument("--threads", type=at_least(1), default=None, help="CPU threads (default: all)")
    add_engine_options(p)
    p.add_argument(
        "--no-lightdock-compat",
        action="store_true",
        help="use a true 3.9 Å interface cutoff and the last bin at 15 Å instead of "
        "LightDock's quirks",
    )
    p.add_argument(
        "--skip-unknown",
        action="store_true",
        help="drop atoms DFIRE has no type for (with a warning) instead of failing",
    )
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("scoring", help="scoring functions: `sparkledock scoring list`")
    p.add_argument("action", choices=["list"], help="list: name, backends, molecule types")
    p.set_defaults(func=cmd_scoring_list)

    p = sub.add_parser("setup", help="prepare a LightDock-compatible setup from two structures")
    p.add_argument("receptor", help="receptor PDB or mmCIF")
    p.add_argument("ligand", help="ligand PDB or mmCIF")
    add_logging_options(p)
    p.add_argument("-g", "--glowworms", type=int, default=200, help="glowworms per swarm")
    p.add_argument(
        "-s",
        "--swarms",
        type=int,
        default=0,
        help="number of swarms (default: from the receptor's surface area)",
    )
    p.add_argument("--anm", "-anm", action="store_true", help="use normal modes")
    p.add_argument("--anm-rec", "-anm_rec", dest="anm_rec", type=at_least(0), default=10)
    p.add_argument("--anm-lig", "-anm_lig", dest="anm_lig", type=at_least(0), default=10)
    p.add_argument(
        "--anm-rmsd",
        dest="anm_rmsd",
        type=float,
        default=0.5,
        help="mean RMSD (Å) of conformers with unit mode extents (0.5); the receptor's only "
        "when --anm-lig-rmsd is given",
    )
    p.add_argument(
        "--anm-lig-rmsd",
        "-anm_lig_rmsd",
        dest="anm_lig_rmsd",
        type=float,
        default=None,
        help="the ligand's mode amplitude (default: --anm-rmsd)",
    )
    p.add_argument(
        "--anm-seed",
        "-seed_anm",
        dest="anm_seed",
        type=int,
        default=None,
        help="seed of the modes' amplitudes and starting mode extents (default: --seed)",
    )
    p.add_argument(
        "--surface-density",
        "-sd",
        dest="surface_density",
        type=float,
        default=50.0,
        help="Å² of receptor surface per swarm when the count comes from the surface (50)",
    )
    p.add_argument(
        "--fixed-distance",
        "-fd",
        dest="fixed_distance",
        type=float,
        default=0.0,
        help="swarm centres this far (Å) from the surface (0: a quarter of the ligand's size)",
    )
    p.add_argument(
        "--swarms-per-restraint",
        "-spr",
        dest="swarms_per_restraint",
        type=at_least(1),
        default=20,
        help="swarms per receptor restraint residue (20; with --swarm-spacing, at most)",
    )
    add_spacing_options(p)
    p.add_argument(
        "--dense-sampling",
        "--ds",
        dest="dense_sampling",
        action="store_true",
        help="every surface point left after the filters is a swarm (no final clustering)",
    )
    p.add_argument(
        "--flip",
        "-flip",
        action="store_true",
        help="with restraints on both partners, turn half the starting ligands by 180°",
    )
    p.add_argument(
        "--lightdock-poses",
        dest="lightdock_poses",
        action="store_true",
        help="draw starting poses as LightDock does (one generator over all swarms), so the "
        "setup's files equal LightDock 0.9.4's; default: one generator per swarm",
    )
    p.add_argument(
        "--starting-positions",
        "-sp",
        dest="starting",
        action="store_true",
        help="also write each swarm's starting poses as PDB and BILD files in init/",
    )
    add_placement_options(p)
    p.add_argument(
        "--swarm-radius",
        "-sr",
        dest="swarm_radius",
        type=float,
        default=10.0,
        help="radius (Å) of the ball of starting translations around a swarm centre (10)",
    )
    p.add_argument("-r", "--restraints", "-rst", help="LightDock restraints or HADDOCK .tbl")
    p.add_argument("--noxt", "-noxt", action="store_true", help="drop OXT atoms")
    p.add_argument("--noh", "-noh", action="store_true", help="drop hydrogens")
    p.add_argument("--now", "-now", action="store_true", help="drop waters")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed for modes and poses")
    p.add_argument(
        "--skip-unknown",
        action="store_true",
        help="drop atoms the scoring function has no type for instead of failing",
    )
    add_scoring_option(p, "the function the setup is for (only atoms it can type are kept)")
    add_modified_option(p)
    p.add_argument("-o", "--output", default=".", help="setup directory (default: here)")
    p.add_argument(
        "--force", action="store_true", help="replace a setup already in the folder (its files)"
    )
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("run", help="run GSO on a setup's swarms (writes swarm_<id>/gso_*.out)")
    p.add_argument("setup", help="the setup's setup.json (or its folder)")
    p.add_argument("steps", type=at_least(1), help="GSO steps")
    p.add_argument("--swarms", type=at_least(0), nargs="+", help="swarm ids (default: all)")
    add_scoring_option(p, "scoring function of the search")
    add_scoring_mode_option(p)
    p.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"GSO seed (default: {DEFAULT_SEED})"
    )
    p.add_argument(
        "--exact",
        action="store_true",
        help="LightDock's random stream: reproduce LightDock 0.9.4 trajectories",
    )
    p.add_argument("--threads", type=at_least(1), default=None, help="CPU threads (default: all)")
    add_logging_options(p)
    p.add_argument(
        "--swarms-per-task",
        type=at_least(1),
        default=None,
        help="under MPI: swarms a rank takes at a time (default: 1 on the CPU, about a "
        "quarter of a rank's share on torch)",
    )
    p.add_argument(
        "--gso-config",
        help="LightDock GSO configuration file (glowworm.conf: rho, gamma, beta, luciferin, "
        "vision ranges, neighbours; default: LightDock's)",
    )
    for flag, what in (("translation", "Å"), ("rotation", "SLERP fraction"), ("nmodes", "")):
        p.add_argument(
            f"--{flag}-step",
            dest=f"{flag}_step",
            type=float,
            default=0.5,
            help=f"GSO {flag} step{f' ({what})' if what else ''} (0.5)",
        )
    p.add_argument(
        "--local-minimization",
        "-min",
        dest="local_minimization",
        action="store_true",
        help="every step, minimise each swarm's best glowworm (LightDock's -min: Powell, "
        "5 iterations)",
    )
    add_stop_option(p, "0: every swarm runs every step")
    add_engine_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("generate", help="write complex models of a gso_<step>.out's glowworms")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("gso_file", help="a swarm's gso_<step>.out")
    p.add_argument("glowworms", type=at_least(1), help="models for the first N glowworms")
    p.add_argument("--format", choices=("pdb", "cif"), default="pdb")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("cluster", help="BSAS-cluster a swarm (writes cluster.repr)")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("gso_file", help="a swarm's gso_<step>.out")
    p.set_defaults(func=cmd_cluster)

    p = sub.add_parser("rank", help="rank all swarms' cluster representatives by score")
    p.add_argument("setup_dir", help="the setup directory (holds swarm_<id>/)")
    p.add_argument("swarms", type=at_least(1), help="number of swarms (0..N-1)")
    p.add_argument("step", type=at_least(0), help="which gso_<step>.out to rank")
    p.add_argument("--ignore-clusters", action="store_true", help="rank every glowworm")
    add_rank_options(p, "--method")
    p.set_defaults(func=cmd_rank)

    p = sub.add_parser("filter", help="keep ranked solutions that satisfy restraints")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("ranking", help="a ranking (rank_by_scoring.list)")
    p.add_argument("restraints", help="LightDock restraints file")
    p.add_argument("--cutoff", type=float, default=5.0, help="contact cutoff in Å (5)")
    p.add_argument(
        "--fnat",
        type=float,
        default=0.4,
        help="minimum fraction of restraint residues in contact (0.4)",
    )
    p.add_argument("--include-passive", action="store_true")
    for side, flag in (("receptor", "--rnuc"), ("ligand", "--lnuc")):
        p.add_argument(
            flag,
            action="store_true",
            help=f"count only the {side}'s nucleotides (LightDock's {flag}; default: all atoms)",
        )
    p.set_defaults(func=cmd_filter)

    p = sub.add_parser("top", help="write the models of the N best-ranked solutions")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("ranking", help="a ranking (rank_by_scoring.list or rank_filtered.list)")
    p.add_argument("n", type=at_least(1), help="how many models")
    p.add_argument("-o", "--output", default=".", help="where (default: here)")
    p.add_argument("--format", choices=("pdb", "cif"), default="pdb")
    p.set_defaults(func=cmd_top)

    p = sub.add_parser("evaluate", help="DockQ and CAPRI class of models against a reference")
    p.add_argument("reference", help="the reference complex (PDB or mmCIF)")
    p.add_argument("models", nargs="+", help="models to evaluate")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("dock", help="a whole docking: setup, run, cluster, rank, top models")
    p.add_argument("receptor", nargs="?", help="receptor PDB or mmCIF")
    p.add_argument("ligand", nargs="?", help="ligand PDB or mmCIF")
    p.add_argument("-r", "--restraints", help="LightDock restraints or HADDOCK .tbl")
    p.add_argument("-o", "--output", help="output folder (refused if not empty)")
    add_protocol_options(p, top_help="models to write (10)")
    p.add_argument("--reference", help="reference complex: adds DockQ and CAPRI class")
    add_rank_options(p, "--rank-method")
    p.add_argument(
        "--refine",
        action="store_true",
        help="also minimise the top models with OpenMM (restrained, implicit solvent) into "
        "refined/, reporting clashes before and after (needs sparkledock[refine])",
    )
    add_placement_options(p)
    add_modified_option(p)
    p.add_argument(
        "--force",
        action="store_true",
        help="replace the docking in a non-empty output folder (its files only)",
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="dock the bundled 2X9A example (about 10 s on two cores)",
    )
    p.set_defaults(func=cmd_dock)

    p = sub.add_parser("screen", help="dock many pairs (CSV: name,receptor,ligand[,restraints])")
    p.add_argument("pairs", help="CSV with columns name, receptor, ligand and optional restraints")
    p.add_argument("-o", "--output", required=True, help="output folder (resumes if it exists)")
    add_protocol_options(p, top_help="models per pair (10)")
    p.set_defaults(func=cmd_screen)

    p = sub.add_parser(
        "lightdock",
        help="run a LightDock 0.9.4 command line (lightdock3_setup.py, lightdock3.py, lgd_rank.py, "
        "lgd_top.py, ...) with sparkledock",
    )
    p.add_argument("name", help="LightDock's command name, e.g. lgd_top.py")
    p.add_argument("arguments", nargs=argparse.REMAINDER, help="its arguments, as for LightDock")
    p.set_defaults(func=cmd_lightdock)

    p = sub.add_parser(
        "lightdock-commands",
        help="write scripts named like LightDock's commands into a folder (opt-in)",
    )
    p.add_argument("folder", help="where to write them (e.g. a folder early on your PATH)")
    p.add_argument("--force", action="store_true", help="replace other programs of those names")
    p.set_defaults(func=cmd_lightdock_commands)

    p = sub.add_parser("demo", help="score the bundled 2X9A example and compare with LightDock")
    p.add_argument("--threads", type=at_least(1), default=None, help="CPU threads (default: all)")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``sparkledock`` console script."""
    args = build_parser().parse_args(argv)
    warnings.showwarning = show_warning
    try:
        from .runlog import configure_logging

        configure_logging(
            getattr(args, "quiet", False), getattr(args, "verbose", False), args_log_file(args)
        )
        return int(args.func(args))
    except SparkledockError as exc:
        if not getattr(exc, "echo", False):  # under MPI, errors all ranks share print once
            print(f"sparkledock: error: {exc}", file=sys.stderr)
        if not getattr(exc, "shared", False):
            _abort_other_ranks()
        return 1
    except BrokenPipeError:
        return 0


def args_log_file(args: argparse.Namespace) -> str | None:
    """The --log-file, checked to be writable before any work."""
    path = getattr(args, "log_file", None)
    if path is None:
        return None
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise SparkledockError(f"{path}: cannot write the log file ({exc.strerror})") from None
    return path


def _abort_other_ranks() -> None:
    """Under MPI, one rank's error ends the job (the others would wait for it forever)."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is not None and mpi.Is_initialized() and mpi.COMM_WORLD.Get_size() > 1:
        sys.stderr.flush()
        mpi.COMM_WORLD.Abort(1)


if __name__ == "__main__":
    sys.exit(main())
