"""Complex models for chosen glowworms: receptor and ligand conformers in one structure."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy.spatial import cKDTree

from ..errors import InputFileError
from ..io.lightdock import cleaning
from ..io.setupdir import SetupDir
from ..molecule.pose import ligand_conformers, receptor_conformers
from ..molecule.structure import (
    Atoms,
    lightdock_centre,
    read_structure,
    removal_mask,
    write_structures,
)
from ..molecule.system import DockingSetup, Partner, ligand_chain_ids


def _subset(partner: Partner, keep: np.ndarray | None) -> tuple[np.ndarray, ...]:
    """A partner's coordinates, modes and mode mask, for the atoms ``keep`` only."""
    coords, modes, mask = partner.atoms.coords, partner.modes, partner.mask
    if keep is None:
        return coords, modes, mask
    slot = np.cumsum(mask) - 1  # each moving atom's row in the modes
    return coords[keep], modes[:, slot[keep & mask]], mask[keep]


def complex_coordinates(
    setup: DockingSetup, poses: np.ndarray, select: np.ndarray | None = None
) -> np.ndarray:
    """Receptor then ligand coordinates of every pose, (P, N_rec + N_lig, 3), centred frame;
    with ``select`` (a mask over those atoms) only the selected ones, with the same values
    (every atom is moved on its own), at a fraction of the cost."""
    poses = setup.layout.validate(poses)
    rec, lig = setup.receptor, setup.ligand
    n_rec = len(rec.atoms.coords)
    keep_rec, keep_lig = (None, None) if select is None else (select[:n_rec], select[n_rec:])
    return np.concatenate(
        [
            receptor_conformers(*_subset(rec, keep_rec), poses, setup.layout),
            ligand_conformers(*_subset(lig, keep_lig), poses, setup.layout),
        ],
        axis=1,
    )


def complex_atoms(setup: DockingSetup) -> Atoms:
    """The receptor's atoms followed by the ligand's; the ligand's chain ids as
    :func:`ligand_chain_ids` gives them."""
    rec, lig = setup.receptor.atoms, setup.ligand.atoms
    names = ligand_chain_ids(rec, lig)
    if any(k != v for k, v in names.items()):
        chains = np.array([names[c] for c in lig.chain.astype(str)], dtype=object)
        lig = replace(lig, chain=chains)
    return Atoms.concatenate([rec, lig])


def write_models(
    setup: DockingSetup,
    poses: np.ndarray,
    paths: Sequence[str | os.PathLike[str]],
    remarks: Sequence[Sequence[str]] | None = None,
) -> None:
    """Write one model per pose (PDB or mmCIF by suffix), in the frame of the receptor as
    given to setup (:attr:`DockingSetup.model_centre`); ``remarks``: each PDB model's
    opening REMARK lines."""
    coords = complex_coordinates(setup, poses) + setup.model_centre
    write_structures(complex_atoms(setup), coords, paths, remarks)


def _file_partner(setup: DockingSetup, key: str, partner: Partner) -> Partner:
    """Every atom of a partner's parsed file, placed as the setup places the cleaned ones."""
    config = setup.config
    path = SetupDir(setup.path).structure(config[key])
    raw = read_structure(path)
    drop = removal_mask(raw, source=str(path), **cleaning(config))
    kept = np.flatnonzero(~drop)
    if len(kept) != len(partner.atoms):
        raise InputFileError(
            f"{path}: {len(kept)} atoms after the setup's cleaning, the setup has "
            f"{len(partner.atoms)}"
        )
    centre = lightdock_centre(raw.select(kept))
    nearest = np.arange(len(raw))  # the kept atom whose displacement each atom takes
    if drop.any():
        _, which = cKDTree(raw.coords[kept]).query(raw.coords[drop])
        nearest[drop] = kept[which]
    position = np.full(len(raw), -1)
    position[kept] = np.arange(len(kept))
    atoms = raw.with_coords(raw.coords - centre)
    if not partner.n_modes:
        return Partner.rigid(atoms)
    source = position[nearest]
    mask = partner.mask[source]
    return Partner(atoms, np.ascontiguousarray(partner.full_modes()[:, source][:, mask]), mask)


def with_file_atoms(setup: DockingSetup) -> DockingSetup:
    """The setup with each partner holding every atom of its parsed ``lightdock_*.pdb``.

    The atoms that the setup's cleaning drops (hydrogens, OXT, hetero groups) take the
    normal-mode displacement of the nearest atom that it keeps and the pose's rotation and
    translation, so models keep everything a user's files hold: HADDOCK3's LightDock module
    copies its original structures over the parsed files before ``lgd_top.py``. The atoms
    the setup holds are placed exactly as in :func:`write_models`.
    """
    return replace(
        setup,
        receptor=_file_partner(setup, "receptor_pdb", setup.receptor),
        ligand=_file_partner(setup, "ligand_pdb", setup.ligand),
    )
