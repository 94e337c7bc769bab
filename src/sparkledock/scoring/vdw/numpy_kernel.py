"""The all-pairs NumPy oracle for ``vdw`` (tests check the Numba kernel against it)."""

from __future__ import annotations

import numpy as np

from ...molecule.pose import ligand_conformers, receptor_conformers
from ..terms import Terms
from .model import INTERFACE_CUTOFF_A, VDW_CAP, VDW_CUTOFF_A, PairModel


def fractions(hit: np.ndarray, groups: np.ndarray, n_groups: int) -> float:
    """Fraction of restraint groups with an atom flagged in ``hit``."""
    if n_groups == 0:
        return 0.0
    return len(set(groups[hit & (groups >= 0)].tolist())) / n_groups


def conformers(model: PairModel, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Receptor and ligand coordinates of every pose (LightDock's operation order)."""
    lay = model.layout
    rec_mask = np.ones(len(model.rec_xyz), dtype=bool)
    lig_mask = np.ones(len(model.lig_xyz), dtype=bool)
    return (
        receptor_conformers(model.rec_xyz, model.rec_modes, rec_mask, poses, lay),
        ligand_conformers(model.lig_xyz, model.lig_modes, lig_mask, poses, lay),
    )


def interface_terms(model: PairModel, d2: np.ndarray) -> tuple[float, float]:
    """Restraint fractions of one pose from its (N_rec, N_lig) squared distances."""
    close = d2 <= INTERFACE_CUTOFF_A * INTERFACE_CUTOFF_A
    return (
        fractions(close.any(axis=1), model.rec_restraint_group, model.n_rec_restraints),
        fractions(close.any(axis=0), model.lig_restraint_group, model.n_lig_restraints),
    )


def score_poses(model: PairModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """Truncated Lennard-Jones energies and restraint fractions, every pair of every pose."""
    recs, ligs = conformers(model, poses)
    eps = np.sqrt(model.rec_eps[:, None] * model.lig_eps[None, :])
    radius = model.rec_radius[:, None] + model.lig_radius[None, :]
    energy, p_rec, p_lig = [], [], []
    for rec, lig in zip(recs, ligs, strict=True):
        d = rec[:, None, :] - lig[None, :, :]
        d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
        p6 = radius**6 / d2**3
        e = np.minimum(eps * (p6 * p6 - 2.0 * p6), VDW_CAP)
        energy.append(float(e[d2 <= VDW_CUTOFF_A * VDW_CUTOFF_A].sum()))
        a, b = interface_terms(model, d2)
        p_rec.append(a)
        p_lig.append(b)
    zeros = np.zeros(len(poses))
    return Terms(np.array(energy), np.array(p_rec), np.array(p_lig), zeros)
