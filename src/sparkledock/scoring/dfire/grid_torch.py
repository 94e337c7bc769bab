"""The fast DFIRE path as tensor work (PyTorch, CPU or CUDA): a field lookup is a gather.

The same scores as :mod:`.grid_numba` to float32 rounding, from the same field, weights and
contact grid, for a batch of poses at once:

1. Ligand conformers in float64 (modes, the rotation matrix of the quaternion, translation).
2. Energy: the eight corners of each atom's grid cell gathered from the field (int16 to
   float32, (poses, atoms, 8, rank)), each corner's channels dotted with the atom's type factor, the
   corners blended trilinearly in float64; atoms off the grid add nothing.
3. Restraint and membrane terms, exact: each atom's contact-grid cell gives its class and
   the tracked groups every point of the cell has as partners (:func:`.grid_numba.contact_grid`);
   the (pose, atom) pairs a cell cannot decide are searched against that cell's candidate
   receptor atoms (every atom within the cutoff plus the half-diagonal of its centre, padded),
   a dense gather of fixed width. Fractions are counts over group sizes, so they equal the
   numba kernel's.

Poses are processed in chunks sized to the workspace; a pose's score depends only on its own
row (no reduction across poses), so results do not depend on the chunking or the batch.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...backend import Engine
from ...molecule.pose import EXTENTS_START
from ..terms import Terms
from .grid import ReceptorShift, corner_sum
from .grid_numba import CONTACT_ALL, CONTACT_CHECK, MASK_BITS, GridArrays
from .model import dfire_score
from .torch_kernel import tree_sum

#: Corner offsets of a grid cell, in the order (x, y, z) bits.
CORNERS = np.array([[cx, cy, cz] for cx in (0, 1) for cy in (0, 1) for cz in (0, 1)])


def _unpack_masks(masks: np.ndarray, n_bits: int) -> np.ndarray:
    """(slots, n_bits) booleans from uint64 masks."""
    shifts = np.arange(n_bits, dtype=np.uint64)
    return ((masks[:, None] >> shifts[None, :]) & np.uint64(1)).astype(bool)


def candidate_lists(a: GridArrays) -> tuple[np.ndarray, np.ndarray]:
    """For every contact cell the kernel must search (ligand-side CHECK, or a tracked group
    the cell cannot decide): a row of the receptor atoms within the cutoff plus the cell's
    half-diagonal of its centre (a superset of any point's partners), padded with
    ``len(rec_xyz)`` (a null atom far away). Returns (row of each cell or −1, rows)."""
    from scipy.spatial import cKDTree

    grid = a.contact
    kind = grid & 3
    slot = grid >> 2
    undecided = (a.slot_maybe & ~a.slot_all) != 0
    need = (kind == CONTACT_CHECK) | undecided[slot]
    cells = np.argwhere(need)
    row_of = np.full(grid.shape, -1, dtype=np.int64)
    row_of[tuple(cells.T)] = np.arange(len(cells))
    if not len(cells):
        return row_of, np.zeros((0, 1), dtype=np.int64)
    centres = a.contact_origin + (cells + 0.5) * a.contact_cell
    radius = math.sqrt(a.below) + a.contact_cell * math.sqrt(3.0) / 2.0 + 1e-3
    found = cKDTree(a.rec_xyz).query_ball_point(centres, radius)
    width = max(1, max(len(f) for f in found))
    rows = np.full((len(cells), width), len(a.rec_xyz), dtype=np.int64)
    for i, atoms in enumerate(found):
        rows[i, : len(atoms)] = atoms
    return row_of, rows


class DeviceFastDFIRE:
    """A fast DFIRE model on a torch device; :meth:`score` follows the ``DeviceScorer``
    protocol (tensor poses in, tensor scores out) so GSO on torch can search with it."""

    def __init__(
        self,
        a: GridArrays,
        engine: Engine,
        workspace_bytes: int,
        shift: ReceptorShift | None = None,
    ) -> None:
        self.engine = engine
        dev = torch.device(engine.device)
        self.device = dev

        def put(x, dtype):
            return torch.as_tensor(np.ascontiguousarray(x), device=dev).to(dtype)

        self.shift = None
        if shift is not None and shift.modes.shape[3]:
            self.shift = put(np.array(shift.modes), torch.float64)
            self.shift_origin = put(shift.spec.origin, torch.float64)
            self.shift_spacing = float(shift.spec.spacing)
            self.shift_top = put(np.array(shift.spec.shape) - 1, torch.float64)

        nx, ny, nz, rank = a.field.shape
        self.shape = (nx, ny, nz)
        self.rank = rank
        self.field = put(a.field.reshape(-1, rank), torch.int16)
        self.weights = put(a.weights, torch.float32)
        self.origin = put(a.origin, torch.float64)
        self.spacing = float(a.spacing)
        self.n_rec_modes = a.n_rec_modes
        self.x0 = put(a.lig_xyz, torch.float64)
        self.modes = put(np.stack([a.mx, a.my, a.mz], axis=-1), torch.float64)  # (K, L, 3)
        strides = np.array([ny * nz, nz, 1])
        self.corner_offsets = put(CORNERS @ strides, torch.int64)
        self.corners = put(CORNERS, torch.float64)
        self.n_rec, self.n_lig, self.n_mem = a.n_rec_groups, a.n_lig_groups, a.n_mem_groups
        self.restrained = self.n_rec + self.n_lig + self.n_mem > 0
        if self.restrained:
            self._restraint_tensors(a, put)
        n_lig = len(a.lig_xyz)
        # per pose: corners gathered (8 × rank, int16 then float32) and temporaries, per atom
        self.pose_bytes = n_lig * (8 * rank * 4 * 3 + 8 * 8 * 6 + 200)
        self.chunk = max(1, int(workspace_bytes // self.pose_bytes))

    def _restraint_tensors(self, a: GridArrays, put) -> None:
        row_of, rows = candidate_lists(a)
        self.contact = put(a.contact.reshape(-1), torch.int64)
        self.contact_shape = a.contact.shape
        self.contact_origin = put(a.contact_origin, torch.float64)
        self.contact_cell = float(a.contact_cell)
        self.row_of = put(row_of.reshape(-1), torch.int64)
        self.rows = put(rows, torch.int64)
        far = np.full((1, 3), 1e9)
        self.rec_xyz = put(np.vstack([a.rec_xyz, far]), torch.float64)
        self.below = float(a.below)
        self.lig_group = put(a.lig_group, torch.int64)
        # tracked groups as bits: receptor restraint residues, then membrane beads
        n_bits = self.n_rec + self.n_mem
        self.n_bits = n_bits
        bit_of = np.where(
            a.rec_group >= 0,
            a.rec_group,
            np.where(a.mem_group >= 0, self.n_rec + a.mem_group, -1),
        )
        self.bit_of = put(np.append(bit_of, -1), torch.int64)  # (the null atom has none)
        masked = n_bits <= MASK_BITS
        every = _unpack_masks(a.slot_all, n_bits) if masked else None
        if every is None:
            every = np.zeros((len(a.slot_all), max(n_bits, 1)), dtype=bool)
        self.slot_every = put(every, torch.bool)
        self.slot_undecided = put((a.slot_maybe & ~a.slot_all) != 0, torch.bool)

    def model_bytes(self) -> int:
        """Device bytes of the model (field, contact grid, candidate lists)."""
        total = self.field.nbytes + self.weights.nbytes + self.x0.nbytes + self.modes.nbytes
        if self.restrained:
            total += self.contact.nbytes + self.row_of.nbytes + self.rows.nbytes
        if self.shift is not None:
            total += self.shift.nbytes
        return int(total)

    def score(self, poses: torch.Tensor) -> torch.Tensor:
        """Fast scores (P,) of (P, D) float64 poses on the device."""
        if not len(poses):
            return torch.zeros(0, dtype=torch.float64, device=self.device)
        return dfire_score(self.terms(poses))  # (elementwise over poses)

    def shifted(self, poses: torch.Tensor) -> torch.Tensor:
        """Poses with each translation less the receptor's displacement near it
        (:class:`~.grid.ReceptorShift`, the same lookup on the device)."""
        if self.shift is None or not len(poses):
            return poses
        top = self.shift_top
        g = (poses[:, :3] - self.shift_origin) / self.shift_spacing
        g = torch.minimum(torch.clamp(g, min=0.0), torch.clamp(top, min=0.0))
        i0 = torch.minimum(torch.floor(g), torch.clamp(top - 1, min=0.0))
        f = g - i0
        i0 = i0.to(torch.int64)
        i1 = torch.minimum(i0 + 1, top.to(torch.int64))
        empty = torch.zeros((len(poses), *self.shift.shape[3:]), dtype=torch.float64)
        near = corner_sum(self.shift, i0, i1, f, empty.to(self.device))
        extents = poses[:, EXTENTS_START : EXTENTS_START + self.n_rec_modes]
        moved = poses.clone()
        moved[:, :3] = poses[:, :3] - (extents[:, :, None] * near).sum(dim=1)
        return moved

    def terms(self, poses: torch.Tensor) -> Terms:
        """Energies and fractions (each (P,)) of (P, D) poses, a chunk at a time."""
        poses = self.shifted(poses)
        parts = [self._terms(poses[i : i + self.chunk]) for i in range(0, len(poses), self.chunk)]
        return Terms(
            *(torch.cat([getattr(p, f) for p in parts]) for f in Terms.__dataclass_fields__)
        )

    def conformers(self, poses: torch.Tensor) -> torch.Tensor:
        """Ligand coordinates (P, L, 3) float64: modes, rotation matrix, translation."""
        k0 = EXTENTS_START + self.n_rec_modes
        xyz = self.x0[None].expand(len(poses), -1, -1)
        for k in range(self.modes.shape[0]):  # (elementwise: no batch-dependent matmul)
            xyz = xyz + poses[:, k0 + k, None, None] * self.modes[k][None]
        w, x, y, z = (poses[:, i, None] for i in range(3, 7))
        n2 = w * w + x * x + y * y + z * z
        a, b, c = xyz[..., 0], xyz[..., 1], xyz[..., 2]
        rows = (
            ((w * w + x * x - y * y - z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
            (2 * (x * y + w * z), (w * w - x * x + y * y - z * z), 2 * (y * z - w * x)),
            (2 * (x * z - w * y), 2 * (y * z + w * x), (w * w - x * x - y * y + z * z)),
        )
        out = [
            (r0 / n2) * a + (r1 / n2) * b + (r2 / n2) * c + poses[:, i, None]
            for i, (r0, r1, r2) in enumerate(rows)
        ]
        return torch.stack(out, dim=-1)

    def _energy(self, lig: torch.Tensor) -> torch.Tensor:
        g = (lig - self.origin) / self.spacing
        cell = torch.floor(g)
        frac = g - cell
        idx = cell.to(torch.int64)
        hi = torch.tensor([n - 1 for n in self.shape], device=self.device)
        valid = ((idx >= 0) & (idx < hi)).all(dim=-1)
        idx = torch.where(valid[..., None], idx, torch.zeros_like(idx))
        _, ny, nz = self.shape
        base = (idx[..., 0] * ny + idx[..., 1]) * nz + idx[..., 2]
        corners = self.field[base[..., None] + self.corner_offsets].to(torch.float32)
        dots = tree_sum(corners * self.weights[None, :, None, :])  # (P, L, 8) float32
        # trilinear weights: f where the corner bit is 1, 1 − f where it is 0
        c = self.corners  # (8, 3)
        f = frac[..., None, :]
        t = torch.where(c > 0, f, 1.0 - f)
        tw = t[..., 0] * t[..., 1] * t[..., 2]  # (P, L, 8)
        e = tree_sum(dots.to(torch.float64) * tw)
        return tree_sum(torch.where(valid, e, torch.zeros_like(e)))

    def _terms(self, poses: torch.Tensor) -> Terms:
        lig = self.conformers(poses)
        energy = self._energy(lig)
        zeros = torch.zeros_like(energy)
        if not self.restrained:
            return Terms(energy, zeros, zeros.clone(), zeros.clone())
        n_pose = lig.shape[0]
        cc = torch.floor((lig - self.contact_origin) / self.contact_cell).to(torch.int64)
        dims = torch.tensor(self.contact_shape, device=self.device)
        inside = ((cc >= 0) & (cc < dims)).all(dim=-1)
        cc = torch.where(inside[..., None], cc, torch.zeros_like(cc))
        flat = (cc[..., 0] * self.contact_shape[1] + cc[..., 1]) * self.contact_shape[2] + cc[
            ..., 2
        ]
        kind = torch.where(inside, self.contact[flat], torch.zeros_like(flat))
        cls, slot = kind & 3, kind >> 2
        # the pairs a cell cannot decide: search its candidate atoms
        lig_side = (self.lig_group >= 0)[None, :] & (cls == CONTACT_CHECK)
        rec_side = self.slot_undecided[slot] & inside
        search = lig_side | rec_side
        p_idx, a_idx = torch.nonzero(search, as_tuple=True)
        cand = self.rows[self.row_of[flat[p_idx, a_idx]]]  # (M, K)
        d = self.rec_xyz[cand] - lig[p_idx, a_idx][:, None, :]
        close = (d * d).sum(dim=-1) < self.below  # (M, K)
        # ligand side: a restrained atom is hit where its cell says so or a candidate is close
        atom_hit = (cls == CONTACT_ALL) & inside
        found = torch.zeros_like(atom_hit)
        found[p_idx, a_idx] = close.any(dim=-1)
        atom_hit = (atom_hit | (found & lig_side)) & (self.lig_group >= 0)[None, :]
        p_lig = zeros.clone()
        if self.n_lig > 0:
            groups = torch.zeros(n_pose, self.n_lig + 1, dtype=torch.int64, device=self.device)
            gidx = torch.where(self.lig_group >= 0, self.lig_group, self.n_lig).expand(n_pose, -1)
            groups.scatter_reduce_(1, gidx, atom_hit.to(torch.int64), reduce="amax")
            p_lig = groups[:, : self.n_lig].sum(dim=1).to(torch.float64) / self.n_lig
        # tracked side: groups every point of a cell has, and the close tracked candidates
        bits = torch.zeros(n_pose, self.n_bits + 1, dtype=torch.int64, device=self.device)
        if self.n_bits <= MASK_BITS and self.n_bits > 0:
            every = self.slot_every[slot] & inside[..., None]  # (P, L, B)
            bits[:, : self.n_bits] = every.any(dim=1).to(torch.int64)
        cand_bit = self.bit_of[cand]  # (M, K)
        hit_bit = torch.where(close & (cand_bit >= 0), cand_bit, self.n_bits)
        flat_bits = bits.view(-1)
        pos = p_idx[:, None] * (self.n_bits + 1) + hit_bit
        flat_bits.scatter_(0, pos.reshape(-1), torch.ones_like(pos.reshape(-1)))
        counts = bits.to(torch.float64)
        p_rec = counts[:, : self.n_rec].sum(dim=1) / self.n_rec if self.n_rec else zeros.clone()
        p_mem = (
            counts[:, self.n_rec : self.n_bits].sum(dim=1) / self.n_mem
            if self.n_mem
            else zeros.clone()
        )
        return Terms(energy, p_rec, p_lig, p_mem)
