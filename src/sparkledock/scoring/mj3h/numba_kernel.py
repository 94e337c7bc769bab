"""MJ3h's CPU kernel with Numba: poses in parallel, one thread each (results never
depend on the thread count); the model (:mod:`.model`) holds what it reads."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..numba_common import ligand_conformer, run_batch
from ..terms import Terms

#: LightDock's MJ3h: squared distances (Å²) of a clash and of a contact, and the clash penalty
CLASH_D2 = 6.2
CONTACT_D2 = 42.25
CLASH_ENERGY = 3.0


@njit(cache=True)
def _score_one(pose, m_rec, r_kind, m_lig, l_kind, table):
    n = m_lig.shape[0]
    lx = np.empty(n)
    ly = np.empty(n)
    lz = np.empty(n)
    ligand_conformer(pose, 7, m_lig, np.zeros((0, n, 3)), lx, ly, lz)
    energy = 0.0
    for i in range(m_rec.shape[0]):
        for j in range(n):
            dx = m_rec[i, 0] - lx[j]
            dy = m_rec[i, 1] - ly[j]
            dz = m_rec[i, 2] - lz[j]
            d2 = dx * dx + dy * dy + dz * dz
            if d2 < CONTACT_D2:
                if d2 < CLASH_D2:
                    energy += CLASH_ENERGY
                elif r_kind[i] >= 0 and l_kind[j] >= 0:
                    energy += table[r_kind[i], l_kind[j]]
    return energy


@njit(parallel=True, cache=True)
def _score_batch(poses, m_rec, r_kind, m_lig, l_kind, table):
    out = np.empty(poses.shape[0])
    for p in prange(poses.shape[0]):
        out[p] = _score_one(poses[p], m_rec, r_kind, m_lig, l_kind, table)
    return out


def score_poses(model, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """Energies of validated ``poses`` (restraints never count: zero fractions)."""
    m = model
    args = (m.rec_xyz, m.rec_kind, m.lig_xyz, m.lig_kind, m.table)
    return run_batch(_score_batch, poses, *args, threads=threads)
