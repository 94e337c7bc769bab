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
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import InputFileError
from ..fileutil import atomic_write_text, read_text_input
from ..io.lightdock import format_points_pdb
from ..molecule.geometry import ellipsoid_poles
from ..molecule.pose import PoseLayout
from ..molecule.structure import Atoms, centred, clean, lightdock_centre, read_structure
from ..molecule.system import DockingSetup, Partner
from ..scoring import SCORING_FUNCTIONS, from_lightdock


def check_structures(
    setup: DockingSetup, receptor: str, ligand: str, parsed_names: bool = False
) -> None:
    """LightDock's tools read ``lightdock_<name>`` beside each named structure; sparkledock
    reads the setup's. Refuse names that are not the setup's, rather than mixing files
    (``parsed_names``: the parsed ``lightdock_<name>`` is accepted too, for the tools that
    LightDock gives the parsed files)."""
    config, setup_dir = setup.config, setup.path
    for given, key in ((receptor, "receptor_pdb"), (ligand, "ligand_pdb")):
        if not Path(given).exists():
            raise InputFileError(f"{given}: no such file")
        name, expected = Path(given).name, Path(config[key]).name
        if name != expected and not (parsed_names and name == f"lightdock_{expected}"):
            raise InputFileError(
                f"{given}: the setup in {setup_dir} docks {config[key]} as its {key.split('_')[0]}"
            )


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
    from ..scoring.prepared import prepare_scoring

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


# --- poses in the parsed files' frame --------------------------------------------------------


def _docking_setup(setup_file: str, receptor: str, ligand: str) -> DockingSetup:
    """The setup of ``setup_file``, once ``receptor`` and ``ligand`` are checked to be its
    structures (given by their own names or their parsed ``lightdock_`` names)."""
    from ..analysis.models import with_file_atoms
    from ..io.lightdock import load_setup

    path = Path(setup_file)
    if not path.is_file():
        raise InputFileError(f"{path}: no such setup file")
    setup = load_setup(path.parent)
    check_structures(setup, receptor, ligand, parsed_names=True)
    return with_file_atoms(setup)


def parsed_structures(setup: DockingSetup) -> tuple[Atoms, Atoms]:
    """The receptor's and the ligand's parsed ``lightdock_*.pdb`` as they stand."""
    from ..io.setupdir import SetupDir

    folder = SetupDir(setup.path)
    return (
        read_structure(folder.structure(setup.structure_name("receptor"))),
        read_structure(folder.structure(setup.structure_name("ligand"))),
    )


def file_frame_conformers(
    setup: DockingSetup, receptor: Atoms, ligand: Atoms, poses: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Receptor (P, N, 3) and ligand (P, M, 3) coordinates of each pose as LightDock's helpers
    place them: the parsed files' coordinates as they stand (LightDock does not re-centre
    them here, unlike its simulation), the normal modes added, the ligand rotated and then
    translated. ``setup`` holds every atom of the parsed files (``with_file_atoms``)."""
    from ..molecule.pose import ligand_conformers, receptor_conformers

    poses = setup.layout.validate(poses)
    rec, lig = setup.receptor, setup.ligand
    return (
        receptor_conformers(receptor.coords, rec.modes, rec.mask, poses, setup.layout),
        ligand_conformers(ligand.coords, lig.modes, lig.mask, poses, setup.layout),
    )


# --- lgd_map_contacts.py ---------------------------------------------------------------------


def map_contacts_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lgd_map_contacts.py")
    p.add_argument("receptor_structure")
    p.add_argument("ligand_structure")
    p.add_argument("setup_file")
    p.add_argument("output_pdb_file")
    p.add_argument("gso_files", nargs="+")
    return p


#: poses moved at once when mapping contacts (memory: P × atoms × 24 bytes)
_POSE_CHUNK = 64


def map_contacts(args: argparse.Namespace) -> int:
    """LightDock's contact map. LightDock 0.9.4's script fails with an IndexError on a setup
    without normal modes; here it maps those too."""
    from ..analysis.contacts import normalised_frequencies, residue_contact_counts
    from ..io.lightdock import format_lightdock_pdb, read_gso_output

    target = Path(args.output_pdb_file)
    if target.exists():
        raise InputFileError(f"{target}: already exists")
    setup = _docking_setup(args.setup_file, args.receptor_structure, args.ligand_structure)
    receptor, ligand = parsed_structures(setup)
    outputs = [(path, read_gso_output(path).poses) for path in args.gso_files]
    # LightDock's residue key: chain, name and number (an insertion code is not told apart)
    keys = [
        f"{c}.{r}.{n}"
        for c, r, n in zip(receptor.chain, receptor.res_name, receptor.res_seq, strict=True)
    ]
    index = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    residue = np.array([index[k] for k in keys], dtype=np.int64)
    counts = np.zeros(len(index), dtype=np.int64)
    for path, poses in outputs:
        for start in range(0, len(poses), _POSE_CHUNK):
            rec, lig = file_frame_conformers(
                setup, receptor, ligand, poses[start : start + _POSE_CHUNK]
            )
            counts += residue_contact_counts(rec, lig, residue, len(index))
        print(f"lgd_map_contacts.py: {path}: {len(poses)} glowworms", file=sys.stderr)
    frequency = normalised_frequencies(counts)
    mapped = replace(receptor, b_factor=frequency[residue])
    atomic_write_text(target, format_lightdock_pdb(mapped))
    print(f"spectrum b, white_blue, minimum=0, maximum={float(frequency.max())}")
    print(f"lgd_map_contacts.py: {target} written", file=sys.stderr)
    return 0


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
    """One glowworm's complex at each step ``0..steps`` with a ``gso_<step>.out`` in the
    current folder (a swarm's), as LightDock writes it: the receptor's parsed atoms, then the
    ligand's, each as it stands in its file. LightDock appends to an existing trajectory file;
    here each is written anew."""
    from ..io.lightdock import format_lightdock_pdb, read_gso_output

    setup = _docking_setup(args.setup_file, args.receptor_pdb, args.ligand_pdb)
    receptor, ligand = parsed_structures(setup)
    chosen = []
    for step in range(args.steps + 1):
        path = Path(f"gso_{step}.out")
        if not path.is_file():
            continue
        poses = read_gso_output(path).poses
        if not 0 <= args.glowworm_id < len(poses):
            raise InputFileError(f"{path}: no glowworm {args.glowworm_id} (it holds {len(poses)})")
        chosen.append((step, poses[args.glowworm_id]))
    if not chosen:
        raise InputFileError(f"no gso_<step>.out for steps 0 to {args.steps} in {Path.cwd()}")
    rec, lig = file_frame_conformers(setup, receptor, ligand, np.array([p for _, p in chosen]))
    for (step, _), rec_xyz, lig_xyz in zip(chosen, rec, lig, strict=True):
        text = format_lightdock_pdb(receptor.with_coords(rec_xyz)) + format_lightdock_pdb(
            ligand.with_coords(lig_xyz)
        )
        atomic_write_text(Path(f"trajectory_{args.glowworm_id}_step_{step}.pdb"), text)
    print(f"lgd_generate_trajectory.py: {len(chosen)} steps written", file=sys.stderr)
    return 0


# --- lgd_create_membrane.py ------------------------------------------------------------------


def create_membrane_parser() -> argparse.ArgumentParser:
    from ..preparation.membrane import BEAD_ANGLE_DEG, RING_SPAN_A, RING_STEP_A

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


def anchor_atom(atoms: Atoms, residue: str, source: str) -> int:
    """Index of the C-alpha of ``CHAIN.RESNAME.NUMBER[INSERTION]``: the first in the file
    (ProDy's ``resnum N`` matches any insertion code when none is given)."""
    try:
        chain, name, number = residue.split(".")
        icode = number.lstrip("-0123456789")
        seq = int(number[: len(number) - len(icode)])
    except ValueError:
        raise InputFileError(
            f"{residue}: expected a residue as CHAIN.RESNAME.NUMBER (A.LYS.24)"
        ) from None
    hit = (
        (atoms.chain.astype(str) == chain)
        & (atoms.res_name.astype(str) == name)
        & (atoms.res_seq == seq)
        & (atoms.atom_name.astype(str) == "CA")
    )
    if icode:
        hit &= atoms.ins_code.astype(str) == icode
    found = np.flatnonzero(hit)
    if len(found) == 0:
        raise InputFileError(f"{source}: residue {residue} (its C-alpha) not found")
    return int(found[0])


def create_membrane(args: argparse.Namespace) -> int:
    from ..preparation.membrane import check_resolution, membrane_beads

    check_resolution(args.angle, args.ring_step, args.ring_span)  # (before reading anything)
    path = Path(args.input_pdb_file)
    atoms = read_structure(path)
    anchor = anchor_atom(atoms, args.anchor_residue, str(path))
    beads = membrane_beads(atoms, anchor, args.angle, args.ring_step, args.ring_span)
    target = Path(args.output_pdb_file)
    atomic_write_text(target, format_points_pdb(beads, "BJ", "MMB", "P"))
    print(f"lgd_create_membrane.py: {len(beads)} beads written to {target}", file=sys.stderr)
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


#: where ``lgd_filter_membrane.py`` copies the passing models (in the current folder)
FILTERED_FOLDER = "filtered"


def filter_membrane(args: argparse.Namespace) -> int:
    """The ranked models (``swarm_<s>/lightdock_<g>.pdb`` beside the ranking, as
    ``lgd_generate_conformations.py`` writes them) with at least ``cutoff`` of the ligand's
    C-alpha atoms at or above the membrane, copied into ``filtered/`` with
    ``rank_filtered.list``. LightDock 0.9.4's script fails on every ranking (it reads an
    ``id_cluster`` its ranking entries do not have); this does what it means to. A missing or
    unreadable model is skipped with a warning, as LightDock logs and goes on."""
    from ..analysis.membrane import fraction_above, membrane_height
    from ..analysis.rank import read_ranking
    from ..io.restraints import read_restraints

    out = Path(FILTERED_FOLDER)
    if out.exists():
        raise InputFileError(f"{out.absolute()}: already exists")
    ranking_file = Path(args.ranking_file)
    ranking = read_ranking(ranking_file)
    side = read_restraints(args.restraints_file).receptor
    residues = side.active + side.passive
    height = membrane_height(
        read_structure(args.parsed_receptor_file), residues, args.parsed_receptor_file
    )
    chains = [c.strip() for c in args.ligand_chains.split(",")]
    base = ranking_file.absolute().parent
    passed: dict[tuple[int, int], tuple[Path, float]] = {}
    for entry in ranking:
        model = base / f"swarm_{entry.swarm}" / f"lightdock_{entry.glowworm}.pdb"
        try:
            fraction = fraction_above(read_structure(model), chains, height, str(model))
        except InputFileError as exc:
            print(f"lgd_filter_membrane.py: warning: skipped: {exc}", file=sys.stderr)
            continue
        if fraction >= args.cutoff:
            passed[(entry.swarm, entry.glowworm)] = (model, fraction)
        print(f"{model!s:40s}  {fraction:5.3f}")
    out.mkdir()
    lines = []
    for entry in ranking:
        if (entry.swarm, entry.glowworm) in passed:
            model, fraction = passed[(entry.swarm, entry.glowworm)]
            name = f"swarm_{entry.swarm}_{entry.glowworm}.pdb"
            shutil.copyfile(model, out / name)
            lines.append(f"{name}   {entry.score:5.3f}  {fraction:5.3f}\n")
    atomic_write_text(out / "rank_filtered.list", "".join(lines))
    print(
        f"lgd_filter_membrane.py: {len(passed)} of {len(ranking)} models above z = "
        f"{height:.3f} in {out}",
        file=sys.stderr,
    )
    return 0
