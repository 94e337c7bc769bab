"""The AMBER pair functions (``vdw``, ``cpydock``, ``dna``) as dense batched tensor work
(PyTorch, CPU or CUDA, float64 or float32).

Per chunk of poses, sized to the workspace: receptor conformers (modes added one at a time)
and ligand conformers (LightDock's ``q·v·q⁻¹``, then translation), every receptor–ligand
squared distance, then each term as a masked sum: clamped Coulomb within 30 Å, truncated
Lennard-Jones within 10 Å, the nearest partners of the desolvation term and the restraint
pairs (3.9 Å). Sums run over fixed axes (ligand, then receptor), so a pose's score does not
depend on the chunk or batch; they differ from LightDock's sequential sums by rounding only
(1e-12 relative or better in float64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ...backend import Engine, default_workspace
from ...molecule.pose import rotate_lightdock
from ..terms import Terms, lightdock_score
from .model import INTERFACE_CUTOFF_A, VDW_CAP, VDW_CUTOFF_A, PairModel

ELEC_CUTOFF_A = 30.0
EPSILON = 4.0
FACTOR = 332.0
SOLVATION_CUTOFF_A = 6.4
HUGE_D2 = 10000.0
#: Bytes per receptor–ligand pair of a pose while a chunk is processed (about ten
#: temporaries of the pair matrix).
PAIR_BYTES = 80


@dataclass(frozen=True)
class PairTerms:
    """Which terms a function has: electrostatics, the van der Waals weight, and the
    desolvation arrays (``None``: no desolvation)."""

    electrostatics: bool
    vdw_weight: float
    #: (receptor seen, receptor area, receptor σ, ligand seen, ligand area, ligand σ)
    desolvation: tuple[np.ndarray, ...] | None = None


def _fractions(hit: torch.Tensor, groups: torch.Tensor, n_groups: int) -> torch.Tensor:
    """Per pose, the fraction of restraint groups with a flagged atom."""
    if n_groups == 0:
        return torch.zeros(hit.shape[0], dtype=torch.float64, device=hit.device)
    keep = groups >= 0
    per = torch.zeros(hit.shape[0], n_groups, dtype=torch.bool, device=hit.device)
    idx = groups[keep].expand(hit.shape[0], -1)
    per.scatter_reduce_(1, idx, hit[:, keep], reduce="amax")
    return per.sum(dim=1).to(torch.float64) / n_groups


class DevicePairs:
    """A pair model on a torch device."""

    def __init__(
        self, model: PairModel, terms: PairTerms, engine: Engine, workspace_bytes: int
    ) -> None:
        self.engine = engine
        self.layout = model.layout
        self.terms = terms
        self.workspace_bytes = workspace_bytes
        dev = torch.device(engine.device)
        self.dtype = torch.float64 if engine.precision == "fp64" else torch.float32

        def put(a, dtype=None):
            return torch.as_tensor(np.asarray(a), dtype=dtype or self.dtype, device=dev)

        self.rec_xyz, self.rec_modes = put(model.rec_xyz), put(model.rec_modes)
        self.lig_xyz, self.lig_modes = put(model.lig_xyz), put(model.lig_modes)
        self.qq = put(model.rec_charge[:, None] * model.lig_charge[None, :])
        self.eps = put(np.sqrt(model.rec_eps[:, None] * model.lig_eps[None, :]))
        self.r6 = put((model.rec_radius[:, None] + model.lig_radius[None, :]) ** 6)
        self.rec_group = put(model.rec_restraint_group, torch.int64)
        self.lig_group = put(model.lig_restraint_group, torch.int64)
        self.n_rec, self.n_lig = model.n_rec_restraints, model.n_lig_restraints
        self.solv = None
        if terms.desolvation is not None:
            rs, ra, rq, ls, la, lq = terms.desolvation
            self.solv = (
                put(rs, torch.bool), put(ra), put(rq), put(ls, torch.bool), put(la), put(lq)
            )  # fmt: skip

    def model_bytes(self) -> int:
        tensors = [self.rec_xyz, self.rec_modes, self.lig_xyz, self.lig_modes]
        tensors += [self.qq, self.eps, self.r6, self.rec_group, self.lig_group]
        tensors += list(self.solv or ())
        return sum(t.numel() * t.element_size() for t in tensors)

    def _conformers(self, poses: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        lay = self.layout
        rec = self.rec_xyz.expand(len(poses), -1, -1).clone()
        for k in range(self.rec_modes.shape[0]):
            rec = rec + self.rec_modes[k][None] * poses[:, lay.rec_extents.start + k, None, None]
        lig = self.lig_xyz.expand(len(poses), -1, -1).clone()
        for k in range(self.lig_modes.shape[0]):
            lig = lig + self.lig_modes[k][None] * poses[:, lay.lig_extents.start + k, None, None]
        lig = rotate_lightdock(poses[:, None, lay.rotation], lig) + poses[:, None, lay.translation]
        return rec, lig

    def _buried(self, min_d2, seen, area, sigma):
        cut = SOLVATION_CUTOFF_A * SOLVATION_CUTOFF_A
        near = (min_d2 <= cut) & (min_d2 > 0.0) & (area > 0)
        s = torch.where(near, -10.0 * torch.sqrt(min_d2) + 65.0, torch.zeros_like(min_d2))
        s = torch.where(s > area, area.expand_as(s), s)
        return (s * sigma).sum(dim=1)

    def terms_of(self, poses: torch.Tensor) -> Terms:
        """Energy and restraint fractions of a chunk of poses (on the device)."""
        rec, lig = self._conformers(poses.to(self.dtype))
        d = rec[:, :, None, :] - lig[:, None, :, :]
        d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
        zero = torch.zeros((), dtype=d2.dtype, device=d2.device)
        energy = torch.zeros(len(poses), dtype=d2.dtype, device=d2.device)
        if self.terms.electrostatics:
            hi, lo = 1.0 * EPSILON / FACTOR, -1.0 * EPSILON / FACTOR
            e = torch.clamp(self.qq / d2, lo, hi)
            e = torch.where(d2 <= ELEC_CUTOFF_A * ELEC_CUTOFF_A, e, zero)
            energy = energy + e.sum(dim=2).sum(dim=1) * FACTOR / EPSILON
        p6 = self.r6 / (d2 * d2 * d2)
        lj = torch.clamp(self.eps * (p6 * p6 - 2.0 * p6), max=VDW_CAP)
        lj = torch.where(d2 <= VDW_CUTOFF_A * VDW_CUTOFF_A, lj, zero)
        energy = energy + self.terms.vdw_weight * lj.sum(dim=2).sum(dim=1)
        if self.solv is not None:
            rs, ra, rq, ls, la, lq = self.solv
            seen = rs[None, :, None] & ls[None, None, :]
            near = torch.where(seen, d2, torch.full_like(d2, HUGE_D2))
            solv = self._buried(near.min(dim=2).values, rs, ra, rq) + self._buried(
                near.min(dim=1).values, ls, la, lq
            )
            energy = energy + -1 * solv
        close = d2 <= INTERFACE_CUTOFF_A * INTERFACE_CUTOFF_A
        p_rec = _fractions(close.any(dim=2), self.rec_group, self.n_rec)
        p_lig = _fractions(close.any(dim=1), self.lig_group, self.n_lig)
        return Terms(energy.to(torch.float64), p_rec, p_lig, torch.zeros_like(p_rec))

    def score(self, poses: torch.Tensor) -> torch.Tensor:
        """Scores of (P, D) poses on the device: minus the energy, restraints combined."""
        per_pose = PAIR_BYTES * self.rec_xyz.shape[0] * self.lig_xyz.shape[0]
        batch = max(1, self.workspace_bytes // max(per_pose, 1))
        out = []
        for first in range(0, len(poses), batch):
            t = self.terms_of(poses[first : first + batch])
            out.append(lightdock_score(t.energy * -1.0, t))
        if not out:
            return torch.zeros(0, dtype=torch.float64, device=poses.device)
        return torch.cat(out)


def device_pairs(
    model: PairModel, terms: PairTerms, engine: Engine, workspace_bytes: int | None = None
) -> DevicePairs:
    return DevicePairs(model, terms, engine, workspace_bytes or default_workspace(engine))


def score_with(
    model: PairModel,
    terms: PairTerms,
    poses: np.ndarray,
    *,
    threads: int | None = None,
    engine: Engine | None = None,
) -> np.ndarray:
    """Scores of validated poses on ``engine`` (default: torch on the CPU, fp64)."""
    engine = engine or Engine("torch", "cpu", "fp64")
    if threads and engine.device == "cpu":
        torch.set_num_threads(threads)
    scorer = device_pairs(model, terms, engine)
    t = torch.as_tensor(poses, dtype=torch.float64, device=engine.device)
    return scorer.score(t).cpu().numpy()
