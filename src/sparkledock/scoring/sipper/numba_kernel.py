"""SIPPER's CPU kernel with Numba: poses in parallel, one thread each (results never
depend on the thread count); the model (:mod:`.model`) holds what it reads."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...molecule.pose import EXTENTS_START
from ..numba_common import ligand_conformer, receptor_atom, run_batch
from ..terms import Terms

#: LightDock's SIPPER: squared distance (Å²) of a residue contact
CONTACT_D2 = 25.0


@njit(cache=True, inline="always")
def _gap2(box, x, y, z):
    gx = max(box[0] - x, x - box[3], 0.0)
    gy = max(box[1] - y, y - box[4], 0.0)
    gz = max(box[2] - z, z - box[5], 0.0)
    return gx * gx + gy * gy + gz * gz


@njit(cache=True)
def _score_one(pose, n_rec_modes, rxyz, rmodes, rb, rk, lxyz, lmodes, lb, lk, table):
    n_rec = rxyz.shape[0]
    n_lig = lxyz.shape[0]
    rx = np.empty(n_rec)
    ry = np.empty(n_rec)
    rz = np.empty(n_rec)
    for i in range(n_rec):
        rx[i], ry[i], rz[i] = receptor_atom(pose, EXTENTS_START, rxyz, rmodes, i)
    lx = np.empty(n_lig)
    ly = np.empty(n_lig)
    lz = np.empty(n_lig)
    ligand_conformer(pose, EXTENTS_START + n_rec_modes, lxyz, lmodes, lx, ly, lz)
    n_lres = lb.shape[0] - 1
    boxes = np.empty((n_lres, 6))
    for j in range(n_lres):
        a, b = lb[j], lb[j + 1]
        boxes[j, 0] = lx[a:b].min()
        boxes[j, 1] = ly[a:b].min()
        boxes[j, 2] = lz[a:b].min()
        boxes[j, 3] = lx[a:b].max()
        boxes[j, 4] = ly[a:b].max()
        boxes[j, 5] = lz[a:b].max()
    bound = CONTACT_D2 * (1.0 + 1e-12) + 1e-12
    total = 0.0
    for i in range(rb.shape[0] - 1):
        for j in range(n_lres):
            e = table[rk[i], lk[j]]
            for ai in range(rb[i], rb[i + 1]):
                x, y, z = rx[ai], ry[ai], rz[ai]
                if _gap2(boxes[j], x, y, z) > bound:
                    continue
                for aj in range(lb[j], lb[j + 1]):
                    dx = x - lx[aj]
                    dy = y - ly[aj]
                    dz = z - lz[aj]
                    if dx * dx + dy * dy + dz * dz < CONTACT_D2:
                        total += e
                        break
    return total - 0.019 * 0.0  # (the ODA term, zero here)


@njit(parallel=True, cache=True)
def _score_batch(poses, n_rec_modes, rxyz, rmodes, rb, rk, lxyz, lmodes, lb, lk, table):
    out = np.empty(poses.shape[0])
    for p in prange(poses.shape[0]):
        out[p] = _score_one(
            poses[p], n_rec_modes, rxyz, rmodes, rb, rk, lxyz, lmodes, lb, lk, table
        )
    return out


def score_poses(model, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """Energies of validated ``poses`` (restraints never count: zero fractions)."""
    m = model
    args = (
        m.layout.n_rec, m.rec_xyz, m.rec_modes, m.rec_bounds, m.rec_kind,
        m.lig_xyz, m.lig_modes, m.lig_bounds, m.lig_kind, m.table,
    )  # fmt: skip
    return run_batch(_score_batch, poses, *args, threads=threads)
