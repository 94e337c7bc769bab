"""DFIRE as dense batched tensor work (PyTorch, CPU or CUDA, float64 or float32).

Work is cut into *tile pairs*: 32 consecutive receptor atoms against 32 consecutive ligand
atoms of one pose, a 32 × 32 block of distances. Per batch of poses:

1. Ligand conformers (modes one at a time, ``q·v·q⁻¹``, translation, as LightDock) and the
   exact box of every ligand tile.
2. Each receptor tile's rest box grown by how far its atoms can move for the pose's extents
   (``Σ|e_k|·reach``); receptor tiles beyond 15 Å of the whole ligand drop out, then tile
   pairs beyond 15 Å of each other. Receptor conformers are built only for the surviving
   (pose, receptor tile) pairs, inside the pass: no per-glowworm receptor copies.
3. Surviving tile pairs are processed in chunks sized to the memory budget: distances from
   coordinate differences, bins from squared distances, one table gather, the block summed.
4. Sums are fixed-shape pairwise trees (block → ligand tiles → receptor tiles), so a pose's
   score never depends on the chunking, the batch, or the device's reduction strategy.

float64 bins like LightDock (``trunc(2·sqrt(d2) − 1)``, so scores agree to rounding of the
summation order, well inside 1e-9 relative). float32 compares squared distances with the
squared bin edges (``(m + 1)²/4``, exact in binary) through a table of quarter-Å² cells.
Padding atoms have a null DFIRE type whose table entries are zero and belong to no restraint.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from importlib.util import find_spec

import numpy as np
import torch

from ...backend import Engine, default_workspace
from ...molecule.pose import EXTENTS_START, ROTATION, TRANSLATION
from ...molecule.pose import rotate_lightdock as rotate
from ...molecule.spatial import build_tiles
from ..terms import Terms
from .model import (
    BINS,
    DFIRE_CUTOFF2,
    K_MAX,
    N_BINS,
    N_CELLS,
    N_TYPES,
    DFIREModel,
    dfire_score,
)

TILE = 32
#: Bytes of device memory one tile pair needs while it is processed (about twelve 32 × 32
#: temporaries of 8 bytes); the memory model divides its budget by this.
PAIR_BYTES = {"fp64": TILE * TILE * 96, "fp32": TILE * TILE * 64}
#: With the block functions fused (torch.compile), a tile pair needs only its gathered inputs
#: and outputs: coordinates (float64 and float32), types, sums and flags.
FUSED_PAIR_BYTES = 4096
#: Slack on the culling tests, Å: float32 distances may come out below the true ones.
SLACK = {"fp64": 1e-6, "fp32": 1e-3}
#: float32 pairs closer than this (Å²) to a bin edge are re-binned in float64. Blocks are
#: computed relative to the receptor tile's centre (coordinates under ~40 Å), where float32
#: squared distances are off by under 2e-4 Å².
EDGE_TOL = 1e-3


def _dtype(precision: str) -> torch.dtype:
    return torch.float64 if precision == "fp64" else torch.float32


def tree_sum(x: torch.Tensor) -> torch.Tensor:
    """Sum over the last axis by a fixed pairwise tree (zero-padded to a power of two):
    the same rounding for a row whatever the other rows, the batch or the device."""
    n = x.shape[-1]
    if n == 0:
        return x.new_zeros(x.shape[:-1])
    width = 1 << (n - 1).bit_length()
    if width != n:
        x = torch.nn.functional.pad(x, (0, width - n))
    while width > 1:
        width //= 2
        x = x[..., :width] + x[..., width:]
    return x[..., 0]


def _block_d2(rec: torch.Tensor, lig: torch.Tensor) -> torch.Tensor:
    """(C, 32, 32) squared distances from coordinate differences, ``dx² + dy² + dz²``."""
    dx = rec[:, :, None, 0] - lig[:, None, :, 0]
    dy = rec[:, :, None, 1] - lig[:, None, :, 1]
    dz = rec[:, :, None, 2] - lig[:, None, :, 2]
    return dx * dx + dy * dy + dz * dz


def block_fp64(rec, lig, rtype, ltype, table, bins, iface_below: float):
    """Energy sums and interface flags of (C, 32, 32) blocks in float64, LightDock's binning.

    Returns ``(energy (C,), receptor atoms in a close pair (C, 32), ligand atoms (C, 32),
    None)``. Pure tensor code: runs as is, or fused by ``torch.compile`` (one kernel per chunk
    on a GPU) with the same operation order.
    """
    d2 = _block_d2(rec, lig)
    k = torch.clamp(torch.sqrt(d2) * 2.0 - 1.0, 0.0, float(K_MAX)).to(torch.int64)
    base = rtype[:, :, None] + ltype[:, None, :]  # flat table offset of each type pair
    energy = torch.where(d2 <= DFIRE_CUTOFF2, table[base + bins[k]], 0.0)
    close = d2 < iface_below
    return tree_sum(energy.reshape(-1, TILE * TILE)), close.any(dim=2), close.any(dim=1), None


def block_fp32(rec, lig, rtype, ltype, table, cells, edge_lo, edge_hi, iface_below: float):
    """As :func:`block_fp64` for float32 coordinates (relative to the receptor tile's centre),
    binned by squared distance; the last value flags blocks with a pair within ``EDGE_TOL``
    of a bin edge, the cutoff or the interface threshold, which the caller re-bins exactly."""
    d2 = _block_d2(rec, lig)
    c = torch.clamp(d2 * 4.0, max=float(N_CELLS - 1)).to(torch.int64)
    base = rtype[:, :, None] + ltype[:, None, :]
    energy = torch.where(d2 <= DFIRE_CUTOFF2, table[base + cells[c]], 0.0)
    frac = d2 * 4.0 - c
    tol4 = 4.0 * EDGE_TOL
    risky = (edge_lo[c] & (frac < tol4)) | (edge_hi[c] & (frac > 1.0 - tol4))
    risky |= (d2 - iface_below).abs() < EDGE_TOL
    close = d2 < iface_below
    esum = tree_sum(energy.reshape(-1, TILE * TILE))
    return esum, close.any(dim=2), close.any(dim=1), risky.flatten(1).any(dim=1)


_COMPILED: dict[str, object] = {}
#: Smallest chunk shape handed to a compiled block function; shapes grow by 8× up to the
#: chunk size, so a function is compiled at most a handful of times (each pair's result does
#: not depend on the shape: every block is summed on its own, in a fixed order).
_FIRST_BUCKET = 256


def _bucket(count: int, largest: int) -> int:
    """The chunk shape ``count`` tile pairs are padded to."""
    size = _FIRST_BUCKET
    while size < count:
        size *= 8
    return min(size, largest)


def compile_wanted(engine: Engine) -> bool:
    """Fuse the block functions with ``torch.compile``? By default on CUDA (Inductor writes
    Triton kernels) when Triton is installed; ``SPARKLEDOCK_TORCH_COMPILE=0/1`` decides
    otherwise (on the CPU, Inductor writes C++ and compiles it: ~15 s at first use)."""
    forced = os.environ.get("SPARKLEDOCK_TORCH_COMPILE")
    if forced in ("0", "1"):
        return forced == "1"
    return engine.device != "cpu" and find_spec("triton") is not None


def _block_function(precision: str, compiled: bool):
    fn = block_fp64 if precision == "fp64" else block_fp32
    if not compiled:
        return fn
    if fn.__name__ not in _COMPILED:
        _COMPILED[fn.__name__] = torch.compile(fn, dynamic=False)
        torch._dynamo.config.cache_size_limit = max(torch._dynamo.config.cache_size_limit, 16)
    return _COMPILED[fn.__name__]


def _padded(n: int) -> int:
    return max(TILE, -(-n // TILE) * TILE)


def _pad_atoms(xyz: np.ndarray, modes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pad to whole tiles with copies of each partial tile's last atom (boxes unchanged)."""
    n = len(xyz)
    total = _padded(n)
    idx = np.minimum(np.arange(total), max(n - 1, 0))
    xyz_p = xyz[idx] if n else np.zeros((total, 3))
    modes_p = modes[:, idx, :] if n else np.zeros((modes.shape[0], total, 3))
    if n:
        modes_p[:, n:, :] = modes[:, n - 1 : n, :]
    return xyz_p, modes_p


def _pad_ints(values: np.ndarray, fill: int) -> np.ndarray:
    out = np.full(_padded(len(values)), fill, dtype=np.int64)
    out[: len(values)] = values
    return out


def _fp32_cell_bins() -> np.ndarray:
    """Bin of each quarter-Å² cell of squared distance when edges are compared squared:
    cell ``c`` holds ``k = floor(sqrt(c)) − 1`` (edges ``(m + 1)²/4`` are cell starts).
    """
    c = np.arange(N_CELLS)
    k = np.clip(np.floor(np.sqrt(c)).astype(np.int64) - 1, 0, K_MAX)
    return BINS[k]


def _edge_cells() -> np.ndarray:
    """Cells that start at a bin edge or the cutoff: ``c = (m + 1)²`` for m ≥ 1."""
    out = np.zeros(N_CELLS, dtype=bool)
    out[np.arange(2, K_MAX + 2) ** 2] = True
    return out


@dataclass
class DeviceDFIRE:
    """A :class:`DFIREModel` on one device in one precision, tiled and padded."""

    engine: Engine
    n_rec_modes: int
    n_lig_modes: int
    rec_xyz: torch.Tensor  # (Tr, 32, 3)
    rec_modes: torch.Tensor  # (Mr, Tr, 32, 3)
    rec_lo: torch.Tensor  # (Tr, 3)
    rec_hi: torch.Tensor
    rec_reach: torch.Tensor  # (Tr, Mr)
    rec_centre: torch.Tensor  # (Tr, 3): float32 blocks are computed relative to it
    rec_type_base: torch.Tensor  # (Tr, 32): type · (NT+1) · (NB+1)
    lig_xyz: torch.Tensor  # (Tl·32, 3)
    lig_modes: torch.Tensor  # (Ml, Tl·32, 3)
    lig_type_base: torch.Tensor  # (Tl, 32): type · (NB+1)
    table: torch.Tensor  # flat (NT+1)² · (NB+1), zero rows for the null type
    bins: torch.Tensor  # (K_MAX + 1,) int64
    cells: torch.Tensor  # (N_CELLS,) int64 (fp32 binning)
    edge_lo: torch.Tensor  # (N_CELLS,) bool: a bin edge starts the cell
    edge_hi: torch.Tensor  # (N_CELLS,) bool: a bin edge ends the cell
    iface_below: float
    iface_below64: float
    rec_group: torch.Tensor  # (Tr, 32) restraint group or −1
    lig_group: torch.Tensor  # (Tl, 32)
    membrane_group: torch.Tensor  # (Tr, 32)
    n_rec_groups: int
    n_lig_groups: int
    n_membrane: int
    workspace_bytes: int
    compiled: bool = False

    @property
    def n_rec_tiles(self) -> int:
        return self.rec_xyz.shape[0]

    @property
    def n_lig_tiles(self) -> int:
        return self.lig_type_base.shape[0]

    @classmethod
    def from_model(
        cls,
        model: DFIREModel,
        engine: Engine,
        workspace_bytes: int | None = None,
        compiled: bool | None = None,
    ) -> DeviceDFIRE:
        dev, dt = torch.device(engine.device), _dtype(engine.precision)
        nt = N_TYPES + 1  # with the null type
        if workspace_bytes is None:
            workspace_bytes = default_workspace(engine)

        def put(a: np.ndarray, dtype: torch.dtype = torch.float64) -> torch.Tensor:
            return torch.as_tensor(np.ascontiguousarray(a), dtype=dtype, device=dev)

        tiles = build_tiles(model.rec_xyz, model.rec_modes, TILE)
        rec_xyz, rec_modes = _pad_atoms(model.rec_xyz, model.rec_modes)
        lig_xyz, lig_modes = _pad_atoms(model.lig_xyz, model.lig_modes)
        tr, tl = len(rec_xyz) // TILE, len(lig_xyz) // TILE
        mr, ml = model.rec_modes.shape[0], model.lig_modes.shape[0]
        table = np.zeros((nt, nt, N_BINS + 1))
        table[:N_TYPES, :N_TYPES] = model.table
        rec_types = _pad_ints(model.rec_types, N_TYPES)
        lig_types = _pad_ints(model.lig_types, N_TYPES)
        lo, hi, reach = tiles.lo, tiles.hi, tiles.reach
        if len(lo) < tr:  # an empty receptor still has one (padding) tile
            lo, hi, reach = np.zeros((tr, 3)), np.zeros((tr, 3)), np.zeros((tr, mr))
        bins = np.asarray(model.bins, dtype=np.int64)
        iface = model.iface_below
        if engine.precision == "fp32":
            iface = float(np.float32(iface))
        return cls(
            engine=engine,
            n_rec_modes=mr,
            n_lig_modes=ml,
            rec_xyz=put(rec_xyz.reshape(tr, TILE, 3)),
            rec_modes=put(rec_modes.reshape(mr, tr, TILE, 3)),
            rec_lo=put(lo),
            rec_hi=put(hi),
            rec_reach=put(reach),
            rec_centre=put((lo + hi) / 2.0),
            rec_type_base=put((rec_types * nt * (N_BINS + 1)).reshape(tr, TILE), torch.int64),
            lig_xyz=put(lig_xyz),
            lig_modes=put(lig_modes),
            lig_type_base=put((lig_types * (N_BINS + 1)).reshape(tl, TILE), torch.int64),
            table=put(table.ravel(), dt),
            bins=put(bins, torch.int64),
            cells=put(_fp32_cell_bins(), torch.int64),
            edge_lo=put(_edge_cells(), torch.bool),
            edge_hi=put(np.append(_edge_cells()[1:], False), torch.bool),
            iface_below=iface,
            iface_below64=model.iface_below,
            rec_group=put(_pad_ints(model.rec_restraint_group, -1).reshape(tr, TILE), torch.int64),
            lig_group=put(_pad_ints(model.lig_restraint_group, -1).reshape(tl, TILE), torch.int64),
            membrane_group=put(_pad_ints(model.membrane_group, -1).reshape(tr, TILE), torch.int64),
            n_rec_groups=model.n_rec_restraints,
            n_lig_groups=model.n_lig_restraints,
            n_membrane=model.n_membrane,
            workspace_bytes=workspace_bytes,
            compiled=compile_wanted(engine) if compiled is None else compiled,
        )

    # -- the pass ---------------------------------------------------------------------------

    def ligand_conformers(self, poses: torch.Tensor) -> torch.Tensor:
        """(P, Tl·32, 3): modes one at a time, rotation, translation (LightDock's order)."""
        ext0 = EXTENTS_START + self.n_rec_modes
        lig = self.lig_xyz.expand(len(poses), -1, -1)
        for k in range(self.n_lig_modes):
            lig = lig + self.lig_modes[k] * poses[:, ext0 + k, None, None]
        return rotate(poses[:, None, ROTATION], lig) + poses[:, None, TRANSLATION]

    def receptor_tiles(self, poses: torch.Tensor, pose_idx: torch.Tensor, tile_idx: torch.Tensor):
        """Conformers of the listed (pose, receptor tile) pairs: (A, 32, 3)."""
        rec = self.rec_xyz[tile_idx]
        for k in range(self.n_rec_modes):
            rec = rec + self.rec_modes[k, tile_idx] * poses[pose_idx, EXTENTS_START + k, None, None]
        return rec

    def near_receptor_tiles(self, poses: torch.Tensor, lig_box: torch.Tensor):
        """(pose, receptor tile) pairs that may hold an atom pair within the cutoff, and the
        grown boxes ``(P, Tr, 3)`` of the receptor tiles."""
        slack = SLACK[self.engine.precision]
        ext = poses[:, EXTENTS_START : EXTENTS_START + self.n_rec_modes].abs()
        if self.n_rec_modes:
            grow = ext @ self.rec_reach.T + slack
        else:  # one row per pose all the same (rows are indexed by pose below)
            grow = poses.new_full((len(poses), self.rec_lo.shape[0]), slack)
        rlo = self.rec_lo[None] - grow[..., None]
        rhi = self.rec_hi[None] + grow[..., None]
        whole_lo = lig_box[..., 0].amin(dim=1)  # (P, 3)
        whole_hi = lig_box[..., 1].amax(dim=1)
        gap = torch.clamp(torch.maximum(whole_lo[:, None] - rhi, rlo - whole_hi[:, None]), min=0)
        pose_idx, rtile = torch.nonzero((gap * gap).sum(-1) <= self._cut2, as_tuple=True)
        return pose_idx, rtile, rlo, rhi

    @property
    def _cut2(self) -> float:
        return (math.sqrt(DFIRE_CUTOFF2) + SLACK[self.engine.precision]) ** 2

    def pose_bytes(self) -> int:
        """Workspace one pose needs before its tile pairs (conformer, boxes, tile tests)."""
        return self.lig_xyz.shape[0] * 8 * 16 + self.n_rec_tiles * 8 * 24 + self.n_lig_tiles * 96

    def row_bytes(self) -> int:
        """Workspace of one (pose, receptor tile) row: its ligand-tile tests and partials."""
        return self.n_lig_tiles * 96 + TILE * 3 * 8 * 2

    def score(self, poses: torch.Tensor) -> torch.Tensor:
        """(P,) float64 scores of (P, D) float64 poses already on the device.

        Poses go in batches, (pose, receptor tile) rows in chunks and tile pairs in chunks,
        each level sized to a quarter of ``workspace_bytes`` (all three live at once, so the
        whole stays inside it); no result depends on these sizes.
        """
        batch = max(1, self.workspace_bytes // (4 * self.pose_bytes()))
        if len(poses) <= batch:
            return self._score_batch(poses)
        return torch.cat(
            [self._score_batch(poses[i : i + batch]) for i in range(0, len(poses), batch)]
        )

    def _score_batch(self, poses: torch.Tensor) -> torch.Tensor:
        n = len(poses)
        if n == 0:
            return poses.new_zeros(0)
        dev, cdt = poses.device, self.table.dtype
        lig = self.ligand_conformers(poses)
        tiles = lig.view(n, self.n_lig_tiles, TILE, 3)
        lig_box = torch.stack([tiles.amin(dim=2), tiles.amax(dim=2)], dim=-1)  # (P, Tl, 3, 2)
        pose_idx, rtile, rlo, rhi = self.near_receptor_tiles(poses, lig_box)
        groups = (self.n_rec_groups, self.n_lig_groups, self.n_membrane)
        want_iface = any(groups)
        hits = [torch.zeros((n, max(g, 1)), dtype=torch.bool, device=dev) for g in groups]
        per_rtile = torch.zeros((n, self.n_rec_tiles), dtype=cdt, device=dev)
        rows = max(1, self.workspace_bytes // (4 * self.row_bytes()))
        chunk = self.chunk_pairs
        for r0 in range(0, len(pose_idx), rows):
            pr, rt = pose_idx[r0 : r0 + rows], rtile[r0 : r0 + rows]
            lb = lig_box[pr]  # (R, Tl, 3, 2)
            glo, ghi = rlo[pr, rt][:, None], rhi[pr, rt][:, None]
            gap = torch.clamp(torch.maximum(lb[..., 0] - ghi, glo - lb[..., 1]), min=0)
            near = (gap * gap).sum(-1) <= self._cut2  # (R, Tl)
            del lb, gap
            rec = self.receptor_tiles(poses, pr, rt)  # (R, 32, 3)
            partial = torch.zeros((len(pr), self.n_lig_tiles), dtype=cdt, device=dev)
            pair_a, pair_l = torch.nonzero(near, as_tuple=True)
            for first in range(0, len(pair_a), chunk):
                a = pair_a[first : first + chunk]
                lt = pair_l[first : first + chunk]
                real = len(a)
                if self.compiled:  # a few fixed shapes, each compiled once
                    size = _bucket(real, chunk)
                    a = torch.nn.functional.pad(a, (0, size - real))
                    lt = torch.nn.functional.pad(lt, (0, size - real))
                esum, rec_close, lig_close = self._blocks(poses, rec, tiles, pr, rt, a, lt)
                a, lt = a[:real], lt[:real]
                partial[a, lt] = esum[:real]
                if want_iface:
                    self._mark(hits, rec_close[:real], lig_close[:real], pr[a], rt[a], lt)
            per_rtile[pr, rt] = tree_sum(partial)
        energy = tree_sum(per_rtile).to(torch.float64)
        fractions = [
            h.sum(dim=1).to(torch.float64) / g if g else poses.new_zeros(n)
            for h, g in zip(hits, groups, strict=True)
        ]
        return dfire_score(Terms(energy, *fractions))

    @property
    def chunk_pairs(self) -> int:
        """Tile pairs per chunk (fixed, so a compiled block function sees one shape)."""
        per = FUSED_PAIR_BYTES if self.compiled else PAIR_BYTES[self.engine.precision]
        return max(1, self.workspace_bytes // (4 * per))

    def _blocks(self, poses, rec, tiles, pr, rt, a, lt):
        """Energy sums and interface flags of the tile pairs (a: receptor row, lt: ligand
        tile)."""
        p = pr[a]
        r64, l64 = rec[a], tiles[p, lt]  # (C, 32, 3) each
        rtype, ltype = self.rec_type_base[rt[a]], self.lig_type_base[lt]  # (C, 32) each
        block = _block_function(self.engine.precision, self.compiled)
        if self.engine.precision == "fp64":
            esum, rec_close, lig_close, _ = block(
                r64, l64, rtype, ltype, self.table, self.bins, self.iface_below
            )
            return esum, rec_close, lig_close
        origin = self.rec_centre[rt[a]][:, None, :]
        r32, l32 = (r64 - origin).float(), (l64 - origin).float()
        esum, rec_close, lig_close, risky = block(
            r32, l32, rtype, ltype, self.table, self.cells, self.edge_lo, self.edge_hi,
            self.iface_below,
        )  # fmt: skip
        fix = torch.nonzero(risky, as_tuple=True)[0]
        if len(fix):
            within, b, close = self._rebin_fp32(r32[fix], l32[fix], r64[fix], l64[fix])
            base = rtype[fix][:, :, None] + ltype[fix][:, None, :]
            energy = torch.where(within, self.table[base + b], 0.0)
            esum[fix] = tree_sum(energy.reshape(len(fix), TILE * TILE))
            rec_close[fix], lig_close[fix] = close.any(dim=2), close.any(dim=1)
        return esum, rec_close, lig_close

    def model_bytes(self) -> int:
        """Device bytes of the model's own tensors."""
        return sum(
            t.numel() * t.element_size() for t in vars(self).values() if isinstance(t, torch.Tensor)
        )

    def _rebin_fp32(self, r32, l32, r64, l64):
        """float32 blocks with pairs near an edge: bins from squared distances (quarter-Å²
        cells), and pairs within ``EDGE_TOL`` of a bin edge, the cutoff or the interface
        threshold re-binned from float64 distances, so float32 never changes a pair's bin
        (only the sum's rounding)."""
        d2 = _block_d2(r32, l32)
        within = d2 <= DFIRE_CUTOFF2
        c = torch.clamp(d2 * 4.0, max=float(N_CELLS - 1)).to(torch.int64)
        b = self.cells[c]
        frac = d2 * 4.0 - c
        tol4 = 4.0 * EDGE_TOL
        risky = (self.edge_lo[c] & (frac < tol4)) | (self.edge_hi[c] & (frac > 1.0 - tol4))
        risky |= (d2 - self.iface_below).abs() < EDGE_TOL
        close = d2 < self.iface_below
        ci, i, j = torch.nonzero(risky, as_tuple=True)
        d = r64[ci, i] - l64[ci, j]
        x2 = d[:, 0] * d[:, 0] + d[:, 1] * d[:, 1] + d[:, 2] * d[:, 2]
        k = torch.clamp(torch.sqrt(x2) * 2.0 - 1.0, 0.0, float(K_MAX)).to(torch.int64)
        b[ci, i, j] = self.bins[k]
        within[ci, i, j] = x2 <= DFIRE_CUTOFF2
        close[ci, i, j] = x2 < self.iface_below64
        return within, b, close

    def _mark(self, hits, rec_close, lig_close, p, rt, lt) -> None:
        """Set hits[side][pose, group] for groups with an atom in a close pair."""
        for hit, group, atoms in (
            (hits[0], self.rec_group[rt], rec_close),
            (hits[1], self.lig_group[lt], lig_close),
            (hits[2], self.membrane_group[rt], rec_close),
        ):
            sel = atoms & (group >= 0)
            if sel.any():
                rows = p[:, None].expand_as(group)[sel]
                hit[rows, group[sel]] = True


#: Device copies of recent models: (id, engine, workspace) → (model, copy). The model is
#: kept alongside so that an id reused by a new object never returns a stale copy.
_CACHE: dict[tuple[int, Engine, int], tuple[DFIREModel, DeviceDFIRE]] = {}
_CACHE_SIZE = 4


def device_model(
    model: DFIREModel, engine: Engine, workspace_bytes: int | None = None
) -> DeviceDFIRE:
    """The device copy of ``model`` (built once per model, engine and workspace)."""
    if workspace_bytes is None:
        workspace_bytes = default_workspace(engine)
    key = (id(model), engine, workspace_bytes)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is model:
        return hit[1]
    dm = DeviceDFIRE.from_model(model, engine, workspace_bytes)
    while len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = (model, dm)
    return dm


def score_poses(
    model: DFIREModel,
    poses: np.ndarray,
    *,
    threads: int | None = None,
    engine: Engine | None = None,
) -> np.ndarray:
    """Scores of validated (P, D) float64 poses on ``engine`` (default: torch on the CPU, fp64)."""
    engine = engine or Engine("torch", "cpu", "fp64")
    if threads and engine.device == "cpu":
        torch.set_num_threads(threads)
    dm = device_model(model, engine)
    t = torch.as_tensor(poses, dtype=torch.float64, device=engine.device)
    return dm.score(t).cpu().numpy()
