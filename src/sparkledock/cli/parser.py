"""The ``sparkledock`` argument parser: every subcommand, its options and its handler."""

from __future__ import annotations

import argparse

from ..docking.options import DockOptions
from ..version import __version__
from ..workflow.commands import (
    EvaluateOptions,
    FilterOptions,
    ModelOptions,
    RankOptions,
    RunOptions,
    ScoreOptions,
    SetupOptions,
)
from .commands import (
    cmd_cluster,
    cmd_demo,
    cmd_dock,
    cmd_evaluate,
    cmd_filter,
    cmd_generate,
    cmd_lightdock,
    cmd_lightdock_commands,
    cmd_rank,
    cmd_run,
    cmd_score,
    cmd_scoring_list,
    cmd_screen,
    cmd_setup,
    cmd_top,
)
from .options import (
    add_docking_options,
    add_engine_options,
    add_fields,
    add_logging_options,
    at_least,
)


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
    p.add_argument("-r", "--restraints", help="LightDock restraints file (active restraints count)")
    add_fields(p, ScoreOptions, given_only=False)
    add_engine_options(p)
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("scoring", help="scoring functions: `sparkledock scoring list`")
    p.add_argument("action", choices=["list"], help="list: name, backends, molecule types")
    p.set_defaults(func=cmd_scoring_list)

    p = sub.add_parser("setup", help="prepare a LightDock-compatible setup from two structures")
    p.add_argument("receptor", help="receptor PDB or mmCIF")
    p.add_argument("ligand", help="ligand PDB or mmCIF")
    add_logging_options(p)
    add_fields(p, SetupOptions, given_only=False)
    add_fields(p, DockOptions, ["protocol", "swarm_spacing"], given_only=False)
    p.add_argument("-r", "--restraints", "-rst", help="LightDock restraints or HADDOCK .tbl")
    p.add_argument("-o", "--output", default=".", help="setup directory (default: here)")
    p.add_argument(
        "--force", action="store_true", help="replace a setup already in the folder (its files)"
    )
    p.set_defaults(func=cmd_setup)

    p = sub.add_parser("run", help="run GSO on a setup's swarms (writes swarm_<id>/gso_*.out)")
    p.add_argument("setup", help="the setup's setup.json (or its folder)")
    p.add_argument("steps", type=at_least(1), help="GSO steps")
    add_fields(p, RunOptions, given_only=False)
    add_logging_options(p)
    add_engine_options(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("generate", help="write complex models of a gso_<step>.out's glowworms")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("gso_file", help="a swarm's gso_<step>.out")
    p.add_argument("glowworms", type=at_least(1), help="models for the first N glowworms")
    add_fields(p, ModelOptions, given_only=False)
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("cluster", help="BSAS-cluster a swarm (writes cluster.repr)")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("gso_file", help="a swarm's gso_<step>.out")
    p.set_defaults(func=cmd_cluster)

    p = sub.add_parser("rank", help="rank all swarms' cluster representatives by score")
    p.add_argument("setup_dir", help="the setup directory (holds swarm_<id>/)")
    p.add_argument("swarms", type=at_least(1), help="number of swarms (0..N-1)")
    p.add_argument("step", type=at_least(0), help="which gso_<step>.out to rank")
    add_fields(p, RankOptions, given_only=False)
    p.set_defaults(func=cmd_rank)

    p = sub.add_parser("filter", help="keep ranked solutions that satisfy restraints")
    p.add_argument("setup_dir", help="the setup directory")
    p.add_argument("ranking", help="a ranking (rank_by_scoring.list)")
    p.add_argument("restraints", help="LightDock restraints file")
    add_fields(p, FilterOptions, given_only=False)
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
    add_fields(p, ModelOptions, given_only=False)
    p.set_defaults(func=cmd_top)

    p = sub.add_parser("evaluate", help="DockQ and CAPRI class of models against a reference")
    p.add_argument("reference", help="the reference complex (PDB or mmCIF)")
    p.add_argument("models", nargs="+", help="models to evaluate")
    add_fields(p, EvaluateOptions, given_only=False)
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("dock", help="a whole docking: setup, run, cluster, rank, top models")
    p.add_argument("receptor", nargs="?", help="receptor PDB or mmCIF")
    p.add_argument("ligand", nargs="?", help="ligand PDB or mmCIF")
    p.add_argument(
        "-r", "--restraints", action="append", help="LightDock restraints or HADDOCK .tbl; "
        "given again, alternatives (candidate patches): each docked, all ranked together",
    )  # fmt: skip
    p.add_argument(
        "-o",
        "--output",
        help="output folder (default: sparkledock_out; refused if it holds other files)",
    )
    p.add_argument("--reference", help="reference complex: adds DockQ and CAPRI class")
    add_docking_options(p)
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

    p = sub.add_parser(
        "screen", help="dock many pairs (CSV: name,receptor,ligand[,restraints,reference])"
    )
    p.add_argument(
        "pairs",
        help="CSV with columns name, receptor, ligand and optional restraints and reference (a "
        "pair's bound complex: its models are evaluated, as dock --reference)",
    )
    p.add_argument("-o", "--output", required=True, help="output folder (resumes if it exists)")
    add_docking_options(p)
    p.add_argument(
        "--force",
        action="store_true",
        help="dock afresh a pair whose inputs or options changed since its folder was docked "
        "(refused otherwise)",
    )
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
