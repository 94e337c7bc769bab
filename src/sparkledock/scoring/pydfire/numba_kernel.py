"""LightDock's Python ``dfire`` on the CPU with Numba: poses in parallel, far pairs culled.

Per pose: the ligand conformer and its culling boxes; per receptor atom in order (its modes
added), the ligand atoms within 15 Å in ascending order (:func:`near_ligand`), so the energy
is summed in LightDock's pair order (row-major over its distance matrix) and is bit-identical.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ...molecule.pose import EXTENTS_START
from ..base import TypedAtomModel
from ..numba_common import (
    flag_pair,
    near_ligand,
    posed_ligand,
    receptor_atom,
    run_batch,
    store_fractions,
    typed_arrays,
)
from ..terms import Terms
from .model import CUTOFF_A


@njit(cache=True)
def _score_one(pose, m, out):
    n_lig = m.lig_xyz.shape[0]
    lx, ly, lz, sub_box, group_box, _ = posed_ligand(
        pose, EXTENTS_START + m.n_rec_modes, m.lig_xyz, m.lig_modes
    )
    hit_j = np.empty(n_lig, dtype=np.int64)
    hit_d2 = np.empty(n_lig)
    rec_hit = np.zeros(max(m.n_rec_groups, 1), dtype=np.bool_)
    lig_hit = np.zeros(max(m.n_lig_groups, 1), dtype=np.bool_)
    mem_hit = np.zeros(1, dtype=np.bool_)
    cut2 = CUTOFF_A * CUTOFF_A * (1.0 + 1e-12)  # candidates; the exact test is on d
    energy = 0.0
    for i in range(m.rec_xyz.shape[0]):
        x, y, z = receptor_atom(pose, EXTENTS_START, m.rec_xyz, m.rec_modes, i)
        n = near_ligand(x, y, z, lx, ly, lz, sub_box, group_box, cut2, hit_j, hit_d2)
        ti = m.rec_types[i]
        for h in range(n):
            dist = math.sqrt(hit_d2[h])
            if dist > CUTOFF_A:
                continue
            j = hit_j[h]
            k = max(int(dist * 2.0 - 1.0), 0)
            if k <= 3:
                flag_pair(i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit)
            energy += m.table[ti, m.lig_types[j], m.bins[k]]
    out[0] = energy
    store_fractions(out, rec_hit, m.n_rec_groups, lig_hit, m.n_lig_groups, mem_hit, 0)


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


def score_poses(model: TypedAtomModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    return run_batch(_score_batch, poses, typed_arrays(model), threads=threads)
