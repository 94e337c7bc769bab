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

import numpy as np
from numba import njit, prange

from ...molecule.pose import EXTENTS_START
from ..numba_common import flag_pair, numba_threads, store_fractions
from ..terms import Terms
from .grid import DFIREField, cell_list, predicted_bytes
from .model import dfire_score


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
    #: the contact grid (:func:`contact_grid`): per cell, its class for the ligand side in
    #: the low two bits and a slot of the tracked groups' masks above them
    contact: np.ndarray
    contact_origin: np.ndarray
    contact_cell: float
    slot_all: np.ndarray
    slot_maybe: np.ndarray
    rec_xyz: np.ndarray
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int
    mem_group: np.ndarray
    n_mem_groups: int


#: Contact-grid classes: no receptor atom, every point's, or some points' interface partner.
CONTACT_NONE, CONTACT_ALL, CONTACT_CHECK = 0, 1, 2
#: Cell edge of the contact grid (Å): a finer grid leaves fewer cells to check exactly.
CONTACT_CELL_A = 0.5
#: The contact grid coarsens past this many cells (a large receptor), to bound its memory.
CONTACT_MAX_CELLS = 8_000_000
#: Tracked groups (receptor restraint residues, then membrane beads) a mask can hold.
MASK_BITS = 64


@njit(cache=True, inline="never", fastmath=True)
def _field_energy(lx, ly, lz, weights, field, origin, h):
    """Σ_j Σ_r w[j, r]·Φ_r(x_j), trilinear; atoms outside the grid add nothing. (fastmath
    lets the channel sums vectorise; the compiled order is fixed, so results do not depend
    on threads or batches.)"""
    nx, ny, nz, rank = field.shape
    inv = 1.0 / h
    energy = 0.0
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
        # the channels interpolated trilinearly, then one dot with the atom's type factor
        # (the same sum as dotting each corner: one horizontal reduction instead of eight)
        wx1 = np.float32(fx)
        wy1 = np.float32(fy)
        wz1 = np.float32(fz)
        wx0 = np.float32(1.0) - wx1
        wy0 = np.float32(1.0) - wy1
        wz0 = np.float32(1.0) - wz1
        c000 = field[ix, iy, iz]
        c001 = field[ix, iy, iz + 1]
        c010 = field[ix, iy + 1, iz]
        c011 = field[ix, iy + 1, iz + 1]
        c100 = field[ix + 1, iy, iz]
        c101 = field[ix + 1, iy, iz + 1]
        c110 = field[ix + 1, iy + 1, iz]
        c111 = field[ix + 1, iy + 1, iz + 1]
        w00 = wx0 * wy0
        w01 = wx0 * wy1
        w10 = wx1 * wy0
        w11 = wx1 * wy1
        wj = weights[j]
        e = np.float32(0.0)
        for r in range(rank):
            v = (
                w00 * (wz0 * np.float32(c000[r]) + wz1 * np.float32(c001[r]))
                + w01 * (wz0 * np.float32(c010[r]) + wz1 * np.float32(c011[r]))
                + w10 * (wz0 * np.float32(c100[r]) + wz1 * np.float32(c101[r]))
                + w11 * (wz0 * np.float32(c110[r]) + wz1 * np.float32(c111[r]))
            )
            e += wj[r] * v
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
def _scan(j, lx, ly, lz, starts, atoms, m, rec_hit, lig_hit, mem_hit, any_only):
    """Interface partners of ligand atom ``j`` among the atoms of a cell list (the 27 cells
    around it): with ``any_only``, whether there is one (the first returns True); otherwise
    flag the groups of every such pair (and return False)."""
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
                        if any_only:
                            return True
                        flag_pair(
                            i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit
                        )
    return False


@njit(cache=True, inline="never")
def _contact_kinds(lx, ly, lz, grid, origin, inv, out):
    """Each ligand atom's contact-grid cell value (0 off the grid: farther than the cutoff
    from every receptor atom), in one tight pass before the branches."""
    nx, ny, nz = grid.shape
    for j in range(lx.shape[0]):
        cx = math.floor((lx[j] - origin[0]) * inv)
        cy = math.floor((ly[j] - origin[1]) * inv)
        cz = math.floor((lz[j] - origin[2]) * inv)
        inside = 0 <= cx < nx and 0 <= cy < ny and 0 <= cz < nz
        out[j] = grid[cx, cy, cz] if inside else 0


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
    kinds = np.empty(n_lig, dtype=np.int32)
    _contact_kinds(lx, ly, lz, m.contact, m.contact_origin, 1.0 / m.contact_cell, kinds)
    # tracked groups known hit from cells every point of which has them (one bit each)
    decided = np.uint64(0)
    for j in range(n_lig):
        kind = kinds[j]
        if kind == 0:  # no receptor atom near, no tracked group near
            continue
        g = m.lig_group[j]
        if g >= 0 and not lig_hit[g]:  # any receptor atom counts for a restrained ligand atom
            cls = kind & 3
            if cls == CONTACT_CHECK:
                lig_hit[g] = _scan(
                    j, lx, ly, lz, m.all_starts, m.all_atoms, m, rec_hit, lig_hit, mem_hit, True
                )
            else:
                lig_hit[g] = cls == CONTACT_ALL
        slot = kind >> 2
        if slot > 0:
            decided |= m.slot_all[slot]
            if (m.slot_maybe[slot] & ~decided) != 0:  # a group the cell cannot decide, not yet hit
                tracked = (m.tracked_starts, m.tracked_atoms)
                _scan(j, lx, ly, lz, *tracked, m, rec_hit, lig_hit, mem_hit, False)
    n_rec = m.n_rec_groups
    if n_rec + m.n_mem_groups <= MASK_BITS:
        for bit in range(n_rec + m.n_mem_groups):
            if (decided >> np.uint64(bit)) & np.uint64(1):
                if bit < n_rec:
                    rec_hit[bit] = True
                else:
                    mem_hit[bit - n_rec] = True
    store_fractions(out, rec_hit, m.n_rec_groups, lig_hit, m.n_lig_groups, mem_hit, m.n_mem_groups)


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


@njit(cache=True)
def _splat(xyz, bits, origin, cell, shape, cutoff, half, nearest, maybe, every):
    """Over the cells within reach of each atom: ``nearest`` (squared distance from the cell
    centre to the nearest atom) and, for atoms with a group bit, ``maybe`` (some point of the
    cell is within the cutoff of an atom of the group) and ``every`` (every point is)."""
    radius = cutoff + half + 1e-3
    reach = math.ceil(radius / cell) + 1
    r2 = radius * radius
    for a in range(xyz.shape[0]):
        ix0 = math.floor((xyz[a, 0] - origin[0]) / cell)
        iy0 = math.floor((xyz[a, 1] - origin[1]) / cell)
        iz0 = math.floor((xyz[a, 2] - origin[2]) / cell)
        bit = bits[a]
        for ix in range(max(ix0 - reach, 0), min(ix0 + reach + 1, shape[0])):
            dx = origin[0] + (ix + 0.5) * cell - xyz[a, 0]
            for iy in range(max(iy0 - reach, 0), min(iy0 + reach + 1, shape[1])):
                dy = origin[1] + (iy + 0.5) * cell - xyz[a, 1]
                for iz in range(max(iz0 - reach, 0), min(iz0 + reach + 1, shape[2])):
                    dz = origin[2] + (iz + 0.5) * cell - xyz[a, 2]
                    d2 = dx * dx + dy * dy + dz * dz
                    if d2 >= r2:
                        continue
                    if d2 < nearest[ix, iy, iz]:
                        nearest[ix, iy, iz] = d2
                    if bit != 0:
                        d = math.sqrt(d2)
                        if d - half <= cutoff + 1e-6:
                            maybe[ix, iy, iz] |= bit
                        if d + half < cutoff - 1e-6:
                            every[ix, iy, iz] |= bit


def _contact_layout(model, below: float, cell: float = CONTACT_CELL_A):
    """The contact grid's origin, cell edge and shape for ``model``'s receptor."""
    cutoff = math.sqrt(below)
    rec = model.rec_xyz
    origin = rec.min(axis=0) - (cutoff + 1.0)
    extent = rec.max(axis=0) + (cutoff + 1.0) - origin
    cell = max(cell, float(np.cbrt(np.prod(extent) / CONTACT_MAX_CELLS)))
    return origin, cell, np.ceil(extent / cell).astype(np.int64)


#: Bytes per contact cell while the grid is built (nearest distance, two masks, the grid
#: and its narrowed copy).
CONTACT_BUILD_BYTES = 8 + 8 + 8 + 4 + 4


def contact_bytes(model) -> int:
    """Bytes the contact grid needs while it is built (0 without restraint terms)."""
    if model.n_rec_restraints + model.n_lig_restraints + model.n_membrane == 0:
        return 0
    _, _, shape = _contact_layout(model, float(model.iface_below))
    return int(np.prod(shape)) * CONTACT_BUILD_BYTES


def _smallest_unsigned(largest: int) -> type:
    """The narrowest unsigned integer type that holds ``largest``: a smaller contact grid
    stays in cache (its lookups cost up to a third of a restrained evaluation as int32 on
    large receptors; uint16 is about 1.2x faster there)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    raise ValueError(f"contact grid value {largest} does not fit 32 bits")


def contact_grid(model, below: float, cell: float = CONTACT_CELL_A):
    """The restraint terms' contact grid over the receptor's box grown by the interface
    cutoff (off it, no receptor atom is a partner), in cells of edge ``cell`` (coarser for a
    receptor too large for :data:`CONTACT_MAX_CELLS`). A cell's low two bits classify it for
    the ligand side: CONTACT_ALL where every point has a receptor atom closer than the cutoff
    (the centre's nearest atom is closer than the cutoff less the half-diagonal),
    CONTACT_NONE where no point has (farther than the cutoff plus the half-diagonal),
    CONTACT_CHECK between, which the kernel searches exactly. The bits above hold a slot:
    ``slot_all[slot]`` and ``slot_maybe[slot]`` are the tracked groups (receptor restraint
    residues, then membrane beads; one bit each) every point of the cell, or some point,
    has as partner; slot 0 has none. With more than :data:`MASK_BITS` groups one slot says
    "search" for every cell near a tracked atom. Margins of 1e-6 Å keep rounding on the
    searched side, so the grid never changes a fraction.

    Returns (grid, in the narrowest unsigned type that holds it; origin; cell; slot_all;
    slot_maybe)."""
    cutoff = math.sqrt(below)
    rec = model.rec_xyz
    origin, cell, shape = _contact_layout(model, below, cell)
    half = cell * math.sqrt(3.0) / 2.0
    n_rec, n_mem = model.n_rec_restraints, model.n_membrane
    group = np.where(
        model.rec_restraint_group >= 0,
        model.rec_restraint_group,
        np.where(model.membrane_group >= 0, n_rec + model.membrane_group, -1),
    )
    masked = n_rec + n_mem <= MASK_BITS
    bits = np.zeros(len(rec), dtype=np.uint64)
    if masked:
        bits[group >= 0] = np.left_shift(np.uint64(1), group[group >= 0].astype(np.uint64))
    else:  # every tracked atom marks bit 0: "search here"
        bits[group >= 0] = np.uint64(1)
    dims = tuple(int(n) for n in shape)
    nearest = np.full(dims, np.inf)
    maybe = np.zeros(dims, dtype=np.uint64)
    every = np.zeros(dims, dtype=np.uint64)
    _splat(
        np.ascontiguousarray(rec, dtype=np.float64),
        bits,
        origin,
        cell,
        shape,
        cutoff,
        half,
        nearest,
        maybe,
        every,
    )
    d = np.sqrt(nearest)
    grid = np.full(dims, CONTACT_CHECK, dtype=np.int32)
    grid[d + half < cutoff - 1e-6] = CONTACT_ALL
    grid[d - half > cutoff + 1e-6] = CONTACT_NONE
    if not masked:
        every[:] = 0
        maybe[maybe != 0] = ~np.uint64(0)
    near = np.flatnonzero(maybe.ravel())  # (slot 0, no tracked group, everywhere else)
    pairs = np.stack([every.ravel()[near], maybe.ravel()[near]], axis=1)
    table, slot = np.unique(pairs, axis=0, return_inverse=True)
    flat = grid.reshape(-1)
    flat[near] |= (slot.reshape(-1).astype(np.int32) + 1) << 2
    table = np.vstack([np.zeros((1, 2), dtype=np.uint64), table])
    grid = grid.astype(_smallest_unsigned(int(grid.max())))
    return grid, origin, cell, np.ascontiguousarray(table[:, 0]), np.ascontiguousarray(table[:, 1])


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
    if model.n_rec_restraints + model.n_lig_restraints + model.n_membrane > 0:
        contact, c_origin, c_cell, slot_all, slot_maybe = contact_grid(model, below)
    else:  # (no restraint terms: the kernel never reads it)
        contact, c_origin, c_cell = np.zeros((1, 1, 1), dtype=np.int32), np.zeros(3), 1.0
        slot_all = slot_maybe = np.zeros(1, dtype=np.uint64)
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
        contact=contact,
        contact_origin=np.asarray(c_origin, dtype=np.float64),
        contact_cell=float(c_cell),
        slot_all=slot_all,
        slot_maybe=slot_maybe,
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
    if fast.shift is not None:
        poses = fast.shift.shifted(poses, fast.model.layout)
    with numba_threads(threads):
        arrays = arrays if arrays is not None else grid_arrays(fast)
        return Terms(*_score_batch(poses, arrays).T.copy())


class FastDFIRE:
    """The fast DFIRE scorer of one model: the field, built once, and its kernel arrays."""

    def __init__(self, fast: DFIREField, budget_bytes: int | None = None) -> None:
        self.fast = fast
        #: predicted before building: the field while it is built, and the contact grid's
        self.predicted_bytes = predicted_bytes(fast.spec, fast.field.shape[-1]) + contact_bytes(
            fast.model
        )
        self.budget_bytes = budget_bytes
        self.arrays = grid_arrays(fast)

    @property
    def nbytes(self) -> int:
        """Resident bytes: the field, the contact grid and the receptor shift."""
        shift = self.fast.shift.modes.nbytes if self.fast.shift is not None else 0
        return int(self.fast.nbytes + self.arrays.contact.nbytes + shift)

    def describe(self) -> str:
        spec = self.fast.spec
        nx, ny, nz = spec.shape
        rank = self.fast.field.shape[-1]
        contact = self.arrays.contact
        text = (
            f"fast scoring field {self.fast.nbytes / 2**20:.1f} MiB ({nx}×{ny}×{nz} points at "
            f"{spec.spacing:g} Å × {rank} int16 channels)"
        )
        if contact.size > 1:
            text += f" + contact grid {contact.nbytes / 2**20:.1f} MiB"
        if self.fast.shift is not None:
            text += f" + receptor shift {self.fast.shift.modes.nbytes / 2**20:.1f} MiB"
        text += f"; predicted {self.predicted_bytes / 2**20:.0f} MiB while building"
        if self.budget_bytes is not None:
            text += f" of a {self.budget_bytes / 2**20:.0f} MiB budget"
        return text

    def device_scorer(self, engine, workspace_bytes: int):
        """This model on a torch device (:mod:`.grid_torch`), for GSO on torch."""
        from .grid_torch import DeviceFastDFIRE

        return DeviceFastDFIRE(self.arrays, engine, workspace_bytes, self.fast.shift)

    def score(self, poses: np.ndarray, *, threads: int | None = None) -> np.ndarray:
        """Fast scores (P,) of validated poses, with LightDock's restraint combination."""
        poses = self.fast.model.layout.validate(poses)
        return dfire_score(score_poses(self.fast, poses, threads=threads, arrays=self.arrays))
