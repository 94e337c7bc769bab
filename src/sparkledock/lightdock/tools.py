"""LightDock's post-processing helpers that users script with, as sparkledock commands.

- ``lgd_gso_to_csv.py RANKING CSV [-s SEP]``: a gso or ranking file as CSV, the pose quoted;
- ``lgd_calculate_scoring.py FUNCTION RECEPTOR LIGAND``: the score of a complex as the two
  files place it (any sparkledock scoring function; LightDock's names accepted);
- ``lgd_calculate_reference_points.py STRUCTURE [--noxt]``: the minimum-volume ellipsoid's
  six poles and centre (``STRUCTURE.vol`` and ``STRUCTURE.vol.pdb``), LightDock's output;
- ``lgd_map_contacts.py RECEPTOR LIGAND SETUP OUTPUT GSO...``: the parsed receptor with each
  residue's contact frequency over the glowworms of the gso files as its B-factor;
- ``lgd_generate_trajectory.py GLOWWORM STEPS RECEPTOR LIGAND SETUP``: one glowworm's complex
  at every saved step of the swarm in the current folder (``trajectory_<g>_step_<s>.pdb``);
- ``lgd_create_membrane.py STRUCTURE CHAIN.RES.NUM [-ar -rr -ro -o]``: a flat membrane of
  MMB beads at the height of a residue's C-alpha;
- ``lgd_filter_membrane.py RANKING RESTRAINTS RECEPTOR REC_CHAINS LIG_CHAINS [-c]``: the
  ranked models whose ligand stays above the membrane, copied into ``filtered/``.

Each reads and checks its inputs before writing, and writes atomically. The files are
LightDock's, byte for byte (tests/test_lightdock_tools.py), except where LightDock fails
(named at each command).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..fileutil import atomic_write_text, read_text_input
from ..workflow import lightdock_tools as work
from ..workflow.lightdock_tools import check_structures as check_structures


def gso_to_csv_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_gso_to_csv.py")
    p.add_argument("ranking_file")
    p.add_argument("csv_file")
    p.add_argument("-s", "--sep", dest="csv_sep", default=",")
    return p


def gso_to_csv(args: argparse.Namespace) -> int:
    text = read_text_input(Path(args.ranking_file), "ranking")
    csv = work.gso_to_csv_text(text, args.csv_sep, args.ranking_file)
    atomic_write_text(Path(args.csv_file), csv)
    print(f"lgd_gso_to_csv.py: {csv.count(chr(10)) - 1} lines written", file=sys.stderr)
    return 0


def calculate_scoring_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_calculate_scoring.py")
    p.add_argument("scoring_function")
    p.add_argument("receptor")
    p.add_argument("ligand")
    return p


def calculate_scoring(args: argparse.Namespace) -> int:
    print(work.complex_score(args.scoring_function, Path(args.receptor), Path(args.ligand)))
    return 0


def reference_points_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_calculate_reference_points.py")
    p.add_argument("structure")
    p.add_argument("--noxt", action="store_true", default=False)
    return p


def reference_points(args: argparse.Namespace) -> int:
    target = work.reference_points(Path(args.structure), args.noxt)
    print(f"lgd_calculate_reference_points.py: points written to {target}", file=sys.stderr)
    return 0


# --- lgd_map_contacts.py ---------------------------------------------------------------------


def map_contacts_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_map_contacts.py")
    p.add_argument("receptor_structure")
    p.add_argument("ligand_structure")
    p.add_argument("setup_file")
    p.add_argument("output_pdb_file")
    p.add_argument("gso_files", nargs="+")
    return p


def map_contacts(args: argparse.Namespace) -> int:
    """LightDock's contact map (:func:`sparkledock.workflow.lightdock_tools.contact_map`)."""
    target = Path(args.output_pdb_file)
    most = work.contact_map(args.setup_file, args.receptor_structure, args.ligand_structure,
                            args.gso_files, target, _say("lgd_map_contacts.py"))  # fmt: skip
    print(f"spectrum b, white_blue, minimum=0, maximum={most}")
    print(f"lgd_map_contacts.py: {target} written", file=sys.stderr)
    return 0


def _say(prog: str):
    return lambda line: print(f"{prog}: {line}", file=sys.stderr)


# --- lgd_generate_trajectory.py --------------------------------------------------------------


def trajectory_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_generate_trajectory.py")
    p.add_argument("glowworm_id", type=int)
    p.add_argument("steps", type=int)
    p.add_argument("receptor_pdb")
    p.add_argument("ligand_pdb")
    p.add_argument("setup_file")
    return p


def generate_trajectory(args: argparse.Namespace) -> int:
    """One glowworm's trajectory (:func:`sparkledock.workflow.lightdock_tools.trajectory`)."""
    written = work.trajectory(args.glowworm_id, args.steps, args.receptor_pdb, args.ligand_pdb,
                              args.setup_file)  # fmt: skip
    print(f"lgd_generate_trajectory.py: {written} steps written", file=sys.stderr)
    return 0


# --- lgd_create_membrane.py ------------------------------------------------------------------


def create_membrane_parser() -> argparse.ArgumentParser:
    from ..workflow.lightdock_tools import BEAD_ANGLE_DEG, RING_SPAN_A, RING_STEP_A

    p = argparse.ArgumentParser(prog="lgd_create_membrane.py")
    p.add_argument("input_pdb_file")
    p.add_argument("anchor_residue")
    for flags, dest, default in (
        (("--angular_resolution", "-angular_resolution", "-ar"), "angle", BEAD_ANGLE_DEG),
        (("--radius_resolution", "-radius_resolution", "-rr"), "ring_step", RING_STEP_A),
        (("--radius_offset", "-radius_offset", "-ro"), "ring_span", RING_SPAN_A),
    ):
        p.add_argument(*flags, dest=dest, type=float, default=default)
    p.add_argument("--output_pdb_file", "-output_pdb_file", "-o", default="membrane.pdb")
    return p


def create_membrane(args: argparse.Namespace) -> int:
    target = Path(args.output_pdb_file)
    count = work.membrane(Path(args.input_pdb_file), args.anchor_residue, args.angle,
                          args.ring_step, args.ring_span, target)  # fmt: skip
    print(f"lgd_create_membrane.py: {count} beads written to {target}", file=sys.stderr)
    return 0


# --- lgd_filter_membrane.py ------------------------------------------------------------------


def filter_membrane_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_filter_membrane.py")
    p.add_argument("ranking_file")
    p.add_argument("restraints_file")
    p.add_argument("parsed_receptor_file")
    p.add_argument("receptor_chains")
    p.add_argument("ligand_chains")
    p.add_argument("--cutoff", "-cutoff", "-c", dest="cutoff", type=float, default=1.0)
    return p


def filter_membrane(args: argparse.Namespace) -> int:
    """Models above the membrane (:func:`sparkledock.workflow.lightdock_tools.membrane_filter`)."""
    passed, total, height, out = work.membrane_filter(
        Path(args.ranking_file), args.restraints_file, args.parsed_receptor_file,
        args.ligand_chains, args.cutoff, print,
        lambda line: print(f"lgd_filter_membrane.py: warning: {line}", file=sys.stderr),
    )  # fmt: skip
    print(
        f"lgd_filter_membrane.py: {passed} of {total} models above z = {height:.3f} in {out}",
        file=sys.stderr,
    )
    return 0
