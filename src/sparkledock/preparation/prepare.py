"""``sparkledock setup``: a LightDock-compatible setup directory from two structure files."""

from __future__ import annotations

import io
import json
import os
import shutil
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..backend import require_memory
from ..errors import InputFileError, SparkledockWarning
from ..fileutil import atomic_write_bytes, atomic_write_text, check_output_folder
from ..io.lightdock import (
    FRAME_KEY,
    format_bild,
    format_lightdock_pdb,
    format_points_pdb,
    write_poses,
)
from ..io.restraints import format_restraints
from ..io.setupdir import (
    LIG_MODES_FILE,
    REC_MODES_FILE,
    RESTRAINTS_FILE,
    RUN_FILES,
    SETUP_FILE,
    SetupDir,
)
from ..molecule.anm import mode_mask, normal_modes
from ..molecule.pose import PoseLayout
from ..molecule.restraints import restraint_lists
from ..molecule.structure import (
    MMCIF_SUFFIXES,
    PDB_SUFFIXES,
    Atoms,
    lightdock_centre,
    write_structure,
)
from ..molecule.system import ligand_chain_ids
from ..version import __version__
from .inputs import ReadPartners, read_partners
from .lightdock_poses import lightdock_poses
from .membrane import bead_heights, membrane_atoms, membrane_side
from .options import (  # noqa: F401 (re-exported: the setup stage's options)
    MAX_LENGTH_A,
    SWARMS_PER_RESTRAINT,
    SetupOptions,
    check_setup_options,
    pose_size,
)
from .paratope import require_paratope
from .poses import initial_poses
from .surface import receptor_swarm_count
from .swarms import ligand_diameter, swarm_centres


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _paratope(receptor: Atoms, path: Path, restrained: bool) -> list[str]:
    """The receptor's CDR residues for ``paratope`` placement; refused (one line) when the
    receptor has no antibody variable domain or restraints already place the swarms."""
    if restrained:
        raise InputFileError(
            f"{path}: receptor restraints and {{0}} both choose where swarms go; give one",
            "paratope",
        )
    return require_paratope(receptor, str(path))


def setup_names(receptor: Path, ligand: Path) -> tuple[str, str]:
    """The names a setup gives its two structures (``receptor_pdb``/``ligand_pdb``).

    LightDock's tools read PDB files named after the inputs: a ``.gz`` suffix is dropped and
    mmCIF becomes ``.pdb``. Inputs with the same file name (from different folders) would
    overwrite each other, so both get a ``receptor_``/``ligand_`` prefix, with a warning.
    """

    def plain(path: Path) -> str:
        name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
        stem, suffix = os.path.splitext(name)
        return f"{stem}.pdb" if suffix.lower() in (*MMCIF_SUFFIXES, "") else name

    rec, lig = plain(receptor), plain(ligand)
    if rec == lig:
        warnings.warn(
            f"{ligand}: same file name as the receptor {receptor}; the setup calls them "
            f"receptor_{rec} and ligand_{lig}",
            SparkledockWarning,
            stacklevel=3,
        )
        rec, lig = f"receptor_{rec}", f"ligand_{lig}"
    return rec, lig


def _remove_setup(out: Path) -> None:
    """Remove a setup's own files and its runs' outputs from ``out`` (nothing else)."""
    folder = SetupDir(out)
    if folder.setup_json.is_file():
        config = json.loads(folder.setup_json.read_text())
        for key in ("receptor_pdb", "ligand_pdb"):
            if isinstance(config.get(key), str):
                for path in (folder.structure(config[key]), folder.mask(config[key])):
                    path.unlink(missing_ok=True)
    for path in [folder.init, *folder.swarms()]:
        if path.is_dir():
            shutil.rmtree(path)
    for name in (SETUP_FILE, REC_MODES_FILE, LIG_MODES_FILE, RESTRAINTS_FILE, *RUN_FILES):
        (out / name).unlink(missing_ok=True)
    for path in out.glob("rank_*.list"):
        path.unlink()


def _write_original(raw: Atoms, source: Path, target: Path) -> None:
    """The input structure beside the setup (LightDock's tools expect it there): a byte copy
    of a plain PDB, else the structure rewritten as PDB. Never the input itself."""
    if target.exists() and target.resolve() == source.resolve():
        return
    if source.name == target.name and source.suffix.lower() in PDB_SUFFIXES:
        atomic_write_bytes(target, source.read_bytes())
    else:
        write_structure(raw, target)


def _warn_shared_chains(receptor: Atoms, ligand: Atoms, rec_path: Path, lig_path: Path) -> None:
    renamed = {a: b for a, b in ligand_chain_ids(receptor, ligand).items() if a != b}
    if renamed:
        warnings.warn(
            f"{lig_path}: chain {', '.join(renamed)} is also a chain of {rec_path}; the models "
            f"call the ligand's {', '.join(f'{a} {b}' for a, b in renamed.items())} "
            "(restraints keep the input's)",
            SparkledockWarning,
            stacklevel=3,
        )


def _calpha_sites(atoms: Atoms, residues: list[str]) -> np.ndarray:
    """Where each listed residue's restraint points, in the atoms' frame (LightDock's choice):
    its C-alpha, else (a nucleotide) its phosphorus, else its atom nearest its centroid."""
    ids = atoms.residue_ids()
    sites = []
    for rid in residues:
        members = np.flatnonzero(ids == rid)
        names = atoms.atom_name[members].astype(str)
        for wanted in ("CA", "P"):
            if wanted in names:
                sites.append(atoms.coords[members[list(names).index(wanted)]])
                break
        else:
            xyz = atoms.coords[members]
            sites.append(xyz[np.argmin(np.linalg.norm(xyz - xyz.mean(axis=0), axis=1))])
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
    force: bool = False,
    progress: Callable[[str], None] | None = None,
    partners: ReadPartners | None = None,
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

    A folder that already holds a setup is refused unless ``force``, which first removes that
    setup's files (and its runs' outputs), so no file of the old setup is mixed into the new.
    ``progress``, when given, receives a line as each stage ends (what it did, how long).

    Raises:
        SparkledockError: unreadable structure, unknown residue (unless skipped), bad
            restraint (one line each).
    """
    out = Path(output)
    rec_path, lig_path = Path(receptor), Path(ligand)
    check_setup_options(options)
    check_output_folder(out)
    folder = SetupDir(out)
    if folder.setup_json.exists() and not force:
        already = f"{folder.setup_json}: a setup is already here ({{0}} replaces it)"
        raise InputFileError(already, "force")
    rec_name, lig_name = setup_names(rec_path, lig_path)
    stage = _Stages(progress)
    if partners is None:  # (``partners``: as a caller's checks read them with these options)
        partners = read_partners(rec_path, lig_path, restraints, options)
    rec_raw, lig_raw, rec_atoms, lig_atoms = partners.raw + partners.cleaned
    rec_c, lig_c = partners.centred
    parsed = partners.restraints
    _warn_shared_chains(rec_atoms, lig_atoms, rec_path, lig_path)

    # swarm centres on the (centred) receptor's surface; a membrane takes no part in it
    stage.done(f"read and cleaned {len(rec_c)} + {len(lig_c)} atoms")
    with_membrane = options.membrane or options.transmembrane
    body = rec_c
    if with_membrane:
        heights = bead_heights(rec_atoms, str(rec_path))
        body = rec_c.select(~membrane_atoms(rec_c))
    # the residues swarms gather at: the receptor's restraints, or its CDRs with --paratope
    near = (parsed.receptor.active + parsed.receptor.passive) if parsed is not None else []
    paratope = _paratope(rec_c, rec_path, bool(near)) if options.paratope else []
    near = paratope or near or None
    sights = None
    area = None  # whose surface area set the count (when the surface set it)
    if near:
        sights = _central_atoms(rec_atoms, near)  # the file's frame, as LightDock's residues
        count = options.swarms or options.swarms_per_restraint * len(near)
    else:
        count = options.swarms
        if not count:
            count, area = receptor_swarm_count(
                rec_path,
                rec_raw,
                body,
                options.surface_density,
                with_membrane,
                options.lightdock_area,
            )
    # placed on the receptor file as read, then centred (LightDock's order, for its bits)
    centres = swarm_centres(
        rec_raw,
        lig_c,
        count,
        -lightdock_centre(rec_atoms),
        seed=options.seed,
        restraint_residues=near,
        sights=sights,
        fixed_distance=options.fixed_distance,
        dense=options.dense_sampling,
        spacing=options.swarm_spacing if parsed is not None and not paratope else 0.0,
    )
    placed = len(centres)
    if with_membrane:
        shift = -float(lightdock_centre(rec_atoms)[2])
        side = membrane_side(centres, heights, shift, options.transmembrane, str(rec_path))
        centres = centres[side]
    if len(centres) == 0:
        where = " on the membrane's side" if with_membrane else ""
        raise InputFileError(f"{rec_path}: no room for swarms on the receptor surface{where}")
    if options.swarms and placed < options.swarms:
        warnings.warn(
            f"{rec_path}: {options.swarms} swarms asked, the receptor surface holds {placed}",
            SparkledockWarning,
            stacklevel=2,
        )

    n_rec = options.anm_rec if options.anm else 0
    n_lig = options.anm_lig if options.anm else 0
    layout = PoseLayout(n_rec, n_lig)
    ids = np.arange(len(centres))
    rec_sites = lig_sites = None
    # restraint sites: the input files' frame for LightDock's draws, else the centred one
    rec_frame, lig_frame = (rec_atoms, lig_atoms) if options.lightdock_poses else (rec_c, lig_c)
    if parsed is not None:
        rec_sites = _calpha_sites(rec_frame, parsed.receptor.active + parsed.receptor.passive)
        lig_sites = _calpha_sites(
            lig_frame, parsed.ligand.active + parsed.ligand.passive or parsed.ligand_face
        )
    dropped = placed - len(centres)
    kept = f" ({dropped} on the membrane's wrong side dropped)" if with_membrane else ""
    stage.done(f"{len(centres)} swarm centres on the receptor surface{kept}")
    require_memory(
        len(centres) * options.glowworms * layout.size * 8 * 2,
        f"{len(centres)} swarms × {options.glowworms} glowworms",
    )
    if options.lightdock_poses:
        poses = lightdock_poses(
            centres,
            options.glowworms,
            layout,
            seed=options.seed,
            modes_seed=options.modes_seed,
            radius=options.swarm_radius,
            rec_sites=rec_sites,
            lig_sites=lig_sites,
            rec_translation=-lightdock_centre(rec_atoms),
            lig_translation=-lightdock_centre(lig_atoms),
            ligand_diameter=ligand_diameter(lig_c),
            flip=options.flip,
            source=str(lig_path),
        )
    else:
        poses = initial_poses(
            centres,
            ids,
            options.glowworms,
            layout,
            seed=options.seed,
            radius=options.swarm_radius,
            rec_sites=rec_sites,
            lig_sites=lig_sites,
            modes_seed=None if options.modes_seed == options.seed else options.modes_seed,
            flip=options.flip,
        )

    # everything that can fail is computed before the first file is written
    modes_of = {}
    for atoms, path, n, modes_file in (
        (rec_c, rec_path, n_rec, REC_MODES_FILE),
        (lig_c, lig_path, n_lig, LIG_MODES_FILE),
    ):
        if n:
            rmsd = options.anm_rmsd if modes_file == REC_MODES_FILE else options.lig_rmsd
            modes_of[modes_file] = normal_modes(
                atoms, n_modes=n, rmsd=rmsd, seed=options.modes_seed, source=str(path)
            )
        else:
            modes_of[modes_file] = (None, mode_mask(atoms))  # LightDock writes it without ANM too

    stage.done(f"starting poses and normal modes ({n_rec} + {n_lig})")
    out.mkdir(parents=True, exist_ok=True)
    if force:
        _remove_setup(out)
    for raw, path, name, atoms in (
        (rec_raw, rec_path, rec_name, rec_c),
        (lig_raw, lig_path, lig_name, lig_c),
    ):
        _write_original(raw, path, out / name)
        # LightDock's parsed structure: cleaned and centred, in its writer's format
        atomic_write_text(folder.structure(name), format_lightdock_pdb(atoms))
    for name, modes_file in ((rec_name, REC_MODES_FILE), (lig_name, LIG_MODES_FILE)):
        modes, mask = modes_of[modes_file]
        if modes is not None:
            atomic_write_bytes(out / modes_file, _npy_bytes(modes))
        atomic_write_bytes(folder.mask(name), _npy_bytes(mask))
    for swarm in ids:  # many small files: one sync for all (before setup.json) is enough
        write_poses(folder.start(swarm), poses[swarm], durable=False)
        folder.swarm(swarm).mkdir(exist_ok=True)
    os.sync()
    atomic_write_text(folder.swarm_centres, format_points_pdb(centres))
    if options.write_starting_positions:  # LightDock's -sp: translations and orientations
        for swarm in ids:
            stem = folder.start(swarm).parent
            atomic_write_text(
                stem / f"starting_positions_{swarm}.pdb",
                format_points_pdb(poses[swarm][:, :3]),
                durable=False,
            )
            atomic_write_text(
                stem / f"starting_poses_{swarm}.bild", format_bild(poses[swarm]), durable=False
            )
    config = {
        "anm_lig": options.anm_lig,
        "anm_lig_rmsd": options.lig_rmsd,
        "anm_rec": options.anm_rec,
        "anm_rec_rmsd": options.anm_rmsd,
        "anm_seed": options.modes_seed,
        "dense_sampling": options.dense_sampling,
        "fixed_distance": options.fixed_distance,
        "flip": options.flip,
        "glowworms": options.glowworms,
        "ligand_pdb": lig_name,
        "membrane": options.membrane,
        "noh": options.noh,
        "now": options.now,
        "noxt": options.noxt,
        "receptor_pdb": rec_name,
        "restraints": RESTRAINTS_FILE if parsed is not None else None,
        "setup_version": "0.9.4",
        "starting_points_seed": options.seed,
        "surface_density": options.surface_density,
        "swarm_radius": options.swarm_radius,
        "swarms": len(centres),
        "swarms_per_restraint": options.swarms_per_restraint,
        "transmembrane": options.transmembrane,
        "use_anm": bool(options.anm),
        "verbose_parser": False,
        "write_starting_positions": options.write_starting_positions,
        FRAME_KEY: {
            "version": __version__,
            "receptor_centre": [float(v) for v in lightdock_centre(rec_atoms)],
            "ligand_centre": [float(v) for v in lightdock_centre(lig_atoms)],
            "poses": "lightdock" if options.lightdock_poses else "per-swarm",
            "swarm_area": area,
            "receptor_input": str(rec_path),
            "ligand_input": str(lig_path),
        },
    }
    if options.swarm_spacing > 0 and parsed is not None and not paratope:
        config["swarm_spacing"] = options.swarm_spacing  # sparkledock's rule (LightDock ignores)
    if paratope:  # where the swarms went (LightDock has no such key and ignores it)
        config["paratope"] = paratope
    if parsed is not None:
        # the keys LightDock's lightdock3.py reads (without them it docks unrestrained)
        config["receptor_restraints"] = restraint_lists(parsed.receptor)
        config["ligand_restraints"] = restraint_lists(parsed.ligand)
        # LightDock's format, whatever the input was (both tools read it)
        atomic_write_text(folder.restraints, format_restraints(parsed))
    atomic_write_text(folder.setup_json, json.dumps(config, indent=4, sort_keys=True) + "\n")
    stage.done(f"wrote {out}")
    return out


class _Stages:
    """Reports each stage of a setup as it ends, with its duration."""

    def __init__(self, progress: Callable[[str], None] | None) -> None:
        self.progress, self.last = progress, time.perf_counter()

    def done(self, what: str) -> None:
        now = time.perf_counter()
        if self.progress is not None:
            self.progress(f"{what} ({now - self.last:.1f} s)")
        self.last = now
