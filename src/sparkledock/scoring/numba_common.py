"""Numba helpers every CPU kernel shares: LightDock's ligand conformer, box gaps, and the
restraint bookkeeping of interface pairs (one definition for every scoring function and for
the exact and fast DFIRE paths)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, NamedTuple

import numba
import numpy as np
from numba import njit

from .terms import Terms

if TYPE_CHECKING:
    from .base import TypedAtomModel


@njit(cache=True, inline="always")
def gap2(a, b):
    """Squared gap between boxes ``a`` and ``b`` (``[lo0, lo1, lo2, hi0, hi1, hi2]``)."""
    g = 0.0
    for d in range(3):
        x = max(b[d] - a[d + 3], a[d] - b[d + 3], 0.0)
        g += x * x
    return g


@njit(cache=True, inline="never")
def ligand_conformer(pose, lig_ext0, lig_xyz, lig_modes, lx, ly, lz):
    """Ligand coordinates for ``pose`` (struct of arrays), in LightDock's operation order:
    modes one at a time, then ``q v q⁻¹`` with ``q⁻¹ = conj(q)/|q|²``, then translation."""
    qw, qx, qy, qz = pose[3], pose[4], pose[5], pose[6]
    n2 = qw * qw + qx * qx + qy * qy + qz * qz
    iw, ix, iy, iz = qw / n2, -qx / n2, -qy / n2, -qz / n2
    for j in range(lig_xyz.shape[0]):
        a = lig_xyz[j, 0]
        b = lig_xyz[j, 1]
        c = lig_xyz[j, 2]
        for k in range(lig_modes.shape[0]):
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


@njit(cache=True, inline="always")
def flag_pair(i, j, rec_group, rec_hit, lig_group, lig_hit, mem_group, mem_hit):
    """Flag the restraint residues and membrane bead of an interface pair (receptor atom
    ``i``, ligand atom ``j``): the one definition for the exact and fast kernels."""
    g = rec_group[i]
    if g >= 0:
        rec_hit[g] = True
    g = lig_group[j]
    if g >= 0:
        lig_hit[g] = True
    g = mem_group[i]
    if g >= 0:
        mem_hit[g] = True


@njit(cache=True, inline="always")
def store_fractions(out, rec_hit, n_rec, lig_hit, n_lig, mem_hit, n_mem):
    """``out[1:4]``: the fraction of each group hit (0 for an empty group)."""
    out[1] = rec_hit.sum() / n_rec if n_rec > 0 else 0.0
    out[2] = lig_hit.sum() / n_lig if n_lig > 0 else 0.0
    out[3] = mem_hit.sum() / n_mem if n_mem > 0 else 0.0


#: Ligand atoms per sub-tile and sub-tiles per group of the pair kernels' culling boxes.
SUB = 8
GROUP = 8


@njit(cache=True, inline="never")
def ligand_boxes(lx, ly, lz, sub_box, group_box, all_box, sub=SUB, group=GROUP):
    """Exact boxes of ligand sub-tiles (``sub`` consecutive atoms), groups of ``group``
    sub-tiles and the whole ligand."""
    n = lx.shape[0]
    group_box[:, :3] = np.inf
    group_box[:, 3:] = -np.inf
    all_box[:3] = np.inf
    all_box[3:] = -np.inf
    for s in range(sub_box.shape[0]):
        j0 = s * sub
        j1 = min(j0 + sub, n)
        sub_box[s, 0] = lx[j0:j1].min()
        sub_box[s, 1] = ly[j0:j1].min()
        sub_box[s, 2] = lz[j0:j1].min()
        sub_box[s, 3] = lx[j0:j1].max()
        sub_box[s, 4] = ly[j0:j1].max()
        sub_box[s, 5] = lz[j0:j1].max()
        g = s // group
        for d in range(3):
            group_box[g, d] = min(group_box[g, d], sub_box[s, d])
            group_box[g, d + 3] = max(group_box[g, d + 3], sub_box[s, d + 3])
            all_box[d] = min(all_box[d], sub_box[s, d])
            all_box[d + 3] = max(all_box[d + 3], sub_box[s, d + 3])


@njit(cache=True, inline="always")
def point_gap2(x, y, z, box):
    """Squared distance from a point to a box (0 inside)."""
    gx = max(box[0] - x, x - box[3], 0.0)
    gy = max(box[1] - y, y - box[4], 0.0)
    gz = max(box[2] - z, z - box[5], 0.0)
    return gx * gx + gy * gy + gz * gz


@njit(cache=True, inline="never")
def near_ligand(x, y, z, lx, ly, lz, sub_box, group_box, cut2, hit_j, hit_d2):
    """Ligand atoms within ``cut2`` (squared, inclusive) of a point, in ascending index order
    (the order of LightDock's inner loop), with their squared distances; returns how many.
    Boxes farther than the cutoff are skipped: their atoms would add nothing."""
    n = lx.shape[0]
    bound = cut2 * (1.0 + 1e-12) + 1e-12  # box gaps round like distances do
    count = 0
    for g in range(group_box.shape[0]):
        if point_gap2(x, y, z, group_box[g]) > bound:
            continue
        for s in range(g * GROUP, min((g + 1) * GROUP, sub_box.shape[0])):
            if point_gap2(x, y, z, sub_box[s]) > bound:
                continue
            for j in range(s * SUB, min((s + 1) * SUB, n)):
                dx = x - lx[j]
                dy = y - ly[j]
                dz = z - lz[j]
                d2 = dx * dx + dy * dy + dz * dz
                if d2 <= cut2:
                    hit_j[count] = j
                    hit_d2[count] = d2
                    count += 1
    return count


@njit(cache=True, inline="always")
def receptor_atom(pose, ext0, rec_xyz, rec_modes, i):
    """Receptor atom ``i`` for ``pose``: its modes added one at a time (LightDock's order)."""
    x = rec_xyz[i, 0]
    y = rec_xyz[i, 1]
    z = rec_xyz[i, 2]
    for k in range(rec_modes.shape[0]):
        e = pose[ext0 + k]
        x += rec_modes[k, i, 0] * e
        y += rec_modes[k, i, 1] * e
        z += rec_modes[k, i, 2] * e
    return x, y, z


@contextlib.contextmanager
def numba_threads(threads: int | None):
    """Run a parallel kernel on ``threads`` threads (None: all), then restore the count."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        yield
    finally:
        numba.set_num_threads(previous)


def run_batch(batch: Any, poses: np.ndarray, *args: Any, threads: int | None = None) -> Terms:
    """A kernel's batch over ``poses`` on ``threads`` threads, as :class:`Terms`: a (P, 4)
    result is energy and the three fractions; a (P,) one is energy alone (a function whose
    restraints never count: zero fractions). The lift every CPU kernel shares; each kernel
    keeps its own ``prange`` loop over poses, because numba caches no compiled function that
    takes another as an argument or closes over one (measured: both recompile in every new
    process, a second or more per function)."""
    with numba_threads(threads):
        out = batch(poses, *args)
    if out.ndim == 1:
        zeros = np.zeros(len(poses))
        return Terms(out, zeros, zeros, zeros)
    return Terms(*out.T.copy())


@njit(cache=True)
def posed_ligand(pose, ext0, lig_xyz, lig_modes):
    """The ligand for ``pose`` (LightDock's conformer) and its culling boxes: the per-pose
    set-up every pair kernel needs. Returns (lx, ly, lz, sub_box, group_box, all_box)."""
    n = lig_xyz.shape[0]
    lx = np.empty(n)
    ly = np.empty(n)
    lz = np.empty(n)
    ligand_conformer(pose, ext0, lig_xyz, lig_modes, lx, ly, lz)
    n_sub = (n + SUB - 1) // SUB
    sub_box = np.empty((n_sub, 6))
    group_box = np.empty(((n_sub + GROUP - 1) // GROUP, 6))
    all_box = np.empty(6)
    ligand_boxes(lx, ly, lz, sub_box, group_box, all_box)
    return lx, ly, lz, sub_box, group_box, all_box


class TypedArrays(NamedTuple):
    """A :class:`~.base.TypedAtomModel` as the arrays its Numba kernel takes (one typed
    tuple, so every table-typed kernel has one signature), with no membrane groups."""

    n_rec_modes: int
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    rec_types: np.ndarray
    lig_types: np.ndarray
    table: np.ndarray
    bins: np.ndarray
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int
    mem_group: np.ndarray


def typed_arrays(model: TypedAtomModel) -> TypedArrays:
    """The kernel arguments of a table-typed function's prepared model."""
    return TypedArrays(
        n_rec_modes=model.layout.n_rec,
        rec_xyz=model.rec_xyz,
        rec_modes=model.rec_modes,
        lig_xyz=model.lig_xyz,
        lig_modes=model.lig_modes,
        rec_types=model.rec_types,
        lig_types=model.lig_types,
        table=model.table,
        bins=model.bins,
        rec_group=model.rec_restraint_group,
        n_rec_groups=model.n_rec_restraints,
        lig_group=model.lig_restraint_group,
        n_lig_groups=model.n_lig_restraints,
        mem_group=np.full(len(model.rec_xyz), -1, dtype=np.int64),
    )
