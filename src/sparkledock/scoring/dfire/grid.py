"""DFIRE's fast path: the receptor's DFIRE field on a grid, so a pose costs one lookup per
ligand atom instead of a sum over receptor–ligand pairs.

For each ligand atom type ``b`` present, ``F_b(x) = Σ_i table[type_i, b, bin(|x − r_i|)]`` over
the receptor atoms ``i`` (undeformed), sampled on a regular grid of spacing ``h`` and
interpolated trilinearly; the pose's DFIRE energy is ``Σ_j F_{type_j}(x_j)`` over its ligand
atoms (deformed by the ligand's normal modes, rotated, translated), then scored like the
exact path (``(E·0.0157 − 4.7)·(−1)``). Decided by measurement (benchmarks/notebook/performance.md):

* **Types compressed by a truncated SVD** of the table over the ligand type:
  ``table[a, b, k] ≈ Σ_r W[b, r]·B[a, k, r]``, so the field has ``RANK`` channels
  ``Φ_r(x) = Σ_i B[type_i, bin, r]`` and ``F_b = Σ_r W[b, r]·Φ_r``. The table is far from
  low rank in norm (rank 16 leaves 36 % of it), but pose scores are sums over thousands of
  pairs: the starting poses of 2X9A's restrained docking keep a Spearman correlation of
  0.998 with exact scores at rank 8 (0.999 at 16; mean error 1.0 against 0.7, spread 51),
  and rank 8 scores 1.4–1.9× faster (2X9A, 1RKE). A point's channels are 16 bytes
  (``[x, y, z, r]``), four points to a cache line.
* **int16 with a scale per channel** (``Φ_r ≈ q_r·scale_r``, the scale folded into the
  atoms' weights): half the bytes of float32 and no measurable loss (the same Spearman and
  mean error to three digits), 1.1–1.3× faster lookups. Spacing 1 Å by default (0.5 Å
  measured no better: the factorisation's error dominates); the grid covers only where
  ligand atoms can be: the
  receptor's box grown by the 15 Å cutoff (farther, every pair adds nothing), cut to the
  swarms' reach (their starting translations, grown by the ligand's radius and its largest
  normal-mode displacement, plus a margin). A ligand atom outside the grid adds nothing.
* **Receptor normal modes** do not enter the field: in scoring mode ``fast`` the field is the
  undeformed receptor's (the extents still move, as in LightDock's GSO). Mode ``fast-flex``
  lets them in as a local shift (:class:`ReceptorShift`): the receptor's displacement near
  the ligand is carried by the ligand's translation. Either way the final glowworms are
  re-scored exactly (:mod:`sparkledock.engine.simulation`), so every reported score is exact.
* **Restraint and membrane terms are exact** for the undeformed receptor: interface pairs
  (closer than the exact path's interface distance) are found with cell lists of the
  restraint atoms (:mod:`.grid_numba`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
from numba import njit, prange

from ...backend import DEFAULT_FIELD_BUDGET
from ...errors import FieldTooLargeError
from .model import (
    DFIRE_CUTOFF2,
    DFIRE_CUTOFF_A,
    N_BINS,
    N_TYPES,
    DFIREModel,
    padded_table,
)

#: Channels of the field: the rank of the table's factorisation over ligand types.
RANK = 8
#: Quantisation of a channel: ``round(Φ / scale)`` with ``scale = max|Φ| / QMAX``.
QMAX = 32767
#: Default grid spacing (Å).
DEFAULT_SPACING_A = 1.0
#: Added around the swarms' reach (Å): GSO may carry glowworms a little past their start.
REACH_MARGIN_A = 6.0


@dataclass(frozen=True)
class GridSpec:
    """A regular grid: ``origin`` (3,), ``spacing`` (Å) and ``shape`` (nx, ny, nz)."""

    origin: np.ndarray
    spacing: float
    shape: tuple[int, int, int]

    @property
    def points(self) -> int:
        return int(np.prod(self.shape))


def field_box(model: DFIREModel, reach: tuple[np.ndarray, np.ndarray] | None) -> np.ndarray:
    """(2, 3) corners of the region the field must cover: the undeformed receptor's box
    grown by the cutoff, cut to ``reach`` (a (lo, hi) box) if given."""
    rec = model.rec_xyz
    lo = rec.min(axis=0) - DFIRE_CUTOFF_A
    hi = rec.max(axis=0) + DFIRE_CUTOFF_A
    if reach is not None:
        lo = np.maximum(lo, reach[0])
        hi = np.minimum(hi, reach[1])
    hi = np.maximum(hi, lo)
    return np.stack([lo, hi])


def swarm_reach(model: DFIREModel, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the ligand's atoms can go from these starting poses (P, D): the translations'
    box grown by the ligand's radius (rotations keep distances to the origin), its largest
    normal-mode displacement (extents up to 1.5× the largest starting one, plus 1) and
    :data:`REACH_MARGIN_A`."""
    lay = model.layout
    t = poses[:, lay.translation]
    radius = float(np.sqrt((model.lig_xyz**2).sum(axis=1)).max()) if len(model.lig_xyz) else 0.0
    slack = 0.0
    if lay.n_lig:
        ext = np.abs(poses[:, lay.lig_extents]).max(axis=0) * 1.5 + 1.0
        per_atom = np.sqrt((model.lig_modes**2).sum(axis=2))  # (modes, atoms)
        slack = float((ext[:, None] * per_atom).sum(axis=0).max())
    grow = radius + slack + REACH_MARGIN_A
    return t.min(axis=0) - grow, t.max(axis=0) + grow


def grid_spec(box: np.ndarray, spacing: float) -> GridSpec:
    """The grid over ``box`` (2, 3) with ``spacing``, one point past each end."""
    shape = tuple(math.floor((box[1, d] - box[0, d]) / spacing) + 2 for d in range(3))
    return GridSpec(np.asarray(box[0], dtype=np.float64), float(spacing), shape)


@cache
def table_factors(rank: int = RANK, lightdock_compat: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The DFIRE table as ``table[a, b, k] ≈ Σ_r weights[b, r]·basis[a, k, r]`` (truncated
    SVD over the ligand type ``b``): (168, rank) weights and (168, 21, rank) basis."""
    table = padded_table(lightdock_compat)
    rows = table.transpose(1, 0, 2).reshape(N_TYPES, -1)  # one row per ligand type
    u, s, vt = np.linalg.svd(rows, full_matrices=False)
    weights = np.ascontiguousarray(u[:, :rank] * s[:rank])
    basis = np.ascontiguousarray(vt[:rank].reshape(rank, N_TYPES, N_BINS + 1).transpose(1, 2, 0))
    weights.setflags(write=False)
    basis.setflags(write=False)
    return weights, basis


def predicted_bytes(spec: GridSpec, rank: int = RANK) -> int:
    """Bytes of a field while it is built: float32 channels, then their int16 copy (what
    stays is a third of this)."""
    return spec.points * rank * (4 + 2)


def quantise(field: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int16 channels and their scales (rank,): ``field ≈ q · scale`` to half a step."""
    flat = field.reshape(-1, field.shape[-1])
    peak = np.abs(flat).max(axis=0).astype(np.float64) if len(flat) else np.zeros(field.shape[-1])
    scale = np.where(peak > 0, peak / QMAX, 1.0)
    q = np.empty(field.shape, dtype=np.int16)
    np.rint(field / scale.astype(np.float32), out=q, casting="unsafe")
    return q, scale


@njit(parallel=True, cache=True)
def _build(rec_xyz, rec_types, basis, bins_of_k, origin, h, shape, cell0, cells, out):
    """``out[x, y, z, r]`` = Σ_i basis[type_i, bin, r] over receptor atoms within the cutoff
    of the grid point. Coordinates are in the cell list's frame (its cells, of the
    cutoff's size, start at 0); ``origin`` is the grid's first point in that frame."""
    nx, ny, nz = shape
    n_c = basis.shape[2]
    cs = DFIRE_CUTOFF_A
    ncx, ncy, ncz = cell0.shape[0] - 1, cell0.shape[1] - 1, cell0.shape[2] - 1
    for ix in prange(nx):
        px = origin[0] + ix * h
        acc = np.empty(n_c, dtype=np.float64)
        for iy in range(ny):
            py = origin[1] + iy * h
            for iz in range(nz):
                pz = origin[2] + iz * h
                acc[:] = 0.0
                cx = int(px // cs)
                cy = int(py // cs)
                cz = int(pz // cs)
                for ax in range(max(cx - 1, 0), min(cx + 2, ncx)):
                    for ay in range(max(cy - 1, 0), min(cy + 2, ncy)):
                        for az in range(max(cz - 1, 0), min(cz + 2, ncz)):
                            for q in range(cell0[ax, ay, az], cell0[ax, ay, az + 1]):
                                i = cells[q]
                                dx = rec_xyz[i, 0] - px
                                dy = rec_xyz[i, 1] - py
                                dz = rec_xyz[i, 2] - pz
                                d2 = dx * dx + dy * dy + dz * dz
                                if d2 <= DFIRE_CUTOFF2:
                                    k = int(2.0 * math.sqrt(d2) - 1.0)
                                    if k < 0:
                                        k = 0
                                    b = bins_of_k[k]
                                    ti = rec_types[i]
                                    for c in range(n_c):
                                        acc[c] += basis[ti, b, c]
                for c in range(n_c):
                    out[ix, iy, iz, c] = acc[c]


def cell_list(xyz: np.ndarray, origin: np.ndarray, size: float, box_hi: np.ndarray):
    """Atoms sorted into cubic cells of ``size`` from ``origin``: (cell starts (cx, cy,
    cz + 1) with each z-run's start and end, atom ids in cell order). Atoms outside the box
    are dropped (they are beyond the cutoff of every grid point)."""
    n = np.maximum(np.ceil((box_hi - origin) / size).astype(np.int64) + 1, 1)
    idx = np.floor((xyz - origin) / size).astype(np.int64)
    inside = ((idx >= 0) & (idx < n)).all(axis=1)
    ids = np.flatnonzero(inside)
    flat = np.ravel_multi_index(idx[inside].T, tuple(n)) if len(ids) else np.zeros(0, np.int64)
    order = np.argsort(flat, kind="stable")
    counts = np.bincount(flat, minlength=int(np.prod(n))).reshape(tuple(n))
    starts = np.zeros((n[0], n[1], n[2] + 1), dtype=np.int64)
    running = np.concatenate([[0], np.cumsum(counts.ravel())]).astype(np.int64)
    starts[:, :, :-1] = running[:-1].reshape(tuple(n))
    starts[:, :, -1] = running[1:].reshape(tuple(n))[:, :, -1]
    return starts, ids[order].astype(np.int64)


def build_field(model: DFIREModel, spec: GridSpec, rank: int = RANK) -> np.ndarray:
    """The field (nx, ny, nz, rank) float32 of the receptor's undeformed atoms."""
    _, basis = table_factors(rank, model.lightdock_compat)
    # a cell list of cutoff-sized cells starting one cutoff before the grid
    cell_origin = spec.origin - DFIRE_CUTOFF_A
    hi = spec.origin + np.array(spec.shape) * spec.spacing + DFIRE_CUTOFF_A
    cell0, cells = cell_list(model.rec_xyz, cell_origin, DFIRE_CUTOFF_A, hi)
    out = np.empty((*spec.shape, rank), dtype=np.float32)
    _build(
        model.rec_xyz - cell_origin,
        model.rec_types.astype(np.int64),
        basis,
        model.bins.astype(np.int64),
        spec.origin - cell_origin,
        spec.spacing,
        np.array(spec.shape, dtype=np.int64),
        cell0,
        cells,
        out,
    )
    return out


#: Width (Å) of the soft-nearest average that carries receptor displacements to a point:
#: chosen on the training dockings (benchmarks/notebook/performance.md; 8 Å against 2, 4 and 12).
SHIFT_SIGMA_A = 8.0
#: Spacing (Å) of the receptor shift's grid (normal modes are smooth over many residues).
SHIFT_SPACING_A = 3.0
#: Margin (Å) of the shift's grid around the starting translations (beyond it: clamped).
SHIFT_MARGIN_A = 12.0
#: Residues whose weight is below exp(-this) of the nearest one's are left out of the mean.
SHIFT_CUT = 12.0


@njit(parallel=True, cache=True)
def _shift_build(rec_xyz, modes, origin, h, shape, sigma, out):
    """``out[x, y, z, m, :]``: mode ``m``'s receptor displacement near each grid point, the
    Gaussian-weighted (``sigma``) mean over the points ``rec_xyz`` (residues) relative to the
    nearest one (a soft nearest neighbour: far points weigh nothing, however many)."""
    nx, ny, nz = shape
    n_modes, n_atoms = modes.shape[0], modes.shape[1]
    inv = 1.0 / (2.0 * sigma * sigma)
    for ix in prange(nx):
        d2 = np.empty(n_atoms)
        acc = np.empty((n_modes, 3))
        for iy in range(ny):
            for iz in range(nz):
                px = origin[0] + ix * h
                py = origin[1] + iy * h
                pz = origin[2] + iz * h
                nearest = np.inf
                for i in range(n_atoms):
                    dx = rec_xyz[i, 0] - px
                    dy = rec_xyz[i, 1] - py
                    dz = rec_xyz[i, 2] - pz
                    d2[i] = dx * dx + dy * dy + dz * dz
                    nearest = min(nearest, d2[i])
                total = 0.0
                acc[:] = 0.0
                for i in range(n_atoms):
                    a = (d2[i] - nearest) * inv
                    if a > SHIFT_CUT:
                        continue
                    w = math.exp(-a)
                    total += w
                    for m in range(n_modes):
                        for c in range(3):
                            acc[m, c] += w * modes[m, i, c]
                for m in range(n_modes):
                    for c in range(3):
                        out[ix, iy, iz, m, c] = acc[m, c] / total


def corner_sum(table, i0, i1, f, out):
    """``out`` plus the trilinear interpolation of ``table`` (nx, ny, nz, ...) between the
    corners ``i0`` and ``i1`` (P, 3) at fractions ``f`` (P, 3). Indexing and arithmetic only,
    so numpy arrays and torch tensors take the same code (and the same summation order)."""
    for cx in (0, 1):
        wx = f[:, 0] if cx else 1.0 - f[:, 0]
        ix = i1[:, 0] if cx else i0[:, 0]
        for cy in (0, 1):
            wy = f[:, 1] if cy else 1.0 - f[:, 1]
            iy = i1[:, 1] if cy else i0[:, 1]
            for cz in (0, 1):
                wz = f[:, 2] if cz else 1.0 - f[:, 2]
                iz = i1[:, 2] if cz else i0[:, 2]
                out = out + (wx * wy * wz)[:, None, None] * table[ix, iy, iz]
    return out


@dataclass(frozen=True)
class ReceptorShift:
    """Receptor flexibility for the fast path, as a local shift: each receptor normal mode's
    displacement near a point, on a coarse grid over where ligand centres go.

    A ligand whose neighbourhood of the receptor moves by ``D`` meets the deformed receptor
    as the undeformed one at its own position less ``D``: exact when every receptor atom
    within the cutoff moves alike, which low-frequency modes nearly do. ``D`` is taken at
    the ligand's centre (its pose's translation): the Gaussian-weighted mean displacement of
    the receptor residues nearest to it (:data:`SHIFT_SIGMA_A`; each residue at its atoms'
    centroid), interpolated trilinearly and clamped to the grid. One lookup per pose;
    benchmarks/notebook/performance.md has what it recovers."""

    spec: GridSpec
    #: (nx, ny, nz, modes, 3): mode ``m``'s displacement near each grid point
    modes: np.ndarray

    def displacement(self, translations: np.ndarray, extents: np.ndarray) -> np.ndarray:
        """(P, 3) receptor displacement near each of (P, 3) ``translations`` for (P, modes)
        receptor ``extents``."""
        spec = self.spec
        g = (translations - spec.origin) / spec.spacing
        top = np.array(spec.shape) - 1
        g = np.clip(g, 0.0, np.maximum(top, 0))
        i0 = np.minimum(np.floor(g).astype(np.int64), np.maximum(top - 1, 0))
        f = g - i0
        i1 = np.minimum(i0 + 1, top)
        near = corner_sum(self.modes, i0, i1, f, np.zeros((len(g), *self.modes.shape[3:])))
        return np.einsum("pm,pmc->pc", extents, near)

    def shifted(self, poses: np.ndarray, layout) -> np.ndarray:
        """``poses`` with each translation less its receptor displacement (the receptor's
        extents are left as they are: the field ignores them)."""
        if not self.modes.shape[3] or not len(poses):
            return poses
        moved = np.array(poses, dtype=np.float64, copy=True)
        moved[:, layout.translation] -= self.displacement(
            moved[:, layout.translation], moved[:, layout.rec_extents]
        )
        return moved


def receptor_shift(
    model: DFIREModel, starts: np.ndarray | None, sigma: float | None = None
) -> ReceptorShift | None:
    """The receptor's :class:`ReceptorShift` over the starting translations of ``starts``
    (P, D) grown by :data:`SHIFT_MARGIN_A` (default: the receptor's box grown by the
    cutoff); None for a receptor without normal modes."""
    n_modes = model.layout.n_rec
    if not n_modes or not len(model.rec_xyz):
        return None
    sigma = SHIFT_SIGMA_A if sigma is None else float(sigma)
    if starts is not None and len(starts):
        t = starts[:, model.layout.translation]
        box = np.stack([t.min(axis=0) - SHIFT_MARGIN_A, t.max(axis=0) + SHIFT_MARGIN_A])
    else:
        box = field_box(model, None)
    spec = grid_spec(box, SHIFT_SPACING_A)
    # every atom of a residue moves with it (the modes are its CA's): one point per residue,
    # at its atoms' centroid, which makes the grid 5-10x quicker to build than per atom
    rows = model.rec_modes[:n_modes].transpose(1, 0, 2).reshape(len(model.rec_xyz), -1)
    rows, group = np.unique(rows, axis=0, return_inverse=True)
    group = group.reshape(-1)
    counts = np.bincount(group, minlength=len(rows))[:, None]
    centres = np.stack([np.bincount(group, model.rec_xyz[:, c], len(rows)) for c in range(3)], 1)
    centres = centres / counts
    modes = rows.reshape(len(rows), n_modes, 3).transpose(1, 0, 2)
    out = np.empty((*spec.shape, n_modes, 3))
    _shift_build(
        np.ascontiguousarray(centres, dtype=np.float64),
        np.ascontiguousarray(modes, dtype=np.float64),
        spec.origin,
        spec.spacing,
        np.array(spec.shape, dtype=np.int64),
        sigma,
        out,
    )
    out.setflags(write=False)
    return ReceptorShift(spec, out)


@dataclass(frozen=True)
class DFIREField:
    """The prepared fast DFIRE model: the exact model (the ligand's atoms and modes, the
    restraint groups) and the receptor's field on a grid, with each ligand atom's weights
    over the field's channels."""

    model: DFIREModel
    spec: GridSpec
    #: (nx, ny, nz, rank) int16: channel ``r`` is ``field[..., r] · scale[r]``
    field: np.ndarray
    #: (ligand atoms, rank) float32: each ligand atom's type factor times the channel scales,
    #: so that an atom's value is ``Σ_r weights[j, r] · field[..., r]``
    weights: np.ndarray
    #: (rank,) the channels' quantisation steps
    scale: np.ndarray
    #: receptor flexibility as a local shift (scoring mode ``fast-flex``); None: rigid
    shift: ReceptorShift | None = None

    @property
    def nbytes(self) -> int:
        return int(self.field.nbytes)


def prepare_field(
    model: DFIREModel,
    reach: tuple[np.ndarray, np.ndarray] | None = None,
    *,
    spacing: float = DEFAULT_SPACING_A,
    rank: int = RANK,
    budget_bytes: int | None = DEFAULT_FIELD_BUDGET,
    also_bytes: int = 0,
) -> DFIREField:
    """Build the field of ``model``'s receptor over ``reach`` (default: everywhere within the
    cutoff of the receptor).

    Raises:
        FieldTooLargeError: the predicted size while building exceeds ``budget_bytes``
            (checked before building; ``also_bytes``, what the caller needs beside it, the
            contact grid, is named in the message).
    """
    spec = grid_spec(field_box(model, reach), spacing)
    need = predicted_bytes(spec, rank)
    if budget_bytes is not None and need > budget_bytes:
        beside = f" beside {also_bytes / 2**20:.0f} MiB of contact grid" if also_bytes else ""
        raise FieldTooLargeError(
            f"the fast-scoring field needs {need / 2**20:.0f} MiB while it is built "
            f"({spec.shape[0]}×{spec.shape[1]}×{spec.shape[2]} points × {rank} channels)"
            f"{beside}, over a budget of {(budget_bytes + also_bytes) / 2**20:.0f} MiB"
        )
    weights, _ = table_factors(rank, model.lightdock_compat)
    field, scale = quantise(build_field(model, spec, rank))
    lig_weights = np.ascontiguousarray(weights[model.lig_types] * scale, dtype=np.float32)
    return DFIREField(model, spec, field, lig_weights, scale)
