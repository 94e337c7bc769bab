"""LightDock's post-processing helpers that users script with, as sparkledock commands.

- ``lgd_gso_to_csv.py RANKING CSV [-s SEP]``: a gso or ranking file as CSV, the pose quoted;
- ``lgd_calculate_scoring.py FUNCTION RECEPTOR LIGAND``: the score of a complex as the two
  files place it (any sparkledock scoring function; LightDock's names accepted);
- ``lgd_calculate_reference_points.py STRUCTURE [--noxt]``: the minimum-volume ellipsoid's
  six poles and centre (``STRUCTURE.vol`` and ``STRUCTURE.vol.pdb``), LightDock's output.

Each reads and checks its inputs before writing, and writes atomically.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from .errors import InputFileError
from .fileutil import atomic_write_text, read_text_input
from .geometry import ellipsoid_poles
from .io.lightdock import format_points_pdb
from .pose import PoseLayout
from .scoring import SCORING_FUNCTIONS, from_lightdock
from .structure import centred, clean, lightdock_centre, read_structure
from .system import DockingSetup, Partner


def gso_to_csv_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_gso_to_csv.py")
    p.add_argument("ranking_file")
    p.add_argument("csv_file")
    p.add_argument("-s", "--sep", dest="csv_sep", default=",")
    return p


def gso_to_csv_text(text: str, sep: str = ",", source: str = "ranking") -> str:
    """LightDock's CSV of a gso or ranking file: the header's words, then per line the fields
    before the pose, the pose ``(...)`` in double quotes, and the fields after it."""
    lines = text.splitlines()
    if not lines:
        raise InputFileError(f"{source}: file is empty")
    out = [sep.join(lines[0].split())]
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        first, last = line.find("("), line.find(")")
        if first < 0 or last < first:
            raise InputFileError(f"{source}: line {number}: no pose in parentheses")
        fields = [*line[:first].split(), f'"{line[first : last + 1].strip()}"']
        out.append(sep.join(fields + line[last + 1 :].split()))
    return "\n".join(out) + "\n"


def gso_to_csv(args: argparse.Namespace) -> int:
    text = read_text_input(Path(args.ranking_file), "ranking")
    csv = gso_to_csv_text(text, args.csv_sep, args.ranking_file)
    atomic_write_text(Path(args.csv_file), csv)
    print(f"lgd_gso_to_csv.py: {csv.count(chr(10)) - 1} lines written", file=sys.stderr)
    return 0


def calculate_scoring_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_calculate_scoring.py")
    p.add_argument("scoring_function")
    p.add_argument("receptor")
    p.add_argument("ligand")
    return p


def complex_score(function: str, receptor: Path, ligand: Path) -> float:
    """The score (larger is better, as LightDock's gso files hold it) of the complex the two
    structure files form as they stand: the ligand posed at its own place, no modes."""
    from .api import prepare_scoring

    name = from_lightdock(function)
    if name not in SCORING_FUNCTIONS:
        raise InputFileError(f"{function}: no such scoring function")
    parts = []
    for path in (receptor, ligand):
        atoms = clean(read_structure(path), source=str(path))
        if len(atoms) == 0:
            raise InputFileError(f"{path}: no atoms to score")
        parts.append(atoms)
    rec, lig = parts
    setup = DockingSetup(
        path=Path(receptor).parent,
        receptor=Partner.rigid(centred(rec)),
        ligand=Partner.rigid(centred(lig)),
        layout=PoseLayout(0, 0),
        config={"receptor_pdb": Path(receptor).name, "ligand_pdb": Path(ligand).name},
        receptor_centre=lightdock_centre(rec),
        model_centre=lightdock_centre(rec),
    )
    prepared = prepare_scoring(setup, scoring=name)
    pose = np.zeros((1, 7))
    pose[0, :3] = lightdock_centre(lig) - lightdock_centre(rec)
    pose[0, 3] = 1.0
    return float(prepared.score(pose)[0])


def calculate_scoring(args: argparse.Namespace) -> int:
    print(complex_score(args.scoring_function, Path(args.receptor), Path(args.ligand)))
    return 0


def reference_points_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_calculate_reference_points.py")
    p.add_argument("structure")
    p.add_argument("--noxt", action="store_true", default=False)
    return p


def reference_points(args: argparse.Namespace) -> int:
    path = Path(args.structure)
    atoms = read_structure(path)
    if args.noxt:
        atoms = atoms.select(atoms.atom_name.astype(str) != "OXT")
    try:
        centre, poles = ellipsoid_poles(atoms.coords)
    except ValueError as exc:
        raise InputFileError(f"{path}: {exc}") from None
    points = np.vstack([poles, centre])
    target = Path(f"{path}.vol")
    atomic_write_text(target, "".join(f"{x:8.5f} {y:8.5f} {z:8.5f}\n" for x, y, z in points))
    atomic_write_text(Path(f"{target}.pdb"), format_points_pdb(points))
    print(f"lgd_calculate_reference_points.py: points written to {target}", file=sys.stderr)
    return 0
