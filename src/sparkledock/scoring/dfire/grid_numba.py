"""The fast DFIRE path on the CPU with Numba: one field lookup per ligand atom, poses in
parallel (one thread each, so results never depend on the thread count or batch).

Per pose: the ligand conformer (atom-contiguous loops, as a rotation matrix), then per atom
a trilinear lookup of the field's channels at its position, weighted by its type's factor
(:mod:`.grid`). With restraints or membrane beads, interface pairs (squared distance below
the exact path's interface threshold, receptor undeformed) are found in two cell lists:
every receptor atom, for ligand atoms of restraint residues; and only the tracked receptor
atoms (restraint residues, membrane beads), for every ligand atom, whose cells are flagged
so that an untracked neighbourhood costs one read.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from ...pose import EXTENTS_START
from ..terms import Terms
from .grid import DFIREField, cell_list
from .model import dfire_score
from .numba_kernel import flag_pair, store_fractions


class GridArrays(NamedTuple):
    """The fast model as the compiled kernel takes it."""

    n_rec_modes: int
    lig_xyz: np.ndarray
    #: the ligand's coordinates and modes as separate x, y, z arrays (atom-contiguous)
    x0: np.ndarray
    y0: np.ndarray
    z0: np.ndarray
    mx: np.ndarray
    my: np.ndarray
    mz: np.ndarray
    weights: np.ndarray
    field: np.ndarray
    origin: np.ndarray
    spacing: float
    #: interface search: threshold, cell size and origin, cell lists
    below: float
    cell_size: float
    cell_origin: np.ndarray
    all_starts: np.ndarray
    all_atoms: np.ndarray
    tracked_starts: np.ndarray
    tracked_atoms: np.ndarray
    tracked_near: np.ndarray
    rec_xyz: np.ndarray
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int
    mem_group: np.ndarray
    n_mem_groups: int


@njit(cache=True, inline="never")
def _field_energy(lx, ly, lz, weights, field, origin, h):
    """Σ_j Σ_r w[j, r]·Φ_r(x_j), trilinear; atoms outside the grid add nothing."""
    nx, ny, nz, rank = field.shape
    inv = 1.0 / h
    energy = 0.0
    v = np.empty(rank, dtype=np.float32)
    for j in range(lx.shape[0]):
        gx = (lx[j] - origin[0]) * inv
        gy = (ly[j] - origin[1]) * inv
        gz = (lz[j] - origin[2]) * inv
        ix = math.floor(gx)
        iy = math.floor(gy)
        iz = math.floor(gz)
        if ix < 0 or iy < 0 or iz < 0 or ix >= nx - 1 or iy >= ny - 1 or iz >= nz - 1:
            continue
        fx = gx - ix
        fy = gy - iy
        fz = gz - iz
        # interpolate the channel vector, then weight it by the atom's type factor
        v[:] = 0.0
        for cx in range(2):
            wx = fx if cx else 1.0 - fx
            for cy in range(2):
                wy = fy if cy else 1.0 - fy
                for cz in range(2):
                    w = np.float32(wx * wy * (fz if cz else 1.0 - fz))
                    for r in range(rank):
                        v[r] += w * field[ix + cx, iy + cy, iz + cz, r]
        e = 0.0
        for r in range(rank):
            e += weights[j, r] * v[r]
        energy += e
    return energy


@njit(cache=True, inline="never")
def _conformer(pose, ext0, x0, y0, z0, mx, my, mz, lx, ly, lz):
    """Ligand coordinates for ``pose`` with atom-contiguous loops (SIMD): modes, then the
    rotation ``q v q⁻¹`` and translation. Not LightDock's operation order: fast scores are
    approximate anyway, and the exact path keeps that order."""
    n = x0.shape[0]
    lx[:] = x0
    ly[:] = y0
    lz[:] = z0
    for k in range(mx.shape[0]):
        e = pose[ext0 + k]
        for j in range(n):
            lx[j] += e * mx[k, j]
            ly[j] += e * my[k, j]
            lz[j] += e * mz[k, j]
    qw, qx, qy, qz = pose[3], pose[4], pose[5], pose[6]
    n2 = qw * qw + qx * qx + qy * qy + qz * qz
    # the rotation matrix of q (divided by |q|², as q v q⁻¹ is for a non-unit q)
    r00 = (qw * qw + qx * qx - qy * qy - qz * qz) / n2
    r01 = 2.0 * (qx * qy - qw * qz) / n2
    r02 = 2.0 * (qx * qz + qw * qy) / n2
    r10 = 2.0 * (qx * qy + qw * qz) / n2
    r11 = (qw * qw - qx * qx + qy * qy - qz * qz) / n2
    r12 = 2.0 * (qy * qz - qw * qx) / n2
    r20 = 2.0 * (qx * qz - qw * qy) / n2
    r21 = 2.0 * (qy * qz + qw * qx) / n2
    r22 = (qw * qw - qx * qx - qy * qy + qz * qz) / n2
    tx, ty, tz = pose[0], pose[1], pose[2]
    for j in range(n):
        a, b, c = lx[j], ly[j], lz[j]
        lx[j] = r00 * a + r01 * b + r02 * c + tx
        ly[j] = r10 * a + r11 * b + r12 * c + ty
        lz[j] = r20 * a + r21 * b + r22 * c + tz


@njit(cache=True, inline="never")
def _mark(j, lx, ly, lz, starts, atoms, m, rec_hit, lig_hit, mem_hit):
    """Flag the groups of interface pairs of ligand atom ``j`` with the atoms of a cell list."""
    s = m.cell_size
    cx = math.floor((lx[j] - m.cell_origin[0]) / s)
    cy = math.floor((ly[j] - m.cell_origin[1]) / s)
    cz = math.floor((lz[j] - m.cell_origin[2]) / s)
    ncx, ncy, ncz = starts.shape[0], starts.shape[1], starts.shape[2] - 1
    for ax in range(max(cx - 1, 0), min(cx + 2, ncx)):
        for ay in range(max(cy - 1, 0), min(cy + 2, ncy)):
            for az in range(max(cz - 1, 0), min(cz + 2, ncz)):
                for q in range(starts[ax, ay, az], starts[ax, ay, az + 1]):
                    i = atoms[q]
                    dx = m.rec_xyz[i, 0] - lx[j]
                    dy = m.rec_xyz[i, 1] - ly[j]
                    dz = m.rec_xyz[i, 2] - lz[j]
                    if dx * dx + dy * dy + dz * dz < m.below:
                        flag_pair(
                            i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit
                        )


@njit(cache=True)
def _score_one(pose, m, out):
    n_lig = m.lig_xyz.shape[0]
    lx = np.empty(n_lig)
    ly = np.empty(n_lig)
    lz = np.empty(n_lig)
    _conformer(pose, EXTENTS_START + m.n_rec_modes, m.x0, m.y0, m.z0, m.mx, m.my, m.mz, lx, ly, lz)
    out[0] = _field_energy(lx, ly, lz, m.weights, m.field, m.origin, m.spacing)
    out[1] = 0.0
    out[2] = 0.0
    out[3] = 0.0
    if m.n_rec_groups + m.n_lig_groups + m.n_mem_groups == 0:
        return
    rec_hit = np.zeros(max(m.n_rec_groups, 1), dtype=np.bool_)
    lig_hit = np.zeros(max(m.n_lig_groups, 1), dtype=np.bool_)
    mem_hit = np.zeros(max(m.n_mem_groups, 1), dtype=np.bool_)
    s = m.cell_size
    near = m.tracked_near
    for j in range(n_lig):
        if m.lig_group[j] >= 0:  # every receptor atom counts for a restrained ligand atom
            _mark(j, lx, ly, lz, m.all_starts, m.all_atoms, m, rec_hit, lig_hit, mem_hit)
            continue
        cx = math.floor((lx[j] - m.cell_origin[0]) / s)
        cy = math.floor((ly[j] - m.cell_origin[1]) / s)
        cz = math.floor((lz[j] - m.cell_origin[2]) / s)
        if not (0 <= cx < near.shape[0] and 0 <= cy < near.shape[1] and 0 <= cz < near.shape[2]):
            continue
        if near[cx, cy, cz]:
            _mark(j, lx, ly, lz, m.tracked_starts, m.tracked_atoms, m, rec_hit, lig_hit, mem_hit)
    store_fractions(out, rec_hit, m.n_rec_groups, lig_hit, m.n_lig_groups, mem_hit, m.n_mem_groups)


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


def _near_flags(starts: np.ndarray) -> np.ndarray:
    """Per cell, whether it or one of its 26 neighbours holds an atom."""
    counts = (starts[:, :, 1:] - starts[:, :, :-1]) > 0
    counts = counts.astype(np.uint8)
    padded = np.pad(counts, 1)
    near = np.zeros_like(counts, dtype=bool)
    n = counts.shape
    for dx in range(3):
        for dy in range(3):
            for dz in range(3):
                near |= padded[dx : dx + n[0], dy : dy + n[1], dz : dz + n[2]] > 0
    return near


def grid_arrays(fast: DFIREField) -> GridArrays:
    """The fast model as the kernel takes it (cell lists built here, once per model)."""
    model, spec = fast.model, fast.spec
    below = float(model.iface_below)
    size = max(math.sqrt(below), 1.0) if math.isfinite(below) else 4.0
    rec = model.rec_xyz
    origin = rec.min(axis=0) - size
    hi = rec.max(axis=0) + size
    all_starts, all_atoms = cell_list(rec, origin, size, hi)
    tracked = (model.rec_restraint_group >= 0) | (model.membrane_group >= 0)
    sub = np.flatnonzero(tracked)
    t_starts, t_local = cell_list(rec[sub], origin, size, hi)
    t_atoms = sub[t_local].astype(np.int64)
    return GridArrays(
        n_rec_modes=model.layout.n_rec,
        lig_xyz=model.lig_xyz,
        x0=np.ascontiguousarray(model.lig_xyz[:, 0]),
        y0=np.ascontiguousarray(model.lig_xyz[:, 1]),
        z0=np.ascontiguousarray(model.lig_xyz[:, 2]),
        mx=np.ascontiguousarray(model.lig_modes[:, :, 0]),
        my=np.ascontiguousarray(model.lig_modes[:, :, 1]),
        mz=np.ascontiguousarray(model.lig_modes[:, :, 2]),
        weights=fast.weights,
        field=fast.field,
        origin=spec.origin,
        spacing=spec.spacing,
        below=below,
        cell_size=float(size),
        cell_origin=origin,
        all_starts=all_starts,
        all_atoms=all_atoms,
        tracked_starts=t_starts,
        tracked_atoms=t_atoms,
        tracked_near=_near_flags(t_starts),
        rec_xyz=rec,
        rec_group=model.rec_restraint_group,
        n_rec_groups=model.n_rec_restraints,
        lig_group=model.lig_restraint_group,
        n_lig_groups=model.n_lig_restraints,
        mem_group=model.membrane_group,
        n_mem_groups=model.n_membrane,
    )


def score_poses(
    fast: DFIREField, poses: np.ndarray, *, threads: int | None = None, arrays=None
) -> Terms:
    """Fast DFIRE energies and interface fractions of ``poses`` (validated (P, size))."""
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    try:
        arrays = arrays if arrays is not None else grid_arrays(fast)
        return Terms(*_score_batch(poses, arrays).T.copy())
    finally:
        numba.set_num_threads(previous)


class FastDFIRE:
    """The fast DFIRE scorer of one model: the field, built once, and its kernel arrays."""

    def __init__(self, fast: DFIREField) -> None:
        self.fast = fast
        self.arrays = grid_arrays(fast)

    @property
    def nbytes(self) -> int:
        return self.fast.nbytes

    def describe(self) -> str:
        spec = self.fast.spec
        nx, ny, nz = spec.shape
        rank = self.fast.field.shape[-1]
        return (
            f"fast scoring field {self.nbytes / 2**20:.0f} MiB ({nx}×{ny}×{nz} points at "
            f"{spec.spacing:g} Å × {rank} channels)"
        )

    def score(self, poses: np.ndarray, *, threads: int | None = None) -> np.ndarray:
        """Fast scores (P,) of validated poses, with LightDock's restraint combination."""
        poses = self.fast.model.layout.validate(poses)
        return dfire_score(score_poses(self.fast, poses, threads=threads, arrays=self.arrays))
