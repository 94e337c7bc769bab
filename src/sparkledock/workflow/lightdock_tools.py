"""LightDock's post-processing helpers (``lgd_*.py``), the work of each: what
:mod:`sparkledock.lightdock.tools` runs once it has parsed a command's arguments (the files
are LightDock's, byte for byte: tests/test_lightdock_tools.py). Each reads and checks its
inputs before writing, and writes atomically; ``say`` takes the progress lines a command
prints."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..analysis.contacts import normalised_frequencies, residue_contact_counts
from ..analysis.membrane import fraction_above, membrane_height
from ..analysis.models import with_file_atoms
from ..analysis.rank import read_ranking
from ..errors import InputFileError
from ..fileutil import atomic_write_text
from ..io.lightdock import format_lightdock_pdb, format_points_pdb, load_setup, read_gso_output
from ..io.restraints import read_restraints
from ..io.setupdir import FILTERED_FILE, SetupDir
from ..molecule.geometry import ellipsoid_poles
from ..molecule.pose import PoseLayout, ligand_conformers, receptor_conformers
from ..molecule.structure import Atoms, centred, clean, lightdock_centre, read_structure
from ..molecule.system import DockingSetup, Partner
from ..preparation.membrane import (
    BEAD_ANGLE_DEG as BEAD_ANGLE_DEG,
)
from ..preparation.membrane import (
    RING_SPAN_A as RING_SPAN_A,
)
from ..preparation.membrane import (
    RING_STEP_A as RING_STEP_A,
)
from ..preparation.membrane import (
    check_resolution,
    membrane_beads,
)
from ..scoring import SCORING_FUNCTIONS, from_lightdock
from ..scoring.prepared import prepare_scoring

Say = Callable[[str], None]


def _quiet(line: str) -> None:
    pass


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


def complex_score(function: str, receptor: Path, ligand: Path) -> float:
    """The score (larger is better, as LightDock's gso files hold it) of the complex the two
    structure files form as they stand: the ligand posed at its own place, no modes."""
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


def reference_points(path: Path, noxt: bool = False) -> Path:
    """The minimum-volume ellipsoid's six poles and centre of a structure, written as
    ``<path>.vol`` and ``<path>.vol.pdb`` (``lgd_calculate_reference_points.py``); the
    ``.vol`` file's path."""
    atoms = read_structure(path)
    if noxt:
        atoms = atoms.select(atoms.atom_name.astype(str) != "OXT")
    try:
        centre, poles = ellipsoid_poles(atoms.coords)
    except ValueError as exc:
        raise InputFileError(f"{path}: {exc}") from None
    points = np.vstack([poles, centre])
    target = Path(f"{path}.vol")
    atomic_write_text(target, "".join(f"{x:8.5f} {y:8.5f} {z:8.5f}\n" for x, y, z in points))
    atomic_write_text(Path(f"{target}.pdb"), format_points_pdb(points))
    return target


def docking_setup(setup_file: str, receptor: str, ligand: str) -> DockingSetup:
    """The setup of ``setup_file``, once ``receptor`` and ``ligand`` are checked to be its
    structures (given by their own names or their parsed ``lightdock_`` names)."""
    path = Path(setup_file)
    if not path.is_file():
        raise InputFileError(f"{path}: no such setup file")
    setup = load_setup(path.parent)
    check_structures(setup, receptor, ligand, parsed_names=True)
    return with_file_atoms(setup)


def parsed_structures(setup: DockingSetup) -> tuple[Atoms, Atoms]:
    """The receptor's and the ligand's parsed ``lightdock_*.pdb`` as they stand."""
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
    poses = setup.layout.validate(poses)
    rec, lig = setup.receptor, setup.ligand
    return (
        receptor_conformers(receptor.coords, rec.modes, rec.mask, poses, setup.layout),
        ligand_conformers(ligand.coords, lig.modes, lig.mask, poses, setup.layout),
    )


#: poses moved at once when mapping contacts (memory: P × atoms × 24 bytes)
POSE_CHUNK = 64


def contact_map(
    setup_file: str,
    receptor_file: str,
    ligand_file: str,
    gso_files: list[str],
    target: Path,
    say: Say = _quiet,
) -> float:
    """LightDock's contact map (``lgd_map_contacts.py``): the parsed receptor with each
    residue's contact frequency over the glowworms of ``gso_files`` as its B-factor, written
    to ``target``; the largest frequency. LightDock 0.9.4's script fails with an IndexError
    on a setup without normal modes; here it maps those too."""
    if target.exists():
        raise InputFileError(f"{target}: already exists")
    setup = docking_setup(setup_file, receptor_file, ligand_file)
    receptor, ligand = parsed_structures(setup)
    outputs = [(path, read_gso_output(path).poses) for path in gso_files]
    # LightDock's residue key: chain, name and number (an insertion code is not told apart)
    keys = [
        f"{c}.{r}.{n}"
        for c, r, n in zip(receptor.chain, receptor.res_name, receptor.res_seq, strict=True)
    ]
    index = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    residue = np.array([index[k] for k in keys], dtype=np.int64)
    counts = np.zeros(len(index), dtype=np.int64)
    for path, poses in outputs:
        for start in range(0, len(poses), POSE_CHUNK):
            rec, lig = file_frame_conformers(
                setup, receptor, ligand, poses[start : start + POSE_CHUNK]
            )
            counts += residue_contact_counts(rec, lig, residue, len(index))
        say(f"{path}: {len(poses)} glowworms")
    frequency = normalised_frequencies(counts)
    mapped = replace(receptor, b_factor=frequency[residue])
    atomic_write_text(target, format_lightdock_pdb(mapped))
    return float(frequency.max())


def trajectory(glowworm: int, steps: int, receptor_file: str, ligand_file: str,
               setup_file: str) -> int:  # fmt: skip
    """One glowworm's complex at each step ``0..steps`` with a ``gso_<step>.out`` in the
    current folder (a swarm's), as LightDock writes it (``lgd_generate_trajectory.py``): the
    receptor's parsed atoms, then the ligand's, each as it stands in its file; how many
    steps were written. LightDock appends to an existing trajectory file; here each is
    written anew."""
    setup = docking_setup(setup_file, receptor_file, ligand_file)
    receptor, ligand = parsed_structures(setup)
    chosen = []
    for step in range(steps + 1):
        path = Path(f"gso_{step}.out")
        if not path.is_file():
            continue
        poses = read_gso_output(path).poses
        if not 0 <= glowworm < len(poses):
            raise InputFileError(f"{path}: no glowworm {glowworm} (it holds {len(poses)})")
        chosen.append((step, poses[glowworm]))
    if not chosen:
        raise InputFileError(f"no gso_<step>.out for steps 0 to {steps} in {Path.cwd()}")
    rec, lig = file_frame_conformers(setup, receptor, ligand, np.array([p for _, p in chosen]))
    for (step, _), rec_xyz, lig_xyz in zip(chosen, rec, lig, strict=True):
        text = format_lightdock_pdb(receptor.with_coords(rec_xyz)) + format_lightdock_pdb(
            ligand.with_coords(lig_xyz)
        )
        atomic_write_text(Path(f"trajectory_{glowworm}_step_{step}.pdb"), text)
    return len(chosen)


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


def membrane(path: Path, residue: str, angle: float, ring_step: float, ring_span: float,
             target: Path) -> int:  # fmt: skip
    """A flat membrane of MMB beads at the height of ``residue``'s C-alpha, written to
    ``target`` (``lgd_create_membrane.py``); how many beads."""
    check_resolution(angle, ring_step, ring_span)  # (before reading anything)
    atoms = read_structure(path)
    anchor = anchor_atom(atoms, residue, str(path))
    beads = membrane_beads(atoms, anchor, angle, ring_step, ring_span)
    atomic_write_text(target, format_points_pdb(beads, "BJ", "MMB", "P"))
    return len(beads)


#: where ``lgd_filter_membrane.py`` copies the passing models (in the current folder)
FILTERED_FOLDER = "filtered"


def membrane_filter(
    ranking_file: Path,
    restraints_file: str,
    parsed_receptor_file: str,
    ligand_chains: str,
    cutoff: float,
    say: Say = _quiet,
    warn: Say = _quiet,
) -> tuple[int, int, float, Path]:
    """The ranked models (``swarm_<s>/lightdock_<g>.pdb`` beside the ranking, as
    ``lgd_generate_conformations.py`` writes them) with at least ``cutoff`` of the ligand's
    C-alpha atoms at or above the membrane, copied into ``filtered/`` with
    ``rank_filtered.list`` (``lgd_filter_membrane.py``): how many passed, of how many, the
    membrane's height and the folder. ``say`` gets each model's line, ``warn`` each skipped
    model. LightDock 0.9.4's script fails on every ranking (it reads an ``id_cluster`` its
    ranking entries do not have); this does what it means to. A missing or unreadable model
    is skipped with a warning, as LightDock logs and goes on."""
    out = Path(FILTERED_FOLDER)
    if out.exists():
        raise InputFileError(f"{out.absolute()}: already exists")
    ranking = read_ranking(ranking_file)
    side = read_restraints(restraints_file).receptor
    residues = side.active + side.passive
    height = membrane_height(read_structure(parsed_receptor_file), residues, parsed_receptor_file)
    chains = [c.strip() for c in ligand_chains.split(",")]
    base = ranking_file.absolute().parent
    passed: dict[tuple[int, int], tuple[Path, float]] = {}
    for entry in ranking:
        model = base / f"swarm_{entry.swarm}" / f"lightdock_{entry.glowworm}.pdb"
        try:
            fraction = fraction_above(read_structure(model), chains, height, str(model))
        except InputFileError as exc:
            warn(f"skipped: {exc}")
            continue
        if fraction >= cutoff:
            passed[(entry.swarm, entry.glowworm)] = (model, fraction)
        say(f"{model!s:40s}  {fraction:5.3f}")
    out.mkdir()
    lines = []
    for entry in ranking:
        if (entry.swarm, entry.glowworm) in passed:
            model, fraction = passed[(entry.swarm, entry.glowworm)]
            name = f"swarm_{entry.swarm}_{entry.glowworm}.pdb"
            shutil.copyfile(model, out / name)
            lines.append(f"{name}   {entry.score:5.3f}  {fraction:5.3f}\n")
    atomic_write_text(out / FILTERED_FILE, "".join(lines))
    return len(passed), len(ranking), height, out
