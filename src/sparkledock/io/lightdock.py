"""LightDock setup directories and pose files.

A setup directory holds ``setup.json``, the parsed structures ``lightdock_<name>.pdb``, their
normal-mode masks ``lightdock_<stem>_mask.npy``, the modes ``lightdock_rec.nm.npy`` and
``lightdock_lig.nm.npy`` and ``init/initial_positions_<swarm>.dat``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from ..errors import InputFileError, PoseError
from ..fileutil import atomic_write_text, read_text_input
from ..molecule.geometry import lightdock_rotate
from ..molecule.pose import PoseLayout
from ..molecule.structure import Atoms, centred, clean, lightdock_centre, read_structure
from ..molecule.system import DockingSetup, Partner
from .pack import ensure_unpacked, unpack_for
from .setupdir import (
    LIG_MODES_FILE,
    REC_MODES_FILE,
    SETUP_FILE,
    lightdock_name,
    mask_name,
)

#: setup.json key of what sparkledock adds (LightDock ignores it): the inputs' frame
FRAME_KEY = "sparkledock"
#: a parsed structure whose centre is farther than this from the origin is not centred
CENTRED_TOLERANCE_A = 0.01


def _load_npy(path: Path) -> np.ndarray:
    if not path.is_file():
        raise InputFileError(f"{path}: no such file")
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputFileError(f"{path}: not a readable .npy array ({exc})") from None


def cleaning(config: dict) -> dict[str, bool]:
    """The cleaning a setup applied (its ``noh``/``now``/``noxt`` flags), as the keyword
    options of :func:`sparkledock.molecule.structure.clean` and ``removal_mask``."""
    return {
        "remove_hydrogens": bool(config.get("noh", False)),
        "remove_water": bool(config.get("now", False)),
        "remove_oxt": bool(config.get("noxt", True)),
    }


def _load_partner(
    setup_dir: Path, pdb_name: str, modes_file: str, n_modes: int, config: dict
) -> tuple[Partner, np.ndarray]:
    pdb = setup_dir / lightdock_name(pdb_name)
    atoms = clean(read_structure(pdb), source=str(pdb), **cleaning(config))
    centre = lightdock_centre(atoms)
    parsed = atoms.coords
    atoms = centred(atoms)
    if n_modes == 0:
        return replace(Partner.rigid(atoms), parsed_coords=parsed), centre
    mask = _load_npy(setup_dir / mask_name(pdb_name)).astype(bool)
    if mask.shape != (len(atoms),):
        raise InputFileError(
            f"{setup_dir / mask_name(pdb_name)}: mask has {mask.shape[0]} "
            f"entries but {pdb} has {len(atoms)} atoms"
        )
    modes = _load_npy(setup_dir / modes_file).astype(np.float64)
    if modes.ndim != 3 or modes.shape[1:] != (int(mask.sum()), 3) or modes.shape[0] < n_modes:
        raise InputFileError(
            f"{setup_dir / modes_file}: expected at least {n_modes} modes of shape "
            f"({int(mask.sum())}, 3), got {modes.shape}"
        )
    return Partner(atoms, np.ascontiguousarray(modes[:n_modes]), mask, parsed), centre


def load_setup(setup_dir: str | os.PathLike[str]) -> DockingSetup:
    """Load a LightDock 0.9.4 setup directory (receptor, ligand, modes, masks).

    Structures are read from the ``lightdock_*.pdb`` files that setup wrote, cleaned by the
    setup's flags and centred, exactly as LightDock's simulation prepares them.

    Raises:
        InputFileError: a file is missing or inconsistent (the message names it).
    """
    setup_dir = Path(setup_dir)
    if not setup_dir.is_dir():
        raise InputFileError(f"{setup_dir}: no such setup directory")
    setup_json = setup_dir / SETUP_FILE
    if not setup_json.is_file():
        raise InputFileError(f"{setup_json}: no such file (not a LightDock setup directory?)")
    try:
        config = json.loads(setup_json.read_text())
    except json.JSONDecodeError as exc:
        raise InputFileError(f"{setup_json}:{exc.lineno}: invalid JSON ({exc.msg})") from None
    ensure_unpacked(setup_dir)  # (a finished docking's swarm files, read as they were)
    for key in ("receptor_pdb", "ligand_pdb"):
        if key not in config:
            raise InputFileError(f"{setup_json}: missing key {key!r}")
    use_anm = bool(config.get("use_anm", False))
    n_rec = int(config.get("anm_rec", 0)) if use_anm else 0
    n_lig = int(config.get("anm_lig", 0)) if use_anm else 0
    receptor, rec_centre = _load_partner(
        setup_dir, config["receptor_pdb"], REC_MODES_FILE, n_rec, config
    )
    ligand, _ = _load_partner(setup_dir, config["ligand_pdb"], LIG_MODES_FILE, n_lig, config)
    return DockingSetup(
        setup_dir,
        receptor,
        ligand,
        PoseLayout(n_rec, n_lig),
        config,
        rec_centre,
        model_frame(rec_centre, config),
    )


def model_frame(file_centre: np.ndarray, config: dict) -> np.ndarray:
    """Where models put the centred receptor.

    A parsed file that is centred (LightDock's and sparkledock's setups write it so) goes back
    to the input's frame that sparkledock's ``setup.json`` records, or stays in LightDock's
    centred frame for LightDock's setups. A parsed file that is not centred (an original
    structure copied over it, as HADDOCK3's LightDock module does) keeps its own frame.
    """
    recorded = (config.get(FRAME_KEY) or {}) if isinstance(config.get(FRAME_KEY), dict) else {}
    if np.linalg.norm(file_centre) > CENTRED_TOLERANCE_A or "receptor_centre" not in recorded:
        return file_centre
    return file_centre + np.asarray(recorded["receptor_centre"], dtype=np.float64)


def read_poses(path: str | os.PathLike[str], layout: PoseLayout) -> np.ndarray:
    """Read poses, one per line, whitespace separated (the ``initial_positions`` format).

    Blank lines and ``#`` comments are skipped.

    Raises:
        InputFileError: the file is missing, binary or empty.
        PoseError: a line has the wrong count of numbers or a non-number (names the line).
    """
    path = Path(path)
    rows: list[list[float]] = []
    for lineno, raw in enumerate(read_text_input(path, "poses").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != layout.size:
            raise PoseError(
                f"{path}:{lineno}: expected {layout.size} numbers per pose, got {len(fields)}"
            )
        try:
            rows.append([float(v) for v in fields])
        except ValueError:
            raise PoseError(f"{path}:{lineno}: not a number in {raw.strip()!r}") from None
    if not rows:
        raise InputFileError(f"{path}: no poses found")
    return layout.validate(np.array(rows), source=str(path))


def write_poses(path: str | os.PathLike[str], poses: np.ndarray, durable: bool = True) -> None:
    """Write poses in LightDock's ``initial_positions`` format (9 decimals); ``durable=False``
    leaves the flush to disk to the caller (one ``os.sync`` after many files)."""
    rows = np.atleast_2d(poses)
    line = " ".join(["%.9f"] * rows.shape[1]) + "\n"
    text = (line * len(rows)) % tuple(rows.ravel().tolist())
    atomic_write_text(path, text, durable=durable)


def format_lightdock_pdb(atoms: Atoms) -> str:
    """A structure as LightDock writes its parsed ``lightdock_<name>.pdb``, byte for byte:
    ATOM/HETATM lines only, the input's serial numbers (past 99,999 they wrap round: five
    columns, which LightDock reads) and alternate locations, no TER."""
    out = []
    for k in range(len(atoms)):
        name = str(atoms.atom_name[k])
        name = name if len(name) == 4 else f" {name}"
        record = "HETATM" if atoms.hetero[k] else "ATOM  "
        x, y, z = atoms.coords[k].tolist()
        out.append(
            f"{record}{int(atoms.serial[k]) % 100_000:5d} {name:<4}{atoms.altloc[k]!s:<1}"
            f"{atoms.res_name[k]!s:>3}{atoms.chain[k]!s:>2}{int(atoms.res_seq[k]):4d}"
            f"{atoms.ins_code[k]!s:<1}   {x:8.3f}{y:8.3f}{z:8.3f}"
            f"{float(atoms.occupancy[k]):6.2f}{float(atoms.b_factor[k]):6.2f}"
            f"{atoms.element[k]!s:>12}\n"
        )
    return "".join(out)


def format_points_pdb(
    points: np.ndarray, atom_name: str = "H", res_name: str = "SWR", element: str = "H"
) -> str:
    """Points as LightDock's ``create_pdb_from_points`` writes them, byte for byte: one atom
    per point in chain Z, numbered from 1 (``swarm_centers.pdb`` and
    ``starting_positions_<swarm>.pdb`` use H atoms of residue SWR, ``lgd_create_membrane.py``
    BJ beads of residue MMB, element P)."""
    name = atom_name if len(atom_name) == 4 else f" {atom_name}"
    return "".join(
        f"ATOM  {i + 1:5d} {name:<4} {res_name:>3} Z{i + 1:4d}    {x:8.3f}{y:8.3f}{z:8.3f}"
        f"  1.00  1.00{element:>12}\n"
        for i, (x, y, z) in enumerate(np.asarray(points, dtype=np.float64).reshape(-1, 3))
    )


def format_bild(poses: np.ndarray, length: float = 2.0) -> str:
    """Glowworm orientations as LightDock's ``starting_poses_<swarm>.bild`` (BILD, for
    Chimera): a sphere at each translation and the rotated x, y and z axes as arrows."""
    out = [".color cornflower blue\n.transparency 0.7\n.transparency 0.0\n"]
    for pose in np.atleast_2d(poses).tolist():
        t, q = pose[:3], pose[3:7]
        block = f".color cornflower blue\n.sphere {t[0]:f} {t[1]:f} {t[2]:f} {0.3:f}\n"
        for colour, axis in (
            ("1 0 0", [length, 0, 0]),
            ("1 1 0", [0, length, 0]),
            ("0 0 1", [0, 0, length]),
        ):
            e = lightdock_rotate(q, axis)
            block += (
                f".color {colour}\n.arrow {t[0]:f} {t[1]:f} {t[2]:f} "
                f"{t[0] + e[0]:f} {t[1] + e[1]:f} {t[2] + e[2]:f}\n"
            )
        out.append(block + "\n")
    return "".join(out)


GSO_HEADER = "#Coordinates  RecID  LigID  Luciferin  Neighbor's number  Vision Range  Scoring\n"


def format_gso_output(
    poses: np.ndarray,
    luciferin: np.ndarray,
    neighbors: np.ndarray,
    vision_range: np.ndarray,
    scores: np.ndarray,
) -> str:
    """One swarm's glowworms in LightDock's ``gso_<step>.out`` format (receptor and ligand
    conformer ids are always 0)."""
    poses = np.atleast_2d(np.asarray(poses, dtype=np.float64))
    n, width = poses.shape
    if not (len(luciferin) == len(neighbors) == len(vision_range) == len(scores) == n):
        raise ValueError("format_gso_output: one value per glowworm in every column")
    # one %-template for all rows: C-level formatting, the same text as per-value f-strings
    row = "(" + ", ".join(["%10.7f"] * width) + ")    0    0 %12.8f %2d %5.3f %12.8f\n"
    table = np.empty((n, width + 4), dtype=object)
    table[:, :width] = poses.tolist()
    table[:, width] = np.asarray(luciferin, dtype=np.float64).tolist()
    table[:, width + 1] = [int(v) for v in neighbors]
    table[:, width + 2] = np.asarray(vision_range, dtype=np.float64).tolist()
    table[:, width + 3] = np.asarray(scores, dtype=np.float64).tolist()
    return GSO_HEADER + (row * n) % tuple(table.ravel().tolist())


def write_gso_output(
    path: str | os.PathLike[str],
    poses: np.ndarray,
    luciferin: np.ndarray,
    neighbors: np.ndarray,
    vision_range: np.ndarray,
    scores: np.ndarray,
    durable: bool = True,
) -> None:
    """Write one swarm's ``gso_<step>.out`` atomically (``durable=False`` leaves the flush to
    disk to the caller: one ``os.sync`` after many files)."""
    text = format_gso_output(poses, luciferin, neighbors, vision_range, scores)
    atomic_write_text(path, text, durable=durable)


@dataclass(frozen=True)
class GSOOutput:
    """A parsed ``gso_<step>.out``: one row per glowworm."""

    poses: np.ndarray
    luciferin: np.ndarray
    neighbors: np.ndarray
    vision_range: np.ndarray
    scores: np.ndarray


def _rounded(values: np.ndarray, decimals: int) -> np.ndarray:
    """Values as ``f"{v:.{decimals}f}"`` prints them and ``float`` reads them back."""
    flat = np.asarray(values, dtype=np.float64).ravel()
    if not len(flat):
        return np.zeros(np.shape(values))
    text = (f"%.{decimals}f " * len(flat)) % tuple(flat.tolist())
    return np.array([float(v) for v in text.split()]).reshape(np.shape(values))


def poses_as_written(poses: np.ndarray) -> np.ndarray:
    """Poses at the precision a gso file keeps them (7 decimals)."""
    return _rounded(poses, 7)


def as_written(poses, luciferin, neighbors, vision_range, scores) -> GSOOutput:
    """One swarm's glowworms at the precision a ``gso_<step>.out`` keeps them, equal to what
    :func:`read_gso_output` returns for the file :func:`write_gso_output` writes (without
    the round trip through text): LightDock analyses from the files, so rankings and models
    come from these values whether a run hands them over or a resumed one reads them."""
    return GSOOutput(
        _rounded(poses, 7),
        _rounded(luciferin, 8),
        np.asarray(neighbors, dtype=np.int64).copy(),
        _rounded(vision_range, 3),
        _rounded(scores, 8),
    )


def split_pose_line(line: str) -> tuple[list[str], list[float], list[str]]:
    """Split a LightDock result line ``HEAD (x, y, ...) TAIL`` into head fields, the pose and
    tail fields (the layout of ``gso_<step>.out`` and ranking files).

    Raises:
        ValueError: no parenthesised pose, or a non-number in it.
    """
    head, rest = line.split("(", 1)
    inside, tail = rest.split(")", 1)
    return head.split(), [float(v) for v in inside.split(",")], tail.split()


def read_gso_output(path: str | os.PathLike[str]) -> GSOOutput:
    """Read LightDock's (or sparkledock's) ``gso_<step>.out``.

    Raises:
        InputFileError: missing file or a malformed line (named).
    """
    path = Path(path)
    if not path.is_file():  # (a finished docking's packed swarm files)
        unpack_for(path)
    rows = []
    for lineno, line in enumerate(read_text_input(path, "gso").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            _, pose, tail = split_pose_line(line)
            _rec, _lig, lum, nb, vr, sc = tail
            rows.append((pose, float(lum), int(nb), float(vr), float(sc)))
        except ValueError:
            raise InputFileError(f"{path}:{lineno}: malformed glowworm line") from None
    if not rows:
        raise InputFileError(f"{path}: no glowworms found")
    return GSOOutput(
        poses=np.array([r[0] for r in rows]),
        luciferin=np.array([r[1] for r in rows]),
        neighbors=np.array([r[2] for r in rows]),
        vision_range=np.array([r[3] for r in rows]),
        scores=np.array([r[4] for r in rows]),
    )
