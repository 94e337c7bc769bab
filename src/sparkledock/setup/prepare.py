"""``sparkledock setup``: a LightDock-compatible setup directory from two structure files."""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..anm import normal_modes
from ..errors import InputFileError
from ..fileutil import atomic_write_bytes, atomic_write_text
from ..io.lightdock import write_poses
from ..io.restraints import Restraints, format_restraints, read_any_restraints
from ..partner import Partner
from ..pose import PoseLayout
from ..scoring.dfire import atom_types
from ..structure import Atoms, centred, clean, read_structure, write_structure
from .poses import DEFAULT_SWARM_RADIUS_A, initial_poses
from .surface import swarm_count
from .swarms import swarm_centres

SWARMS_PER_RESTRAINT = 20
RESTRAINT_SURFACE_A = 10.0


@dataclass(frozen=True)
class SetupOptions:
    """LightDock's setup options (defaults as LightDock 0.9.4's)."""

    glowworms: int = 200
    swarms: int = 0  # 0: from the receptor's surface area
    anm: bool = False
    anm_rec: int = 10
    anm_lig: int = 10
    anm_rmsd: float = 0.5
    noxt: bool = True
    noh: bool = False
    now: bool = False
    seed: int = 324324
    swarm_radius: float = DEFAULT_SWARM_RADIUS_A
    skip_unknown: bool = False


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _load(path: Path, options: SetupOptions) -> Atoms:
    atoms = clean(
        read_structure(path),
        remove_hydrogens=options.noh,
        remove_water=options.now,
        remove_oxt=options.noxt,
        source=str(path),
    )
    _, keep = atom_types(Partner.rigid(atoms), source=str(path), skip_unknown=options.skip_unknown)
    return atoms.select(keep)


def _restraint_atoms(atoms: Atoms, residues: list[str]) -> np.ndarray:
    """Coordinates of the atoms of the given residues (LightDock identifiers)."""
    ids = atoms.residue_ids()
    return atoms.coords[np.isin(ids, residues)]


def _calpha_sites(atoms: Atoms, residues: list[str]) -> np.ndarray:
    """C-alpha (else first atom) position of each listed residue, in the atoms' frame."""
    ids = atoms.residue_ids()
    sites = []
    for rid in residues:
        members = np.flatnonzero(ids == rid)
        ca = [i for i in members if atoms.atom_name[i] == "CA"]
        sites.append(atoms.coords[ca[0] if ca else members[0]])
    return np.array(sites).reshape(-1, 3)


def _central_atoms(atoms: Atoms, residues: list[str]) -> np.ndarray:
    """Per listed residue, the position of its atom nearest the residue's centroid (where
    LightDock's occlusion filter aims its line of sight)."""
    ids = atoms.residue_ids()
    sites = []
    for rid in residues:
        xyz = atoms.coords[ids == rid]
        sites.append(xyz[np.argmin(np.linalg.norm(xyz - xyz.mean(axis=0), axis=1))])
    return np.array(sites).reshape(-1, 3)


def prepare_setup(
    receptor: str | os.PathLike[str],
    ligand: str | os.PathLike[str],
    output: str | os.PathLike[str] = ".",
    *,
    restraints: str | os.PathLike[str] | None = None,
    options: SetupOptions = SetupOptions(),
) -> Path:
    """Write a LightDock 0.9.4-compatible setup directory; returns it.

    Files: ``setup.json``, ``lightdock_<name>.pdb`` (cleaned structures), their masks,
    ``lightdock_rec.nm.npy``/``lightdock_lig.nm.npy`` (with ANM), ``init/
    initial_positions_<swarm>.dat``, ``init/swarm_centers.pdb`` and empty ``swarm_<id>/``
    folders (LightDock's run expects them).

    With receptor restraints, swarms are placed only on the surface within 10 Å of the active
    and passive restraint residues, 20 per restraint residue at most, and only where the line of
    sight to the nearest restraint residue does not cross the receptor (LightDock's rules); with
    restraints on both partners, initial ligands turn a restraint residue toward one of the
    receptor's.

    Raises:
        SparkledockError: unreadable structure, unknown residue (unless skipped), bad
            restraint (one line each).
    """
    out = Path(output)
    rec_path, lig_path = Path(receptor), Path(ligand)
    rec_atoms, lig_atoms = _load(rec_path, options), _load(lig_path, options)
    rec_c, lig_c = centred(rec_atoms), centred(lig_atoms)

    parsed: Restraints | None = None
    if restraints is not None:
        rpath = Path(restraints)
        parsed = read_any_restraints(rpath, rec_c, lig_c)
        for side, atoms, name in (("receptor", rec_c, rec_path), ("ligand", lig_c, lig_path)):
            ids = set(atoms.residue_ids())
            for kind in ("active", "passive", "blocked"):
                for rid in getattr(getattr(parsed, side), kind):
                    if rid not in ids:
                        raise InputFileError(f"{rpath}: {side} restraint {rid} not found in {name}")

    # swarm centres on the (centred) receptor's surface
    count = options.swarms or swarm_count(rec_c)
    surface_filter = sights = None
    if parsed is not None and (parsed.receptor.active or parsed.receptor.passive):
        near = parsed.receptor.active + parsed.receptor.passive
        surface_filter = _restraint_atoms(rec_c, near)
        sights = _central_atoms(rec_c, near)
        count = options.swarms or SWARMS_PER_RESTRAINT * len(near)
    centres = swarm_centres(
        rec_c,
        lig_c,
        count,
        seed=options.seed,
        near=surface_filter,
        near_distance=RESTRAINT_SURFACE_A,
        sights=sights,
    )
    if len(centres) == 0:
        raise InputFileError(f"{rec_path}: no room for swarms on the receptor surface")

    n_rec = options.anm_rec if options.anm else 0
    n_lig = options.anm_lig if options.anm else 0
    layout = PoseLayout(n_rec, n_lig)
    ids = np.arange(len(centres))
    rec_sites = lig_sites = None
    if parsed is not None:
        rec_sites = _calpha_sites(rec_c, parsed.receptor.active + parsed.receptor.passive)
        lig_sites = _calpha_sites(lig_c, parsed.ligand.active + parsed.ligand.passive)
    poses = initial_poses(
        centres,
        ids,
        options.glowworms,
        layout,
        seed=options.seed,
        radius=options.swarm_radius,
        rec_sites=rec_sites,
        lig_sites=lig_sites,
    )

    out.mkdir(parents=True, exist_ok=True)
    for atoms, path in ((rec_atoms, rec_path), (lig_atoms, lig_path)):
        write_structure(atoms, out / f"lightdock_{path.name}")
    for atoms, path, n, modes_file in (
        (rec_c, rec_path, n_rec, "lightdock_rec.nm.npy"),
        (lig_c, lig_path, n_lig, "lightdock_lig.nm.npy"),
    ):
        if n:
            modes, mask = normal_modes(
                atoms, n_modes=n, rmsd=options.anm_rmsd, seed=options.seed, source=str(path)
            )
            atomic_write_bytes(out / modes_file, _npy_bytes(modes))
        else:
            mask = np.ones(len(atoms), dtype=bool)
        atomic_write_bytes(out / f"lightdock_{path.stem}_mask.npy", _npy_bytes(mask))
    for swarm in ids:
        write_poses(out / "init" / f"initial_positions_{swarm}.dat", poses[swarm])
        (out / f"swarm_{swarm}").mkdir(exist_ok=True)
    atomic_write_text(
        out / "init" / "swarm_centers.pdb",
        "".join(
            f"ATOM  {i + 1:5d}  H   SWR A{i % 10000:4d}    {x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00"
            f"           H\n"
            for i, (x, y, z) in enumerate(centres)
        )
        + "END\n",
    )
    config = {
        "anm_lig": options.anm_lig,
        "anm_lig_rmsd": options.anm_rmsd,
        "anm_rec": options.anm_rec,
        "anm_rec_rmsd": options.anm_rmsd,
        "anm_seed": options.seed,
        "dense_sampling": False,
        "fixed_distance": 0.0,
        "flip": False,
        "glowworms": options.glowworms,
        "ligand_pdb": lig_path.name,
        "membrane": False,
        "noh": options.noh,
        "now": options.now,
        "noxt": options.noxt,
        "receptor_pdb": rec_path.name,
        "restraints": "restraints.list" if parsed is not None else None,
        "setup_version": "0.9.4",
        "starting_points_seed": options.seed,
        "surface_density": 50.0,
        "swarm_radius": options.swarm_radius,
        "swarms": len(centres),
        "swarms_per_restraint": SWARMS_PER_RESTRAINT,
        "transmembrane": False,
        "use_anm": bool(options.anm),
        "verbose_parser": False,
        "write_starting_positions": False,
        "sparkledock": True,
    }
    if parsed is not None:  # LightDock's format, whatever the input was (both tools read it)
        atomic_write_text(out / "restraints.list", format_restraints(parsed))
    atomic_write_text(out / "setup.json", json.dumps(config, indent=4, sort_keys=True) + "\n")
    return out
