"""``dfire2`` as dense batched tensor work (PyTorch, CPU or CUDA, float64 or float32).

Per chunk of poses, sized to the workspace: the receptor conformer (modes added one at a
time) and the ligand conformer (LightDock's ``q·v·q⁻¹``, then translation), concatenated as
LightDock concatenates them; then, per block of rows ``i``, every pair ``i < j`` of atoms in
different residues: the bin ``trunc(2·d)`` and a table lookup, and the interface flags
(``2·d ≤ 3.9``) on the first and second atom of each pair (LightDock's concatenated-index
restraint sets: see the model's notes). Without normal modes on a partner its internal pairs
never change: they are summed once, on the first chunk's first pose, and reused.

Sums run over fixed axes, so a pose's score does not depend on the chunk; they differ from
LightDock's sequential sum by rounding only (a pair within one ulp of a bin edge may fall on
the other side, as on any other backend that does not reproduce LightDock's arithmetic).
"""

from __future__ import annotations

import numpy as np
import torch

from ...backend import Engine, default_workspace
from ...molecule.pose import rotate_lightdock
from ..terms import Terms
from ..vdw.torch_kernel import _fractions
from .model import INTERFACE_2D, N_BINS, N_TYPES, DFIRE2Model, dfire2_score

#: Bytes per atom pair of a pose while a block is processed (about eight temporaries).
PAIR_BYTES = 64


class DeviceDFIRE2:
    """A dfire2 model on a torch device (a :class:`~..DeviceScorer`)."""

    def __init__(self, model: DFIRE2Model, engine: Engine, workspace_bytes: int) -> None:
        self.engine = engine
        self.layout = model.layout
        self.workspace_bytes = workspace_bytes
        dev = torch.device(engine.device)
        self.dtype = torch.float64 if engine.precision == "fp64" else torch.float32

        def put(a, dtype=None):
            return torch.as_tensor(np.asarray(a), dtype=dtype or self.dtype, device=dev)

        self.rec_xyz, self.rec_modes = put(model.rec_xyz), put(model.rec_modes)
        self.lig_xyz, self.lig_modes = put(model.lig_xyz), put(model.lig_modes)
        self.row = put(model.types * N_TYPES * N_BINS, torch.int64)
        self.col = put(model.types * N_BINS, torch.int64)
        self.residues = put(model.residues, torch.int64)
        self.table = put(model.table.reshape(-1), torch.float64)
        self.rec_group = put(model.rec_restraint_group, torch.int64)
        self.lig_group = put(model.lig_restraint_group, torch.int64)
        self.n_rec, self.n_lig = model.n_rec_restraints, model.n_lig_restraints
        self.n_rec_atoms = len(model.rec_xyz)
        #: the receptor-internal and ligand-internal sums and flags of a rigid partner
        self._fixed: dict[str, tuple[torch.Tensor, torch.Tensor, torch.Tensor]] = {}

    def model_bytes(self) -> int:
        tensors = [self.rec_xyz, self.rec_modes, self.lig_xyz, self.lig_modes, self.row]
        tensors += [self.col, self.residues, self.table, self.rec_group, self.lig_group]
        return sum(t.numel() * t.element_size() for t in tensors)

    def _conformers(self, poses: torch.Tensor) -> torch.Tensor:
        lay = self.layout
        rec = self.rec_xyz.expand(len(poses), -1, -1).clone()
        for k in range(self.rec_modes.shape[0]):
            rec = rec + self.rec_modes[k][None] * poses[:, lay.rec_extents.start + k, None, None]
        lig = self.lig_xyz.expand(len(poses), -1, -1).clone()
        for k in range(self.lig_modes.shape[0]):
            lig = lig + self.lig_modes[k][None] * poses[:, lay.lig_extents.start + k, None, None]
        lig = rotate_lightdock(poses[:, None, lay.rotation], lig) + poses[:, None, lay.translation]
        return torch.cat([rec, lig], dim=1)

    def _pairs(
        self, xyz: torch.Tensor, rows: range, cols: slice
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Energy sum and first/second interface flags (over all atoms) of the pairs with
        ``i`` in ``rows`` and ``j`` in ``cols``, ``i < j``, different residues."""
        p, n = xyz.shape[0], xyz.shape[1]
        j0, j1 = cols.start, cols.stop
        energy = torch.zeros(p, dtype=torch.float64, device=xyz.device)
        first = torch.zeros(p, n, dtype=torch.bool, device=xyz.device)
        second = torch.zeros(p, n, dtype=torch.bool, device=xyz.device)
        pairs = max(1, p * (j1 - j0))
        block = max(1, self.workspace_bytes // (PAIR_BYTES * pairs))
        jj = torch.arange(j0, j1, device=xyz.device)
        for i0 in range(rows.start, rows.stop, block):
            i1 = min(i0 + block, rows.stop)
            ii = torch.arange(i0, i1, device=xyz.device)
            d = xyz[:, i0:i1, None, :] - xyz[:, None, j0:j1, :]
            dist = torch.sqrt(d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2])
            dist = dist * 2
            valid = (jj[None, :] > ii[:, None]) & (
                self.residues[i0:i1, None] != self.residues[None, j0:j1]
            )
            b = torch.clamp(dist, max=N_BINS).to(torch.int64)
            inside = valid[None] & (b < N_BINS)
            index = self.row[i0:i1, None] + self.col[None, j0:j1]
            values = self.table[index[None] + torch.clamp(b, max=N_BINS - 1)]
            energy += torch.where(inside, values, torch.zeros_like(values)).sum(dim=(1, 2))
            close = valid[None] & (dist <= INTERFACE_2D)
            first[:, i0:i1] |= close.any(dim=2)
            second[:, j0:j1] |= close.any(dim=1)
        return energy, first, second

    def _internal(
        self, xyz: torch.Tensor, side: str
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The internal pairs of one partner; computed once for a partner without modes."""
        nr, n = self.n_rec_atoms, xyz.shape[1]
        span = range(0, nr) if side == "rec" else range(nr, n)
        cols = slice(span.start, span.stop)
        moving = (self.rec_modes if side == "rec" else self.lig_modes).shape[0] > 0
        if moving:
            return self._pairs(xyz, span, cols)
        if side not in self._fixed:
            e, f, s = self._pairs(xyz[:1], span, cols)
            self._fixed[side] = (e[0], f[0], s[0])
        e, f, s = self._fixed[side]
        p = xyz.shape[0]
        return e.expand(p), f.expand(p, -1), s.expand(p, -1)

    def terms_of(self, poses: torch.Tensor) -> Terms:
        """Energy and restraint fractions of a chunk of poses (on the device)."""
        xyz = self._conformers(poses.to(self.dtype))
        nr, n = self.n_rec_atoms, xyz.shape[1]
        e_rl, f_rl, s_rl = self._pairs(xyz, range(0, nr), slice(nr, n))
        e_rr, f_rr, s_rr = self._internal(xyz, "rec")
        e_ll, f_ll, s_ll = self._internal(xyz, "lig")
        energy = (e_rr + e_rl + e_ll) / 100.0
        first, second = f_rl | f_rr | f_ll, s_rl | s_rr | s_ll
        # LightDock's restraint sets hold concatenated indices (see the model's notes)
        p_rec = _fractions(first[:, :nr], self.rec_group, self.n_rec)
        lig_len = len(self.lig_group)
        p_lig = _fractions(second[:, :lig_len], self.lig_group, self.n_lig)
        return Terms(energy, p_rec, p_lig, torch.zeros_like(p_rec))

    def score(self, poses: torch.Tensor) -> torch.Tensor:
        """Scores of (P, D) poses on the device (dfire2's sign, restraints combined)."""
        n = len(self.rec_xyz) + len(self.lig_xyz)
        batch = max(1, self.workspace_bytes // (PAIR_BYTES * n * len(self.lig_xyz) + 1))
        out = [
            dfire2_score(self.terms_of(poses[first : first + batch]))
            for first in range(0, len(poses), batch)
        ]
        if not out:
            return torch.zeros(0, dtype=torch.float64, device=poses.device)
        return torch.cat(out)


def device_dfire2(
    model: DFIRE2Model, engine: Engine, workspace_bytes: int | None = None
) -> DeviceDFIRE2:
    return DeviceDFIRE2(model, engine, workspace_bytes or default_workspace(engine))
