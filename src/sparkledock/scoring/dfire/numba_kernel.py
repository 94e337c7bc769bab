"""Batched, culled DFIRE on the CPU with Numba: poses in parallel, far atoms skipped.

Per pose (one thread each, so results never depend on the thread count):

1. Build the ligand conformer (modes, rotation, translation) and exact boxes of its
   sub-tiles (8 consecutive atoms), groups of sub-tiles and the whole ligand.
2. For each receptor tile (32 consecutive atoms) in order, bound how far its atoms can move
   for this pose's extents; skip it if even then it stays beyond 15 Å of the ligand's box or
   bounding sphere. Otherwise build the tile's conformer and keep the ligand sub-tiles whose
   boxes come within 15 Å of it; per chunk of 8 receptor atoms, narrow these to runs of ligand
   atoms within 15 Å of the chunk's box.
3. Per receptor atom, a vectorised pass computes squared distances to the atoms of those runs
   and a branch-free pass compacts, in ligand order, those within 15 Å; a last pass bins them
   (one lookup, exact: see ``cell_bins``) and sums table entries. Pairs are summed in
   receptor-major, ligand-minor order, the order of LightDock's loop and of the all-pairs
   oracle; skipped pairs would have added nothing, so the sum is bit-identical to it.

Conformers repeat LightDock's floating-point operations in order (no fused multiply-add:
Numba does not contract without fastmath), so coordinates are bit-identical too.

Performance notes: the hot loops live in small functions (``inline="never"``) so that LLVM
keeps their state in registers instead of spilling the many arrays of the enclosing function,
and index with unsigned integers, which skips Numba's negative-index wrap-around code. Both
were measured: about 20 % together.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...molecule.pose import EXTENTS_START
from ..numba_common import (
    flag_pair,
    gap2,
    ligand_boxes,
    ligand_conformer,
    run_batch,
    store_fractions,
)
from ..terms import Terms
from .model import (
    DFIRE_CUTOFF2,
    N_BINS,
    N_TYPES,
    DFIREModel,
)

#: Slack added to the tile bound tests (only there: bound-based boxes come from a norm that is
#: rounded, while exact boxes of built coordinates need none).
_BOUND_SLACK = 1e-6
_CUTOFF = math.sqrt(DFIRE_CUTOFF2)
#: Ligand sub-tiles (atoms) and groups (sub-tiles), receptor chunks (atoms). Measured flat
#: between 4 and 16: finer boxes visit fewer pairs but cost more tests.
LIG_SUB = 8
LIG_GROUP = 4
REC_SUB = 8


@njit(cache=True, inline="never")
def _ligand_boxes(lx, ly, lz, sub_box, group_box, all_box):
    """Exact boxes of sub-tiles, groups and the whole ligand; returns the squared radius of
    the ligand's bounding sphere about the centre of ``all_box``."""
    n_lig = lx.shape[0]
    ligand_boxes(lx, ly, lz, sub_box, group_box, all_box, LIG_SUB, LIG_GROUP)
    cx = 0.5 * (all_box[0] + all_box[3])
    cy = 0.5 * (all_box[1] + all_box[4])
    cz = 0.5 * (all_box[2] + all_box[5])
    rad2 = 0.0
    for j in range(n_lig):
        dx = lx[j] - cx
        dy = ly[j] - cy
        dz = lz[j] - cz
        rad2 = max(rad2, dx * dx + dy * dy + dz * dz)
    return rad2


@njit(cache=True, inline="never")
def _receptor_tile(pose, rec_xyz, rec_modes, a0, n_t, rec, box):
    """Conformer of receptor atoms ``a0:a0+n_t`` (modes added one at a time) and its box."""
    box[:3] = np.inf
    box[3:] = -np.inf
    for i in range(n_t):
        a = rec_xyz[a0 + i, 0]
        b = rec_xyz[a0 + i, 1]
        c = rec_xyz[a0 + i, 2]
        for k in range(rec_modes.shape[0]):
            e = pose[EXTENTS_START + k]
            a += rec_modes[k, a0 + i, 0] * e
            b += rec_modes[k, a0 + i, 1] * e
            c += rec_modes[k, a0 + i, 2] * e
        rec[i, 0] = a
        rec[i, 1] = b
        rec[i, 2] = c
        box[0] = min(box[0], a)
        box[1] = min(box[1], b)
        box[2] = min(box[2], c)
        box[3] = max(box[3], a)
        box[4] = max(box[4], b)
        box[5] = max(box[5], c)


@njit(cache=True, inline="never")
def _near_groups(box, group_box, cut2, groups):
    """Ligand groups whose boxes come within ``sqrt(cut2)`` of ``box``; returns the count."""
    n = 0
    for g in range(group_box.shape[0]):
        if gap2(box, group_box[g]) <= cut2:
            groups[n] = g
            n += 1
    return n


@njit(cache=True, inline="never")
def _tile_candidates(box, groups, n_groups, sub_box, cand, cand_box):
    """Sub-tiles of the given ligand groups within the cutoff of receptor box ``box``; their
    boxes are copied to ``cand_box`` (6, n) so that chunk tests run as vector loops."""
    n_sub = sub_box.shape[0]
    n_cand = 0
    for q in range(n_groups):
        g = groups[q]
        for s in range(g * LIG_GROUP, min((g + 1) * LIG_GROUP, n_sub)):
            if gap2(box, sub_box[s]) <= DFIRE_CUTOFF2:
                cand[n_cand] = s
                for d in range(6):
                    cand_box[d, n_cand] = sub_box[s, d]
                n_cand += 1
    return n_cand


@njit(cache=True, inline="never")
def _chunk_runs(rec, r0, r1, cand, n_cand, cand_box, gap, n_lig, run_start, run_end):
    """Runs of ligand atoms (adjacent sub-tiles merged) within the cutoff of the box of
    receptor atoms ``rec[r0:r1]``; returns the number of runs."""
    lo0 = rec[r0:r1, 0].min()
    lo1 = rec[r0:r1, 1].min()
    lo2 = rec[r0:r1, 2].min()
    hi0 = rec[r0:r1, 0].max()
    hi1 = rec[r0:r1, 1].max()
    hi2 = rec[r0:r1, 2].max()
    for q in range(n_cand):
        x = max(cand_box[0, q] - hi0, lo0 - cand_box[3, q], 0.0)
        y = max(cand_box[1, q] - hi1, lo1 - cand_box[4, q], 0.0)
        z = max(cand_box[2, q] - hi2, lo2 - cand_box[5, q], 0.0)
        gap[q] = x * x + y * y + z * z
    n_runs = 0
    for q in range(n_cand):
        if gap[q] <= DFIRE_CUTOFF2:
            js = cand[q] * LIG_SUB
            je = min(js + LIG_SUB, n_lig)
            if n_runs > 0 and run_end[n_runs - 1] == js:
                run_end[n_runs - 1] = je
            else:
                run_start[n_runs] = js
                run_end[n_runs] = je
                n_runs += 1
    return n_runs


@njit(cache=True, inline="never")
def _gather(xi, yi, zi, lx, ly, lz, run_start, run_end, n_runs, hit_j, d2_of):
    """Squared distances from one receptor atom to the ligand atoms of the runs (vectorised,
    kept by ligand atom in ``d2_of``), then the indices of those within the cutoff,
    compacted in ligand order without branches; returns their count."""
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
    """Bin each gathered pair (one lookup; the exact square root only in the few cells an edge
    crosses) and add its table entry, in order."""
    for h in range(np.uint64(n_hit)):
        j = hit_j[h]
        d2 = d2_of[j]
        b = cell_bins[np.uint64(d2 * 4.0)]
        if b < 0:
            b = bins[np.uint64(max(int(math.sqrt(d2) * 2.0 - 1.0), 0))]
        energy += table[np.uint64(roff + lig_off[j] + b)]
    return energy


@njit(cache=True, inline="never")
def _mark_interface(
    i, hit_j, d2_of, n_hit, below, rec_group, rec_hit, lig_group, lig_hit, mem_group, mem_hit
):
    """Flag restraint residues and membrane beads with an atom in a pair closer than
    ``below`` (squared)."""
    for h in range(n_hit):
        j = hit_j[h]
        if d2_of[j] < below:
            flag_pair(i, j, rec_group, rec_hit, lig_group, lig_hit, mem_group, mem_hit)


@njit(cache=True)
def _score_one(pose, m, out):
    """One pose's energy and interface fractions into ``out`` (the four :class:`Terms`)."""
    n_rec_modes = m.n_rec_modes
    rec_xyz = m.rec_xyz
    rec_off = m.rec_off
    rec_modes = m.rec_modes
    rt_starts = m.rt_starts
    rt_lo = m.rt_lo
    rt_hi = m.rt_hi
    rt_reach = m.rt_reach
    lig_xyz = m.lig_xyz
    lig_off = m.lig_off
    lig_modes = m.lig_modes
    table = m.table
    bins = m.bins
    cell_bins = m.cell_bins
    iface_below = m.iface_below
    rec_group = m.rec_group
    n_rec_groups = m.n_rec_groups
    lig_group = m.lig_group
    n_lig_groups = m.n_lig_groups
    mem_group = m.mem_group
    n_mem_groups = m.n_mem_groups
    tile_cap = m.tile_cap
    n_lig = lig_xyz.shape[0]
    n_sub = (n_lig + LIG_SUB - 1) // LIG_SUB

    # 1. ligand conformer and boxes
    lx = np.empty(n_lig)
    ly = np.empty(n_lig)
    lz = np.empty(n_lig)
    ligand_conformer(pose, EXTENTS_START + n_rec_modes, lig_xyz, lig_modes, lx, ly, lz)
    sub_box = np.empty((n_sub, 6))
    group_box = np.empty(((n_sub + LIG_GROUP - 1) // LIG_GROUP, 6))
    all_box = np.empty(6)
    rad2 = _ligand_boxes(lx, ly, lz, sub_box, group_box, all_box)
    centre = np.empty(6)
    for d in range(3):
        centre[d] = centre[d + 3] = 0.5 * (all_box[d] + all_box[d + 3])
    sphere_cut2 = (_CUTOFF + math.sqrt(rad2) + _BOUND_SLACK) ** 2
    bound_cut2 = (_CUTOFF + _BOUND_SLACK) ** 2

    # 2-3. receptor tiles in order
    energy = 0.0
    rec_hit = np.zeros(n_rec_groups, dtype=np.bool_)
    lig_hit = np.zeros(n_lig_groups, dtype=np.bool_)
    mem_hit = np.zeros(n_mem_groups, dtype=np.bool_)
    track_interface = n_rec_groups + n_lig_groups + n_mem_groups > 0
    rec = np.empty((tile_cap, 3))
    tile_box = np.empty(6)
    cand = np.empty(n_sub, dtype=np.int64)
    cand_box = np.empty((6, n_sub))
    gap = np.empty(n_sub)
    groups = np.empty(group_box.shape[0], dtype=np.int64)
    run_start = np.empty(n_sub, dtype=np.int64)
    run_end = np.empty(n_sub, dtype=np.int64)
    hit_j = np.empty(n_lig, dtype=np.uint64)
    d2_of = np.empty(n_lig)
    for t in range(rt_starts.shape[0] - 1):
        reach = 0.0
        for k in range(n_rec_modes):
            reach += abs(pose[EXTENTS_START + k]) * rt_reach[t, k]
        for d in range(3):
            tile_box[d] = rt_lo[t, d] - reach
            tile_box[d + 3] = rt_hi[t, d] + reach
        if gap2(tile_box, all_box) > bound_cut2 or gap2(tile_box, centre) > sphere_cut2:
            continue
        # ligand groups the tile can reach at its largest displacement: none, no conformer
        n_groups = _near_groups(tile_box, group_box, bound_cut2, groups)
        if n_groups == 0:
            continue
        a0 = rt_starts[t]
        n_t = rt_starts[t + 1] - a0
        _receptor_tile(pose, rec_xyz, rec_modes, a0, n_t, rec, tile_box)
        n_cand = _tile_candidates(tile_box, groups, n_groups, sub_box, cand, cand_box)
        if n_cand == 0:
            continue
        for r0 in range(0, n_t, REC_SUB):
            r1 = min(r0 + REC_SUB, n_t)
            n_runs = _chunk_runs(
                rec, r0, r1, cand, n_cand, cand_box, gap, n_lig, run_start, run_end
            )
            if n_runs == 0:
                continue
            for ii in range(r0, r1):
                i = a0 + ii
                n_hit = _gather(
                    rec[ii, 0],
                    rec[ii, 1],
                    rec[ii, 2],
                    lx,
                    ly,
                    lz,
                    run_start,
                    run_end,
                    n_runs,
                    hit_j,
                    d2_of,
                )
                energy = _accumulate(
                    energy, rec_off[i], hit_j, d2_of, n_hit, lig_off, table, cell_bins, bins
                )
                if track_interface:
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

    out[0] = energy
    store_fractions(out, rec_hit, n_rec_groups, lig_hit, n_lig_groups, mem_hit, n_mem_groups)


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


class KernelArrays(NamedTuple):
    """The prepared model as the compiled kernel takes it: a named tuple, which numba passes
    whole and reads by field name."""

    n_rec_modes: int
    rec_xyz: np.ndarray
    rec_off: np.ndarray
    rec_modes: np.ndarray
    rt_starts: np.ndarray
    rt_lo: np.ndarray
    rt_hi: np.ndarray
    rt_reach: np.ndarray
    lig_xyz: np.ndarray
    lig_off: np.ndarray
    lig_modes: np.ndarray
    table: np.ndarray
    bins: np.ndarray
    cell_bins: np.ndarray
    iface_below: float
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int
    mem_group: np.ndarray
    n_mem_groups: int
    tile_cap: int


def kernel_arrays(model: DFIREModel) -> KernelArrays:
    """The model as the compiled kernel takes it (offsets premultiplied into table rows)."""
    tiles = model.rec_tiles
    return KernelArrays(
        n_rec_modes=model.layout.n_rec,
        rec_xyz=model.rec_xyz,
        rec_off=(model.rec_types * (N_TYPES * (N_BINS + 1))).astype(np.int64),
        rec_modes=model.rec_modes,
        rt_starts=tiles.starts,
        rt_lo=tiles.lo,
        rt_hi=tiles.hi,
        rt_reach=tiles.reach,
        lig_xyz=model.lig_xyz,
        lig_off=(model.lig_types * (N_BINS + 1)).astype(np.int64),
        lig_modes=model.lig_modes,
        table=model.table.ravel(),
        bins=model.bins,
        cell_bins=model.cell_bins,
        iface_below=float(model.iface_below),
        rec_group=model.rec_restraint_group,
        n_rec_groups=model.n_rec_restraints,
        lig_group=model.lig_restraint_group,
        n_lig_groups=model.n_lig_restraints,
        mem_group=model.membrane_group,
        n_mem_groups=model.n_membrane,
        tile_cap=max(tiles.max_size, 1),
    )


def score_poses(model: DFIREModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """Culled DFIRE energies and interface fractions of ``poses`` (validated (P, size)
    float64), parallel over poses."""
    return run_batch(_score_batch, poses, kernel_arrays(model), threads=threads)
