"""``vdw`` on the CPU with Numba: poses in parallel (one thread each), far pairs culled.

Per pose: the ligand conformer and its culling boxes; then, per receptor atom in order (its
modes added), the ligand atoms within 10 Å in ascending order (:func:`near_ligand`), so the
pairs are summed in LightDock's receptor-major, ligand-minor order; skipped pairs would have
added nothing. ε and the radius sum's sixth power are tabulated per atom-type pair (the same
doubles LightDock computes per pair), ``pow(d², 3)`` stays per pair.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...molecule.pose import EXTENTS_START
from ..numba_common import (
    flag_pair,
    near_ligand,
    posed_ligand,
    receptor_atom,
    run_batch,
    store_fractions,
)
from ..terms import Terms
from .model import INTERFACE_CUTOFF_A, VDW_CAP, VDW_CUTOFF_A, PairModel


class VdWArrays(NamedTuple):
    n_rec_modes: int
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    rec_class: np.ndarray
    lig_class: np.ndarray
    #: per (receptor class, ligand class): √(ε_i·ε_j) and (r_i + r_j)⁶
    eps: np.ndarray
    r6: np.ndarray
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int
    #: no receptor atom is a membrane bead for this function (−1 each)
    mem_group: np.ndarray


def _classes(eps: np.ndarray, radius: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Atoms grouped by their (ε, r) pair: per atom its class, and the classes' ε and r."""
    keys = np.stack([eps, radius], axis=1)
    table, cls = np.unique(keys, axis=0, return_inverse=True)
    return cls.reshape(-1).astype(np.int64), table[:, 0], table[:, 1]


def vdw_arrays(model: PairModel) -> VdWArrays:
    rc, r_eps, r_rad = _classes(model.rec_eps, model.rec_radius)
    lc, l_eps, l_rad = _classes(model.lig_eps, model.lig_radius)
    eps = np.sqrt(r_eps[:, None] * l_eps[None, :])
    r6 = np.array([[math.pow(a + b, 6) for b in l_rad] for a in r_rad]).reshape(len(r_rad), -1)
    return VdWArrays(
        n_rec_modes=model.layout.n_rec,
        rec_xyz=model.rec_xyz,
        rec_modes=model.rec_modes,
        lig_xyz=model.lig_xyz,
        lig_modes=model.lig_modes,
        rec_class=rc,
        lig_class=lc,
        eps=eps,
        r6=r6,
        rec_group=model.rec_restraint_group,
        n_rec_groups=model.n_rec_restraints,
        lig_group=model.lig_restraint_group,
        n_lig_groups=model.n_lig_restraints,
        mem_group=np.full(len(model.rec_xyz), -1, dtype=np.int64),
    )


@njit(cache=True)
def _score_one(pose, m, out):
    n_lig = m.lig_xyz.shape[0]
    lx, ly, lz, sub_box, group_box, all_box = posed_ligand(
        pose, EXTENTS_START + m.n_rec_modes, m.lig_xyz, m.lig_modes
    )
    hit_j = np.empty(n_lig, dtype=np.int64)
    hit_d2 = np.empty(n_lig)
    rec_hit = np.zeros(max(m.n_rec_groups, 1), dtype=np.bool_)
    lig_hit = np.zeros(max(m.n_lig_groups, 1), dtype=np.bool_)
    mem_hit = np.zeros(1, dtype=np.bool_)
    cut2 = VDW_CUTOFF_A * VDW_CUTOFF_A
    iface2 = INTERFACE_CUTOFF_A * INTERFACE_CUTOFF_A
    restrained = m.n_rec_groups + m.n_lig_groups > 0
    ext0 = EXTENTS_START
    energy = 0.0
    for i in range(m.rec_xyz.shape[0]):
        x, y, z = receptor_atom(pose, ext0, m.rec_xyz, m.rec_modes, i)
        gx = max(all_box[0] - x, x - all_box[3], 0.0)
        gy = max(all_box[1] - y, y - all_box[4], 0.0)
        gz = max(all_box[2] - z, z - all_box[5], 0.0)
        if gx * gx + gy * gy + gz * gz > cut2 * (1.0 + 1e-12) + 1e-12:
            continue
        n = near_ligand(x, y, z, lx, ly, lz, sub_box, group_box, cut2, hit_j, hit_d2)
        ci = m.rec_class[i]
        for h in range(n):
            j = hit_j[h]
            d2 = hit_d2[h]
            cj = m.lig_class[j]
            p6 = m.r6[ci, cj] / math.pow(d2, 3.0)
            k = m.eps[ci, cj] * (p6 * p6 - 2.0 * p6)
            if k > VDW_CAP:
                k = VDW_CAP
            energy += k
            if restrained and d2 <= iface2:
                flag_pair(i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit)
    out[0] = energy
    store_fractions(out, rec_hit, m.n_rec_groups, lig_hit, m.n_lig_groups, mem_hit, 0)


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


def score_poses(
    model: PairModel, poses: np.ndarray, *, threads: int | None = None, arrays=None
) -> Terms:
    """Energies and restraint fractions of validated ``poses``."""
    arrays = arrays if arrays is not None else vdw_arrays(model)
    return run_batch(_score_batch, poses, arrays, threads=threads)
