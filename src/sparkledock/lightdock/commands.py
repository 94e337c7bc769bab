"""LightDock 0.9.4's command lines, run by sparkledock.

Pipelines written for LightDock (HADDOCK3's ``[lightdock]`` module among them) call
``lightdock3_setup.py``, ``lightdock3.py``, ``lgd_rank.py``, ``lgd_top.py`` and friends with
LightDock's option spellings. :func:`main` parses exactly those spellings and runs sparkledock's
stages, writing LightDock's files in LightDock's places (the current folder, the swarm
folders, the ranking's folder). ``lightdock3.py`` runs exact mode: LightDock's random stream
and its pairing of swarms with starting files, so trajectories are LightDock's own.

An option LightDock has and sparkledock has not built yet is refused in one line (never
misread: ``-sd 50`` is the surface density, not ``-s d``); its LightDock default is accepted.
Nothing is installed under LightDock's names unless asked: ``sparkledock lightdock-commands
DIR`` writes the scripts into ``DIR``, and ``sparkledock lightdock NAME ARGS`` runs one.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import Engine
from ..cli.options import at_least, error_text, report_run, run_options, setup_options, show_warning
from ..errors import InputFileError, SparkledockError
from ..fileutil import atomic_write_text, read_text_input
from ..schema import DEFAULT_CONTACT_CUTOFF_A
from ..seeds import DEFAULT_SEED
from ..version import __version__
from ..workflow.commands import (
    FILTERED_FILE,
    NOT_AVAILABLE,
    SCORING_FUNCTIONS,
    DockingSetup,
    SetupDir,
    from_lightdock,
    load_setup,
    to_lightdock,
)
from . import tools as tools

#: Marks the scripts that :func:`install_commands` writes (so it never overwrites others).
SCRIPT_MARK = "written by `sparkledock lightdock-commands`"


def _refuse(option: str, why: str = "") -> SparkledockError:
    return SparkledockError(
        f"{option} is not built in sparkledock yet{f' ({why})' if why else ''}; "
        "leave it at LightDock's default"
    )


def _flag(p: argparse.ArgumentParser, *names: str, dest: str) -> None:
    p.add_argument(*names, dest=dest, action="store_true", default=False)


def _find_setup(explicit: str | None, *near: Path) -> Path:
    """The setup folder: ``--setup`` if given, else the first of ``near`` (and the current
    folder) that holds ``setup.json``."""
    if explicit:
        path = Path(explicit)
        return path if path.is_dir() else path.parent
    for folder in (*near, Path.cwd()):
        if SetupDir(folder).setup_json.is_file():
            return folder
    raise InputFileError("no setup.json here nor beside the inputs (give --setup setup.json)")


# --- lightdock3_setup.py ---------------------------------------------------------------


#: lightdock3_setup.py's options: LightDock's spellings, where sparkledock's ``setup`` keeps
#: the value (its option name, or LightDock's own for those checked here), the type (None: a
#: flag) and LightDock's default.
_SETUP_OPTIONS: tuple[tuple[tuple[str, ...], str, Any, Any], ...] = (
    (("-s", "--s", "--swarms"), "swarms", at_least(0), 0),
    (("-g", "--g", "--glowworms"), "glowworms", at_least(1), 200),
    (("--seed_points", "-seed_points"), "seed", int, DEFAULT_SEED),
    (("--noxt", "-noxt"), "noxt", None, False),
    (("--noh", "-noh"), "noh", None, False),
    (("--now", "-now"), "now", None, False),
    (("--verbose_parser", "-verbose_parser"), "verbose_parser", None, False),
    (("-anm", "--anm"), "anm", None, False),
    (("--seed_anm", "-seed_anm"), "anm_seed", int, DEFAULT_SEED),
    (("--anm_rec_rmsd", "-anm_rec_rmsd"), "anm_rmsd", float, 0.5),
    (("--anm_lig_rmsd", "-anm_lig_rmsd"), "anm_lig_rmsd", float, 0.5),
    (("-ar", "--ar", "-anm_rec", "--anm_rec"), "anm_rec", at_least(1), 10),
    (("-al", "--al", "-anm_lig", "--anm_lig"), "anm_lig", at_least(1), 10),
    (("-r", "--r", "-rst", "--rst"), "restraints", str, None),
    (("-membrane", "--membrane"), "membrane", None, False),
    (("-transmembrane", "--transmembrane"), "transmembrane", None, False),
    (("-sp", "--sp", "-starting_positions", "--starting_positions"), "starting", None, False),
    (("-sd", "--sd", "-surface_density", "--surface_density"), "surface_density", float, 50.0),
    (("-sr", "--sr", "-swarm_radius", "--swarm_radius"), "swarm_radius", float, 10.0),
    (("-flip", "--flip"), "flip", None, False),
    (("-fd", "--fd", "-fixed_distance", "--fixed_distance"), "fixed_distance", float, 0.0),
    (
        ("-spr", "--spr", "-swarms_per_restraint", "--swarms_per_restraint"),
        "swarms_per_restraint",
        int,
        20,
    ),
    (("--ds", "-ds"), "dense_sampling", None, False),
)
#: Flags LightDock has and sparkledock's setup has not built yet (dest -> spelling).
_SETUP_FLAGS_NOT_BUILT: dict[str, str] = {}


def _setup_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lightdock3_setup.py")
    p.add_argument("receptor")
    p.add_argument("ligand")
    for spellings, dest, kind, default in _SETUP_OPTIONS:
        if kind is None:
            _flag(p, *spellings, dest=dest)
        else:
            p.add_argument(*spellings, dest=dest, type=kind, default=default)
    p.add_argument(
        "-V",
        "-v",
        "--version",
        action="version",
        version=f"lightdock3_setup.py (sparkledock {__version__})",
    )
    return p


def _has_receptor_restraints(path: Path) -> bool:
    """Whether a LightDock restraints file lists an active or passive receptor residue."""
    lines = read_text_input(path, "restraints").splitlines()
    return any(line.split()[:1] == ["R"] and len(line.split()) > 1 for line in lines)


def _setup(args: argparse.Namespace) -> int:
    from ..workflow import prepare

    for dest, spelling in _SETUP_FLAGS_NOT_BUILT.items():
        if getattr(args, dest):
            raise _refuse(spelling)
    if args.membrane and args.transmembrane:
        raise SparkledockError("-membrane and -transmembrane: give one of them")
    if SetupDir(Path()).setup_json.exists():
        raise InputFileError("setup.json: a setup is already here (LightDock refuses too)")
    values = {
        **vars(args),
        "skip_unknown": False,
        "no_map_modified": False,
        "scoring": None,  # LightDock's setup keeps every atom; lightdock3.py -s types them
        "lightdock_poses": True,  # LightDock's draws: the setup's files equal LightDock's
        "protocol": "lightdock",  # LightDock's commands always run LightDock 0.9.4's protocol
        "swarm_spacing": 0.0,
    }
    if args.restraints and args.swarms and _has_receptor_restraints(Path(args.restraints)):
        values["swarms"] = 0  # LightDock ignores -s with receptor restraints
    prepare(args.receptor, args.ligand, ".", setup_options(values), restraints=args.restraints)
    return 0


# --- lightdock3.py ---------------------------------------------------------------------


def _simulation_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lightdock3.py")
    p.add_argument("setup_file")
    p.add_argument("steps", type=at_least(1))
    p.add_argument("-f", "--file", dest="configuration_file", default=None)
    p.add_argument("-s", "--scoring_function", dest="scoring_function", default="fastdfire")
    p.add_argument("-sg", "--seed", dest="gso_seed", type=int, default=DEFAULT_SEED)
    p.add_argument("-t", "--translation_step", dest="translation_step", type=float, default=0.5)
    p.add_argument("-r", "--rotation_step", dest="rotation_step", type=float, default=0.5)
    p.add_argument(
        "-V",
        "-v",
        "--version",
        action="version",
        version=f"lightdock3.py (sparkledock {__version__})",
    )
    p.add_argument("-c", "--cores", dest="cores", type=at_least(1), default=None)
    _flag(p, "--profile", dest="profiling")
    _flag(p, "-mpi", "--mpi", dest="mpi")
    p.add_argument("-ns", "--nmodes_step", dest="nmodes_step", type=float, default=0.5)
    _flag(p, "-min", "--min", dest="local_minimization")
    _flag(p, "--listscoring", dest="list_scoring")
    p.add_argument("-l", "--list", dest="swarm_list", nargs="+", type=at_least(0), default=None)
    return p


def _simulation(args: argparse.Namespace) -> int:
    from ..workflow import execute
    from ..workflow.commands import mpi_world

    if args.list_scoring:
        print("\n".join(sorted({to_lightdock(name) for name in SCORING_FUNCTIONS})))
        return 0
    # LightDock reads -s as a scoring file when such a file exists, else as a name
    if os.path.exists(args.scoring_function):
        scoring = args.scoring_function
    else:
        scoring = from_lightdock(args.scoring_function)
        if scoring not in SCORING_FUNCTIONS and scoring not in NOT_AVAILABLE:
            known = ", ".join(sorted({to_lightdock(name) for name in SCORING_FUNCTIONS}))
            raise SparkledockError(
                f"-s {args.scoring_function}: no such scoring function (available: {known})"
            )
    values = {
        **vars(args),
        "swarms": args.swarm_list,
        "scoring": scoring,
        "scoring_mode": "exact",
        "seed": args.gso_seed,
        "exact": True,
        "threads": args.cores,
        "quiet": False,
        "swarms_per_task": None,
        "gso_config": args.configuration_file,
        "stop_tolerance": 0.0,  # LightDock runs every swarm every step
    }
    comm = mpi_world()
    options = run_options(values, Engine("numba", "cpu", "fp64"))
    result = execute(args.setup_file, args.steps, options, comm=comm)
    report_run(result, comm)
    return 0


# --- lgd_rank.py -----------------------------------------------------------------------


def _rank_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_rank.py")
    p.add_argument("num_swarms", type=at_least(1))
    p.add_argument("steps", type=at_least(0))
    p.add_argument("-c", "--clashes_cutoff", dest="clashes_cutoff", type=float, default=None)
    p.add_argument("-f", "--file_name", dest="result_file", default=None)
    _flag(p, "--ignore_clusters", dest="ignore_clusters")
    return p


def _rank(args: argparse.Namespace) -> int:
    from ..workflow import rank
    from ..workflow.commands import write_ranking

    if args.clashes_cutoff is not None:
        raise _refuse("-c (clashes cutoff)")
    root = Path.cwd()
    ranking = rank(
        root,
        args.steps,
        not args.ignore_clusters,
        swarms=range(args.num_swarms),
        unclustered="all",
        gso_name=args.result_file,
    )
    write_ranking(SetupDir(root).ranking, ranking)
    by_luciferin = sorted(ranking, key=lambda r: -r.luciferin)
    write_ranking(root / "rank_by_luciferin.list", by_luciferin)
    print(f"lgd_rank.py: ranked {len(ranking)} solutions in rank_by_scoring.list", file=sys.stderr)
    return 0


# --- lgd_top.py and lgd_generate_conformations.py --------------------------------------


def _models_parser(prog: str, third: str, fourth: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog)
    p.add_argument("receptor_structures")
    p.add_argument("ligand_structures")
    p.add_argument(third)
    p.add_argument(fourth, type=at_least(1))
    p.add_argument("--setup", "-setup", "-s", dest="setup_file", default=None)
    return p


def _model_setup(args: argparse.Namespace, near: Path) -> DockingSetup:
    """The setup to build models from, holding every atom of its parsed structures."""
    from ..workflow.commands import with_file_atoms

    setup = load_setup(_find_setup(args.setup_file, near, Path(args.receptor_structures).parent))
    tools.check_structures(setup, args.receptor_structures, args.ligand_structures)
    return with_file_atoms(setup)


def _top(args: argparse.Namespace) -> int:
    from ..workflow import top
    from ..workflow.commands import read_ranking

    ranking_file = Path(args.lightdock_ranking_file)
    ranking = read_ranking(ranking_file)  # before any model is written
    setup = _model_setup(args, ranking_file.parent)
    folder = ranking_file.parent
    paths = top(setup, ranking, args.top, folder)
    print(f"lgd_top.py: generated {len(paths)} conformations in {folder}", file=sys.stderr)
    return 0


def _generate(args: argparse.Namespace) -> int:
    from ..workflow.commands import generate_models, read_gso_output

    gso_file = Path(args.lightdock_output)
    data = read_gso_output(gso_file)  # (before the setup is looked for, as LightDock's order)
    setup = _model_setup(args, gso_file.parent.parent)
    paths = generate_models(setup, gso_file, args.glowworms, data=data)
    print(f"lgd_generate_conformations.py: {len(paths)} models in {gso_file.parent}",
          file=sys.stderr)  # fmt: skip
    return 0


# --- lgd_cluster_bsas.py ---------------------------------------------------------------


def _cluster_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_cluster_bsas.py")
    p.add_argument("gso_output_file")
    return p


def _cluster(args: argparse.Namespace) -> int:
    from ..workflow.commands import cluster_swarm

    gso_file = Path(args.gso_output_file).absolute()
    target = cluster_swarm(_find_setup(None, gso_file.parent.parent), gso_file)
    print(f"lgd_cluster_bsas.py: wrote {target}", file=sys.stderr)
    return 0


# --- lgd_filter_restraints.py ----------------------------------------------------------


def _filter_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_filter_restraints.py")
    p.add_argument("ranking_file")
    p.add_argument("restraints_file")
    p.add_argument("receptor_chains")
    p.add_argument("ligand_chains")
    p.add_argument("--cutoff", "-cutoff", "-c", dest="cutoff", type=float,
                   default=DEFAULT_CONTACT_CUTOFF_A)  # fmt: skip
    p.add_argument("--fnat", "-fnat", "-f", dest="fnat", type=float, default=None)
    _flag(p, "--rnuc", dest="rnuc")
    _flag(p, "--lnuc", dest="lnuc")
    _flag(p, "--include_passive", "-include_passive", dest="include_passive")
    return p


def _filter(args: argparse.Namespace) -> int:
    from ..workflow import filter_ranking
    from ..workflow.commands import (
        FilterOptions,
        check_filter_options,
        read_ranking,
        read_restraints,
        write_models,
    )

    # LightDock's filter counts the partners' amino acids, or nucleotides with --rnuc/--lnuc
    molecules = ("nucleic" if args.rnuc else "protein", "nucleic" if args.lnuc else "protein")
    chosen = FilterOptions(args.fnat, args.cutoff, args.include_passive, molecules)
    check_filter_options(chosen)  # (before any file is read)
    ranking_file = Path(args.ranking_file)
    ranking = read_ranking(ranking_file)
    restraints = read_restraints(args.restraints_file)
    setup = load_setup(_find_setup(None, ranking_file.parent))
    for given, partner, side in (
        (args.receptor_chains, setup.receptor, "receptor"),
        (args.ligand_chains, setup.ligand, "ligand"),
    ):
        chains = {c.strip() for c in given.split(",") if c.strip()}
        if chains != set(partner.atoms.chain.astype(str)):
            raise _refuse(
                f"{side} chains {given!r}",
                f"the {side} has chains {','.join(sorted(set(partner.atoms.chain.astype(str))))}"
                "; filtering on a part of a partner",
            )
    folder = Path("filtered")
    if folder.exists():
        raise InputFileError(f"{folder}: folder already exists (LightDock refuses too)")
    filtered = filter_ranking(setup, ranking, restraints, **vars(chosen))
    judged = zip(filtered.ranking, filtered.fractions, filtered.keeps, strict=True)
    passed = [(r, f) for r, f, keep in judged if keep]
    folder.mkdir()
    write_models(
        setup,
        np.array([r.pose for r, _ in passed]).reshape(-1, setup.layout.size),
        [folder / f"swarm_{r.swarm}_{r.glowworm}.pdb" for r, _ in passed],
    )
    for r, f in zip(filtered.ranking, filtered.fractions, strict=True):
        print(f"{SetupDir(Path()).model(r.swarm, r.glowworm)!s:40s}  {f:5.3f}")
    lines = [f"swarm_{r.swarm}_{r.glowworm}.pdb   {r.score:5.3f}  {f:5.3f}\n" for r, f in passed]
    atomic_write_text(folder / FILTERED_FILE, "".join(lines))
    return 0


#: LightDock's command name -> (parser, what it does).
COMMANDS: dict[str, tuple[Callable[[], argparse.ArgumentParser], Callable[..., int]]] = {
    "lightdock3_setup.py": (_setup_parser, _setup),
    "lightdock3.py": (_simulation_parser, _simulation),
    "lgd_rank.py": (_rank_parser, _rank),
    "lgd_top.py": (
        lambda: _models_parser("lgd_top.py", "lightdock_ranking_file", "top"),
        _top,
    ),
    "lgd_generate_conformations.py": (
        lambda: _models_parser("lgd_generate_conformations.py", "lightdock_output", "glowworms"),
        _generate,
    ),
    "lgd_cluster_bsas.py": (_cluster_parser, _cluster),
    "lgd_filter_restraints.py": (_filter_parser, _filter),
    "lgd_gso_to_csv.py": (tools.gso_to_csv_parser, tools.gso_to_csv),
    "lgd_calculate_scoring.py": (tools.calculate_scoring_parser, tools.calculate_scoring),
    "lgd_calculate_reference_points.py": (tools.reference_points_parser, tools.reference_points),
    "lgd_map_contacts.py": (tools.map_contacts_parser, tools.map_contacts),
    "lgd_generate_trajectory.py": (tools.trajectory_parser, tools.generate_trajectory),
    "lgd_create_membrane.py": (tools.create_membrane_parser, tools.create_membrane),
    "lgd_filter_membrane.py": (tools.filter_membrane_parser, tools.filter_membrane),
}


def main(name: str, argv: Sequence[str] | None = None) -> int:
    """Run LightDock's command ``name`` with LightDock's arguments ``argv``."""
    if name not in COMMANDS:
        print(
            f"sparkledock: error: {name}: not a LightDock command sparkledock runs "
            f"(it runs {', '.join(COMMANDS)})",
            file=sys.stderr,
        )
        return 1
    build, run = COMMANDS[name]
    args = build().parse_args(list(sys.argv[1:] if argv is None else argv))
    warnings.showwarning = show_warning
    try:
        return int(run(args))
    except SparkledockError as exc:
        print(f"{name}: error: {error_text(exc)}", file=sys.stderr)
        return 1


def install_commands(folder: str | os.PathLike[str], force: bool = False) -> list[Path]:
    """Write LightDock-named scripts into ``folder`` that run :func:`main` with this Python.

    A file of the same name that these scripts did not write (LightDock's own, say) is left
    alone unless ``force``.

    Raises:
        InputFileError: ``folder`` is a file, or holds another program of that name (the
            folder is made when missing).
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputFileError(f"{folder}: a file, not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    clashes = [
        folder / n
        for n in COMMANDS
        if (folder / n).exists() and SCRIPT_MARK not in (folder / n).read_text(errors="replace")
    ]
    if clashes and not force:
        raise InputFileError(
            f"{clashes[0]}: another program has this name (LightDock's?); use another folder "
            "or --force"
        )
    written = []
    for name in COMMANDS:
        path = folder / name
        path.write_text(
            f"#!{sys.executable}\n"
            f'"""LightDock\'s {name}, run by sparkledock ({SCRIPT_MARK})."""\n'
            "import sys\n\n"
            "from sparkledock.lightdock.commands import main\n\n"
            f'sys.exit(main("{name}"))\n'
        )
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        written.append(path)
    return written


__all__ = ["COMMANDS", "install_commands", "main"]
