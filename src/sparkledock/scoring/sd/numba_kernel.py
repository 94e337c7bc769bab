"""``sd`` on the CPU with Numba: poses in parallel (one thread each), far pairs culled; pairs
within 9 Å in LightDock's order (:func:`near_ligand`), so scores are bit-identical."""

from __future__ import annotations

import math

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
from ..vdw.model import PairModel
from ..vdw.numba_kernel import vdw_arrays

CAP = 5000000.0


@njit(cache=True)
def _score_one(pose, m, q_rec, q_lig, out):
    n_lig = m.lig_xyz.shape[0]
    lx, ly, lz, sub_box, group_box, _ = posed_ligand(
        pose, EXTENTS_START + m.n_rec_modes, m.lig_xyz, m.lig_modes
    )
    hit_j = np.empty(n_lig, dtype=np.int64)
    hit_d2 = np.empty(n_lig)
    rec_hit = np.zeros(max(m.n_rec_groups, 1), dtype=np.bool_)
    lig_hit = np.zeros(max(m.n_lig_groups, 1), dtype=np.bool_)
    mem_hit = np.zeros(1, dtype=np.bool_)
    iface2 = 3.9 * 3.9
    energy = 0.0
    for i in range(m.rec_xyz.shape[0]):
        x, y, z = receptor_atom(pose, EXTENTS_START, m.rec_xyz, m.rec_modes, i)
        n = near_ligand(x, y, z, lx, ly, lz, sub_box, group_box, 81.0, hit_j, hit_d2)
        ci = m.rec_class[i]
        running = 0.0
        for h in range(n):
            j = hit_j[h]
            d2 = hit_d2[h]
            if d2 <= iface2:
                flag_pair(i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit)
            if d2 >= 81.0:  # (near_ligand is inclusive; LightDock's test is strict)
                continue
            elec = (q_rec[i] * q_lig[j]) / d2
            elec *= 332.0 / 4.0
            cj = m.lig_class[j]
            p6 = m.r6[ci, cj] / math.pow(d2, 3.0)
            running += m.eps[ci, cj] * (p6 * p6 - 2.0 * p6)
            if running > CAP:
                running = CAP
            if d2 < 49.0:
                energy += elec + running
            else:
                switch = (81.0 - d2) * (81.0 - d2) * (81.0 + 2.0 * d2 - 147.0) / 32768.0
                energy += (elec + running) * switch
    out[0] = energy
    store_fractions(out, rec_hit, m.n_rec_groups, lig_hit, m.n_lig_groups, mem_hit, 0)


@njit(parallel=True, cache=True)
def _score_batch(poses, m, q_rec, q_lig):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, q_rec, q_lig, out[p])
    return out


def score_poses(model: PairModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    args = (vdw_arrays(model), model.rec_charge, model.lig_charge)
    return run_batch(_score_batch, poses, *args, threads=threads)
