"""The all-pairs NumPy oracle for ``dfire2`` (LightDock's evaluation, vectorised)."""

from __future__ import annotations

import numpy as np

from ...molecule.pose import ligand_conformers, receptor_conformers
from ..terms import Terms
from .model import INTERFACE_2D, N_BINS, N_TYPES, DFIRE2Model


def _fraction(hit: np.ndarray, groups: np.ndarray, n: int) -> float:
    if n == 0:
        return 0.0
    return len(set(groups[hit[: len(groups)] & (groups >= 0)].tolist())) / n


def score_poses(model: DFIRE2Model, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    lay = model.layout
    recs = receptor_conformers(
        model.rec_xyz, model.rec_modes, np.ones(len(model.rec_xyz), bool), poses, lay
    )
    ligs = ligand_conformers(
        model.lig_xyz, model.lig_modes, np.ones(len(model.lig_xyz), bool), poses, lay
    )
    n = len(model.types)
    i, j = np.triu_indices(n, k=1)
    keep = model.residues[i] != model.residues[j]
    i, j = i[keep], j[keep]
    flat = model.table.reshape(-1)
    base = model.types[i] * N_TYPES * N_BINS + model.types[j] * N_BINS
    energy, p_rec, p_lig = [], [], []
    for rec, lig in zip(recs, ligs, strict=True):
        xyz = np.concatenate([rec, lig])
        d = xyz[i] - xyz[j]
        dist = np.sqrt(d[:, 0] ** 2 + d[:, 1] ** 2 + d[:, 2] ** 2) * 2
        b = dist.astype(np.int64)
        inside = b < N_BINS
        energy.append(float(flat[base[inside] + b[inside]].sum()) / 100.0)
        close = dist <= INTERFACE_2D
        first = np.zeros(n, dtype=bool)
        second = np.zeros(n, dtype=bool)
        first[i[close]] = True
        second[j[close]] = True
        p_rec.append(_fraction(first, model.rec_restraint_group, model.n_rec_restraints))
        p_lig.append(_fraction(second, model.lig_restraint_group, model.n_lig_restraints))
    zeros = np.zeros(len(poses))
    return Terms(np.array(energy), np.array(p_rec), np.array(p_lig), zeros)
