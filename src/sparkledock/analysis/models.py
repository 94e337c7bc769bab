"""Complex models for chosen glowworms: receptor and ligand conformers in one structure."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ..io.lightdock import DockingSetup
from ..pose import ligand_conformers, receptor_conformers
from ..structure import Atoms, write_structure


def complex_coordinates(setup: DockingSetup, poses: np.ndarray) -> np.ndarray:
    """Receptor then ligand coordinates of every pose, (P, N_rec + N_lig, 3), centred frame."""
    poses = setup.layout.validate(poses)
    rec, lig = setup.receptor, setup.ligand
    return np.concatenate(
        [
            receptor_conformers(rec.atoms.coords, rec.modes, rec.mask, poses, setup.layout),
            ligand_conformers(lig.atoms.coords, lig.modes, lig.mask, poses, setup.layout),
        ],
        axis=1,
    )


def complex_atoms(setup: DockingSetup) -> Atoms:
    """The receptor's atoms followed by the ligand's (chain ids kept)."""
    return Atoms.concatenate([setup.receptor.atoms, setup.ligand.atoms])


def write_models(
    setup: DockingSetup, poses: np.ndarray, paths: Sequence[str | os.PathLike[str]]
) -> None:
    """Write one model per pose (PDB or mmCIF by suffix), in the receptor file's frame, as
    LightDock's ``lgd_generate_conformations.py`` does."""
    coords = complex_coordinates(setup, poses) + setup.receptor_centre
    template = complex_atoms(setup)
    for xyz, path in zip(coords, paths, strict=True):
        write_structure(replace(template, coords=xyz), path)
