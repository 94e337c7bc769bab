"""Batched, culled DFIRE on the CPU with Numba: poses in parallel, far tiles skipped.

Per pose (one thread each, so results never depend on the thread count):

1. Build the ligand conformer (modes, rotation, translation) and its tiles' exact boxes.
2. For each receptor tile, bound how far its atoms can move for this pose's extents; skip it
   if even then it stays beyond 15 Å of the ligand's box. Otherwise build the tile's
   conformer, find the ligand tiles whose boxes come within 15 Å of it, and for each receptor
   atom visit only those ligand tiles whose box it is within 15 Å of.
3. Per receptor atom, a branch-free pass computes squared distances to the candidate ligand
   atoms and compacts those within 15 Å (keeping their order); a second pass bins them and
   sums table entries in receptor-major, ligand-minor order, the order of LightDock's loop
   and of the all-pairs oracle. Skipped pairs would have added nothing, so the sum is
   bit-identical to the all-pairs one.

Conformers repeat LightDock's floating-point operations in order (no fused multiply-add:
Numba does not contract without fastmath), so coordinates are bit-identical too.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numba import njit, prange

from ..scoring.dfire import (
    DFIRE_CUTOFF2,
    ENERGY_OFFSET,
    ENERGY_SCALE,
    MEMBRANE_PENALTY,
    N_BINS,
    N_TYPES,
    DFIREModel,
)

#: Slack added to the tile bound test (only there: bound-based boxes come from a norm that is
#: rounded, while exact boxes of built coordinates need none).
_BOUND_SLACK = 1e-6
_CUTOFF = math.sqrt(DFIRE_CUTOFF2)


@njit(cache=True, inline="always")
def _gap2(lo_a0, lo_a1, lo_a2, hi_a0, hi_a1, hi_a2, lo_b, hi_b):
    """Squared gap between box a and box b (0 when they overlap)."""
    g = 0.0
    d = max(lo_b[0] - hi_a0, lo_a0 - hi_b[0], 0.0)
    g += d * d
    d = max(lo_b[1] - hi_a1, lo_a1 - hi_b[1], 0.0)
    g += d * d
    d = max(lo_b[2] - hi_a2, lo_a2 - hi_b[2], 0.0)
    g += d * d
    return g


@njit(cache=True)
def _score_one(
    pose,
    n_rec_modes,
    rec_xyz,
    rec_off,
    rec_modes,
    rt_starts,
    rt_lo,
    rt_hi,
    rt_reach,
    lig_xyz,
    lig_off,
    lig_modes,
    lt_starts,
    table,
    bins,
    iface_kmax,
    iface_d2max,
    rec_group,
    n_rec_groups,
    lig_group,
    n_lig_groups,
    mem_group,
    n_mem_groups,
    tile_cap,
):
    n_lig = lig_xyz.shape[0]
    m_rec = rec_modes.shape[0]
    m_lig = lig_modes.shape[0]
    lig_ext0 = 7 + n_rec_modes

    # 1. ligand conformer (struct of arrays): modes one at a time, q v q^-1, translate
    qw, qx, qy, qz = pose[3], pose[4], pose[5], pose[6]
    n2 = qw * qw + qx * qx + qy * qy + qz * qz
    iw, ix, iy, iz = qw / n2, -qx / n2, -qy / n2, -qz / n2
    lx = np.empty(n_lig)
    ly = np.empty(n_lig)
    lz = np.empty(n_lig)
    for j in range(n_lig):
        a = lig_xyz[j, 0]
        b = lig_xyz[j, 1]
        c = lig_xyz[j, 2]
        for k in range(m_lig):
            e = pose[lig_ext0 + k]
            a += lig_modes[k, j, 0] * e
            b += lig_modes[k, j, 1] * e
            c += lig_modes[k, j, 2] * e
        tw = qw * 0.0 - qx * a - qy * b - qz * c
        tx = qw * a + qx * 0.0 + qy * c - qz * b
        ty = qw * b - qx * c + qy * 0.0 + qz * a
        tz = qw * c + qx * b - qy * a + qz * 0.0
        lx[j] = (tw * ix + tx * iw + ty * iz - tz * iy) + pose[0]
        ly[j] = (tw * iy - tx * iz + ty * iw + tz * ix) + pose[1]
        lz[j] = (tw * iz + tx * iy - ty * ix + tz * iw) + pose[2]

    n_lt = lt_starts.shape[0] - 1
    llo = np.empty((n_lt, 3))
    lhi = np.empty((n_lt, 3))
    glo = np.full(3, np.inf)
    ghi = np.full(3, -np.inf)
    for t in range(n_lt):
        j0 = lt_starts[t]
        j1 = lt_starts[t + 1]
        llo[t, 0] = lx[j0:j1].min()
        llo[t, 1] = ly[j0:j1].min()
        llo[t, 2] = lz[j0:j1].min()
        lhi[t, 0] = lx[j0:j1].max()
        lhi[t, 1] = ly[j0:j1].max()
        lhi[t, 2] = lz[j0:j1].max()
        for d in range(3):
            glo[d] = min(glo[d], llo[t, d])
            ghi[d] = max(ghi[d], lhi[t, d])

    # 2-3. receptor tiles in order
    energy = 0.0
    rec_hit = np.zeros(n_rec_groups, dtype=np.bool_)
    lig_hit = np.zeros(n_lig_groups, dtype=np.bool_)
    mem_hit = np.zeros(n_mem_groups, dtype=np.bool_)
    rec = np.empty((tile_cap, 3))
    near = np.empty(n_lt, dtype=np.int64)
    hit_j = np.empty(n_lig, dtype=np.int64)
    hit_d2 = np.empty(n_lig)
    bound_cut2 = (_CUTOFF + _BOUND_SLACK) ** 2
    for t in range(rt_starts.shape[0] - 1):
        reach = 0.0
        for k in range(m_rec):
            reach += abs(pose[7 + k]) * rt_reach[t, k]
        if (
            _gap2(
                rt_lo[t, 0] - reach,
                rt_lo[t, 1] - reach,
                rt_lo[t, 2] - reach,
                rt_hi[t, 0] + reach,
                rt_hi[t, 1] + reach,
                rt_hi[t, 2] + reach,
                glo,
                ghi,
            )
            > bound_cut2
        ):
            continue
        a0 = rt_starts[t]
        a1 = rt_starts[t + 1]
        rlo0 = rlo1 = rlo2 = np.inf
        rhi0 = rhi1 = rhi2 = -np.inf
        for i in range(a0, a1):
            a = rec_xyz[i, 0]
            b = rec_xyz[i, 1]
            c = rec_xyz[i, 2]
            for k in range(m_rec):
                e = pose[7 + k]
                a += rec_modes[k, i, 0] * e
                b += rec_modes[k, i, 1] * e
                c += rec_modes[k, i, 2] * e
            rec[i - a0, 0] = a
            rec[i - a0, 1] = b
            rec[i - a0, 2] = c
            rlo0 = min(rlo0, a)
            rlo1 = min(rlo1, b)
            rlo2 = min(rlo2, c)
            rhi0 = max(rhi0, a)
            rhi1 = max(rhi1, b)
            rhi2 = max(rhi2, c)
        n_near = 0
        for u in range(n_lt):
            if _gap2(rlo0, rlo1, rlo2, rhi0, rhi1, rhi2, llo[u], lhi[u]) <= DFIRE_CUTOFF2:
                near[n_near] = u
                n_near += 1
        if n_near == 0:
            continue
        for i in range(a0, a1):
            xi = rec[i - a0, 0]
            yi = rec[i - a0, 1]
            zi = rec[i - a0, 2]
            # pass 1 (branch-free): squared distances, compacted to those within the cutoff
            n_hit = 0
            for q in range(n_near):
                u = near[q]
                if _gap2(xi, yi, zi, xi, yi, zi, llo[u], lhi[u]) > DFIRE_CUTOFF2:
                    continue
                j0 = lt_starts[u]
                j1 = lt_starts[u + 1]
                for j in range(j0, j1):
                    dx = xi - lx[j]
                    dy = yi - ly[j]
                    dz = zi - lz[j]
                    d2 = dx * dx + dy * dy + dz * dz
                    hit_j[n_hit] = j
                    hit_d2[n_hit] = d2
                    n_hit += d2 <= DFIRE_CUTOFF2
            # pass 2: bin without sqrt and accumulate, in all-pairs order
            roff = rec_off[i]
            for h in range(n_hit):
                j = hit_j[h]
                d2 = hit_d2[h]
                kk = int(math.sqrt(d2) * 2.0 - 1.0)
                if kk < 0:
                    kk = 0
                energy += table[roff + lig_off[j] + bins[kk]]
                if kk <= iface_kmax and d2 <= iface_d2max:
                    g = rec_group[i]
                    if g >= 0:
                        rec_hit[g] = True
                    g = lig_group[j]
                    if g >= 0:
                        lig_hit[g] = True
                    g = mem_group[i]
                    if g >= 0:
                        mem_hit[g] = True

    score = (energy * ENERGY_SCALE - ENERGY_OFFSET) * -1.0
    p_rec = rec_hit.sum() / n_rec_groups if n_rec_groups > 0 else 0.0
    p_lig = lig_hit.sum() / n_lig_groups if n_lig_groups > 0 else 0.0
    p_mem = mem_hit.sum() / n_mem_groups if n_mem_groups > 0 else 0.0
    penalty = MEMBRANE_PENALTY * p_mem if p_mem > 0.0 else 0.0
    return score + p_rec * score + p_lig * score - penalty


@njit(parallel=True, cache=True)
def _score_batch(
    poses,
    n_rec_modes,
    rec_xyz,
    rec_off,
    rec_modes,
    rt_starts,
    rt_lo,
    rt_hi,
    rt_reach,
    lig_xyz,
    lig_off,
    lig_modes,
    lt_starts,
    table,
    bins,
    iface_kmax,
    iface_d2max,
    rec_group,
    n_rec_groups,
    lig_group,
    n_lig_groups,
    mem_group,
    n_mem_groups,
    tile_cap,
):
    out = np.empty(poses.shape[0])
    for p in prange(poses.shape[0]):
        out[p] = _score_one(
            poses[p],
            n_rec_modes,
            rec_xyz,
            rec_off,
            rec_modes,
            rt_starts,
            rt_lo,
            rt_hi,
            rt_reach,
            lig_xyz,
            lig_off,
            lig_modes,
            lt_starts,
            table,
            bins,
            iface_kmax,
            iface_d2max,
            rec_group,
            n_rec_groups,
            lig_group,
            n_lig_groups,
            mem_group,
            n_mem_groups,
            tile_cap,
        )
    return out


def score_poses(model: DFIREModel, poses: np.ndarray, *, threads: int | None = None) -> np.ndarray:
    """Culled DFIRE scores of ``poses`` (validated (P, size) float64), parallel over poses."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        return _score_batch(
            poses,
            model.layout.n_rec,
            model.rec_xyz,
            model.rec_types * (N_TYPES * (N_BINS + 1)),
            model.rec_modes,
            model.rec_tiles.starts,
            model.rec_tiles.lo,
            model.rec_tiles.hi,
            model.rec_tiles.reach,
            model.lig_xyz,
            model.lig_types * (N_BINS + 1),
            model.lig_modes,
            model.lig_tiles.starts,
            model.table.ravel(),
            model.bins,
            model.iface_kmax,
            float(model.iface_d2max),
            model.rec_restraint_group,
            model.n_rec_restraints,
            model.lig_restraint_group,
            model.n_lig_restraints,
            model.membrane_group,
            model.n_membrane,
            max(model.rec_tiles.max_size, 1),
        )
    finally:
        numba.set_num_threads(previous)
