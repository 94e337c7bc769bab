"""``pisa`` on the CPU with Numba: poses in parallel (one thread each), far pairs culled.

Per pose: the ligand conformer and its culling boxes; per receptor atom in order (its modes
added), the ligand atoms within 8 Å in ascending order (:func:`near_ligand`): contact counts
accumulate in LightDock's pair order, then Σ count·w runs over the table in its order, so
scores are bit-identical to LightDock's.
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
from .model import N_BINS, N_TYPES


@njit(cache=True, inline="always")
def _spline_bin(dist):
    """LightDock's bin of the distance rounded to float32 (−1 outside [2, 8))."""
    d = np.float64(np.float32(dist))
    if d >= 8.0 or d < 2.0:
        return -1
    if d >= 6.0:
        return 4
    if d >= 4.5:
        return 3
    if d >= 4.0:
        return 2
    if d >= 3.0:
        return 1
    return 0


@njit(cache=True)
def _score_one(pose, m, out):
    n_lig = m.lig_xyz.shape[0]
    lx, ly, lz, sub_box, group_box, _ = posed_ligand(
        pose, EXTENTS_START + m.n_rec_modes, m.lig_xyz, m.lig_modes
    )
    hit_j = np.empty(n_lig, dtype=np.int64)
    hit_d2 = np.empty(n_lig)
    counts = np.zeros((N_TYPES, N_TYPES, N_BINS))
    rec_hit = np.zeros(max(m.n_rec_groups, 1), dtype=np.bool_)
    lig_hit = np.zeros(max(m.n_lig_groups, 1), dtype=np.bool_)
    mem_hit = np.zeros(1, dtype=np.bool_)
    cut2 = 64.0 * (1.0 + 1e-12)  # candidates; the exact tests are on the distance
    for i in range(m.rec_xyz.shape[0]):
        x, y, z = receptor_atom(pose, EXTENTS_START, m.rec_xyz, m.rec_modes, i)
        n = near_ligand(x, y, z, lx, ly, lz, sub_box, group_box, cut2, hit_j, hit_d2)
        ti = m.rec_types[i]
        for h in range(n):
            j = hit_j[h]
            dist = math.sqrt(hit_d2[h])
            if dist < 2.0 or dist > 8.0:
                continue
            if dist <= 3.9:
                flag_pair(i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit)
            a = ti
            b = m.lig_types[j]
            if b < a:
                a, b = b, a
            r = _spline_bin(dist)
            if r == 0:
                counts[a, b, 0] += 1.0
            elif r == 1:
                counts[a, b, 0] += 4.0 - dist
                counts[a, b, 1] += dist - 3.0
            elif r == 2:
                counts[a, b, 1] += 1.0
            elif r == 3:
                counts[a, b, 1] += 4.0 - (dist / 3.0)
                counts[a, b, 2] += (dist / 3.0) - 3.0
            elif r == 4:
                counts[a, b, 2] += 1.0
    energy = 0.0
    for a in range(N_TYPES):
        for b in range(N_TYPES):
            for r in range(N_BINS):
                energy += counts[a, b, r] * m.table[a, b, r]
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
