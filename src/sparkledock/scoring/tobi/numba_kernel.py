"""TOBI's CPU kernel with Numba: poses in parallel, one thread each (results never
depend on the thread count); the model (:mod:`.model`) holds what it reads."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..numba_common import ligand_conformer, run_batch
from ..terms import Terms


@njit(cache=True)
def _score_one(pose, r_xyz, r_kind, l_xyz, l_kind, t1, t2):
    n = l_xyz.shape[0]
    lx = np.empty(n)
    ly = np.empty(n)
    lz = np.empty(n)
    ligand_conformer(pose, 7, l_xyz, np.zeros((0, n, 3)), lx, ly, lz)
    energy = 0.0
    for i in range(r_xyz.shape[0]):
        ri = r_kind[i]
        for j in range(n):
            dx = r_xyz[i, 0] - lx[j]
            dy = r_xyz[i, 1] - ly[j]
            dz = r_xyz[i, 2] - lz[j]
            d = np.sqrt(dx * dx + dy * dy + dz * dz)
            if d > 8.0:
                continue
            lj = l_kind[j]
            if ri >= 20 and lj >= 20:
                near, far = 4.5, 6.0
            elif ri >= 20 or lj >= 20:
                near, far = 5.5, 7.0
            else:
                near, far = 6.5, 8.0
            if d <= near:
                energy += t1[ri, lj]
            elif d <= far:
                energy += t2[ri, lj]
    return energy


@njit(parallel=True, cache=True)
def _score_batch(poses, r_xyz, r_kind, l_xyz, l_kind, t1, t2):
    out = np.empty(poses.shape[0])
    for p in prange(poses.shape[0]):
        out[p] = _score_one(poses[p], r_xyz, r_kind, l_xyz, l_kind, t1, t2)
    return out


def score_poses(model, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """Energies of validated ``poses`` (restraints never count: zero fractions)."""
    m = model
    args = (m.rec_xyz, m.rec_kind, m.lig_xyz, m.lig_kind, m.step1, m.step2)
    return run_batch(_score_batch, poses, *args, threads=threads)
