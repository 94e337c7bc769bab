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
#: Ligand sub-tiles (atoms) and groups (sub-tiles), receptor sub-tiles (atoms): box tests at
#: these granularities keep ~40-60 % of visited pairs within the cutoff.
LIG_SUB = 8
LIG_GROUP = 4
REC_SUB = 8


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


@njit(cache=True, inline="never")
def _gather(xi, yi, zi, lx, ly, lz, run_start, run_end, n_runs, hit_j, d2_of):
    """Pass 1: squared distances from one receptor atom to the ligand atoms in reach
    (vectorisable, stored by ligand atom in ``d2_of``), then the indices of those within the
    cutoff, compacted in ligand order (branch-free); returns their count."""
    n_hit = 0
    for q in range(n_runs):
        j0 = np.uint64(run_start[q])
        j1 = np.uint64(run_end[q])
        for j in range(j0, j1):
            dx = xi - lx[j]
            dy = yi - ly[j]
            dz = zi - lz[j]
            d2_of[j] = dx * dx + dy * dy + dz * dz
        for j in range(j0, j1):
            hit_j[np.uint64(n_hit)] = j
            n_hit += d2_of[j] <= DFIRE_CUTOFF2
    return n_hit


@njit(cache=True, inline="never")
def _accumulate(energy, roff, hit_j, d2_of, n_hit, lig_off, table, cell_bins, bins):
    """Pass 2: bin each pair (one lookup; the exact square root only in the few cells an edge
    crosses) and add its table entry, in order."""
    for h in range(np.uint64(n_hit)):
        j = hit_j[h]
        d2 = d2_of[j]
        b = cell_bins[np.uint64(d2 * 4.0)]
        if b < 0:
            b = bins[np.uint64(max(int(math.sqrt(d2) * 2.0 - 1.0), 0))]
        energy += table[np.uint64(roff + lig_off[j] + b)]
    return energy


@njit(cache=True)
def _any_closer(hit_j, d2_of, n_hit, below):
    """Whether any gathered pair is closer than ``below`` (squared)."""
    for h in range(n_hit):  # noqa: SIM110 (a plain loop compiles to tight code in Numba)
        if d2_of[hit_j[h]] < below:
            return True
    return False


@njit(cache=True)
def _mark_interface(
    i, hit_j, d2_of, n_hit, iface_below, rec_group, rec_hit, lig_group, lig_hit, mem_group, mem_hit
):
    """Flag restraint residues and membrane beads with an atom in an interface pair."""
    for h in range(n_hit):
        j = hit_j[h]
        if d2_of[j] < iface_below:
            g = rec_group[i]
            if g >= 0:
                rec_hit[g] = True
            g = lig_group[j]
            if g >= 0:
                lig_hit[g] = True
            g = mem_group[i]
            if g >= 0:
                mem_hit[g] = True


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
    table,
    bins,
    cell_bins,
    iface_below,
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

    # ligand boxes: sub-tiles of LIG_SUB atoms, groups of LIG_GROUP sub-tiles, everything
    n_ls = (n_lig + LIG_SUB - 1) // LIG_SUB
    n_lg = (n_ls + LIG_GROUP - 1) // LIG_GROUP
    slo = np.empty((n_ls, 3))
    shi = np.empty((n_ls, 3))
    glo = np.full((n_lg, 3), np.inf)
    ghi = np.full((n_lg, 3), -np.inf)
    alo = np.full(3, np.inf)
    ahi = np.full(3, -np.inf)
    for s in range(n_ls):
        j0 = s * LIG_SUB
        j1 = min(j0 + LIG_SUB, n_lig)
        slo[s, 0] = lx[j0:j1].min()
        slo[s, 1] = ly[j0:j1].min()
        slo[s, 2] = lz[j0:j1].min()
        shi[s, 0] = lx[j0:j1].max()
        shi[s, 1] = ly[j0:j1].max()
        shi[s, 2] = lz[j0:j1].max()
        g = s // LIG_GROUP
        for d in range(3):
            glo[g, d] = min(glo[g, d], slo[s, d])
            ghi[g, d] = max(ghi[g, d], shi[s, d])
            alo[d] = min(alo[d], slo[s, d])
            ahi[d] = max(ahi[d], shi[s, d])

    # ligand bounding sphere about its box centre: with the box, a tighter first test
    cx = 0.5 * (alo[0] + ahi[0])
    cy = 0.5 * (alo[1] + ahi[1])
    cz = 0.5 * (alo[2] + ahi[2])
    rad2 = 0.0
    for j in range(n_lig):
        dx = lx[j] - cx
        dy = ly[j] - cy
        dz = lz[j] - cz
        rad2 = max(rad2, dx * dx + dy * dy + dz * dz)
    centre = np.array([cx, cy, cz])
    sphere_cut2 = (_CUTOFF + math.sqrt(rad2) + _BOUND_SLACK) ** 2

    # 2-3. receptor tiles in order
    energy = 0.0
    rec_hit = np.zeros(n_rec_groups, dtype=np.bool_)
    lig_hit = np.zeros(n_lig_groups, dtype=np.bool_)
    mem_hit = np.zeros(n_mem_groups, dtype=np.bool_)
    rec = np.empty((tile_cap, 3))
    cand = np.empty(n_ls, dtype=np.int64)
    run_start = np.empty(n_ls, dtype=np.int64)
    run_end = np.empty(n_ls, dtype=np.int64)
    hit_j = np.empty(n_lig, dtype=np.uint64)
    d2_of = np.empty(n_lig)
    rbox_lo = np.empty(3)
    rbox_hi = np.empty(3)
    bound_cut2 = (_CUTOFF + _BOUND_SLACK) ** 2
    for t in range(rt_starts.shape[0] - 1):
        reach = 0.0
        for k in range(m_rec):
            reach += abs(pose[7 + k]) * rt_reach[t, k]
        lo0 = rt_lo[t, 0] - reach
        lo1 = rt_lo[t, 1] - reach
        lo2 = rt_lo[t, 2] - reach
        hi0 = rt_hi[t, 0] + reach
        hi1 = rt_hi[t, 1] + reach
        hi2 = rt_hi[t, 2] + reach
        if _gap2(lo0, lo1, lo2, hi0, hi1, hi2, alo, ahi) > bound_cut2:
            continue
        if _gap2(lo0, lo1, lo2, hi0, hi1, hi2, centre, centre) > sphere_cut2:
            continue
        a0 = rt_starts[t]
        n_t = rt_starts[t + 1] - a0
        for i in range(n_t):
            a = rec_xyz[a0 + i, 0]
            b = rec_xyz[a0 + i, 1]
            c = rec_xyz[a0 + i, 2]
            for k in range(m_rec):
                e = pose[7 + k]
                a += rec_modes[k, a0 + i, 0] * e
                b += rec_modes[k, a0 + i, 1] * e
                c += rec_modes[k, a0 + i, 2] * e
            rec[i, 0] = a
            rec[i, 1] = b
            rec[i, 2] = c
        for d in range(3):
            rbox_lo[d] = rec[:n_t, d].min()
            rbox_hi[d] = rec[:n_t, d].max()
        # ligand sub-tiles this receptor tile can reach (groups first)
        n_cand = 0
        for g in range(n_lg):
            if (
                _gap2(
                    rbox_lo[0],
                    rbox_lo[1],
                    rbox_lo[2],
                    rbox_hi[0],
                    rbox_hi[1],
                    rbox_hi[2],
                    glo[g],
                    ghi[g],
                )
                > DFIRE_CUTOFF2
            ):
                continue
            for s in range(g * LIG_GROUP, min((g + 1) * LIG_GROUP, n_ls)):
                if (
                    _gap2(
                        rbox_lo[0],
                        rbox_lo[1],
                        rbox_lo[2],
                        rbox_hi[0],
                        rbox_hi[1],
                        rbox_hi[2],
                        slo[s],
                        shi[s],
                    )
                    <= DFIRE_CUTOFF2
                ):
                    cand[n_cand] = s
                    n_cand += 1
        if n_cand == 0:
            continue
        for r0 in range(0, n_t, REC_SUB):
            r1 = min(r0 + REC_SUB, n_t)
            lo0 = rec[r0:r1, 0].min()
            lo1 = rec[r0:r1, 1].min()
            lo2 = rec[r0:r1, 2].min()
            hi0 = rec[r0:r1, 0].max()
            hi1 = rec[r0:r1, 1].max()
            hi2 = rec[r0:r1, 2].max()
            n_runs = 0
            for q in range(n_cand):
                s = cand[q]
                if _gap2(lo0, lo1, lo2, hi0, hi1, hi2, slo[s], shi[s]) <= DFIRE_CUTOFF2:
                    # ligand atoms to visit, as runs (adjacent sub-tiles merge)
                    js = s * LIG_SUB
                    je = min(js + LIG_SUB, n_lig)
                    if n_runs > 0 and run_end[n_runs - 1] == js:
                        run_end[n_runs - 1] = je
                    else:
                        run_start[n_runs] = js
                        run_end[n_runs] = je
                        n_runs += 1
            if n_runs == 0:
                continue
            for ii in range(r0, r1):
                i = a0 + ii
                xi = rec[ii, 0]
                yi = rec[ii, 1]
                zi = rec[ii, 2]
                n_hit = _gather(xi, yi, zi, lx, ly, lz, run_start, run_end, n_runs, hit_j, d2_of)
                energy = _accumulate(
                    energy, rec_off[i], hit_j, d2_of, n_hit, lig_off, table, cell_bins, bins
                )
                if _any_closer(hit_j, d2_of, n_hit, iface_below):
                    _mark_interface(
                        i,
                        hit_j,
                        d2_of,
                        n_hit,
                        iface_below,
                        rec_group,
                        rec_hit,
                        lig_group,
                        lig_hit,
                        mem_group,
                        mem_hit,
                    )

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
    table,
    bins,
    cell_bins,
    iface_below,
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
            table,
            bins,
            cell_bins,
            iface_below,
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
            model.table.ravel(),
            model.bins,
            model.cell_bins,
            float(model.iface_below),
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
