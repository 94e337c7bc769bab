"""A toy scoring function, for tests only: the number of receptor-ligand atom pairs closer
than 5 Å. It shows what a new scoring function is: this folder and one registry line
(``SCORING_FUNCTIONS["contacts"] = Contacts``), nothing else. It offers a numba kernel and a
torch device scorer; its scores are whole numbers, so both backends give the same bits and the
same GSO trajectories."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numba import njit, prange

from sparkledock.errors import EngineError
from sparkledock.molecule.pose import (
    PoseLayout,
    ligand_conformers,
    receptor_conformers,
    rotate_lightdock,
)
from sparkledock.molecule.system import Partner

CUTOFF_A = 5.0


@dataclass(frozen=True)
class ContactModel:
    receptor: Partner
    ligand: Partner
    layout: PoseLayout


@njit(parallel=True, cache=False)
def _count(rec: np.ndarray, lig: np.ndarray, cutoff2: float) -> np.ndarray:
    out = np.zeros(rec.shape[0])
    for p in prange(rec.shape[0]):
        n = 0
        for i in range(rec.shape[1]):
            for j in range(lig.shape[1]):
                dx = rec[p, i, 0] - lig[p, j, 0]
                dy = rec[p, i, 1] - lig[p, j, 1]
                dz = rec[p, i, 2] - lig[p, j, 2]
                if dx * dx + dy * dy + dz * dz < cutoff2:
                    n += 1
        out[p] = n
    return out


def conformers(model: ContactModel, poses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rec, lig, lay = model.receptor, model.ligand, model.layout
    return (
        receptor_conformers(rec.atoms.coords, rec.modes, rec.mask, poses, lay),
        ligand_conformers(lig.atoms.coords, lig.modes, lig.mask, poses, lay),
    )


class DeviceContacts:
    """The toy on a torch device: the same conformers (modes added one at a time), the same
    distances, the same counts."""

    def __init__(self, model: ContactModel, engine: Any) -> None:
        import torch

        self.engine, self.layout = engine, model.layout
        dev = torch.device(engine.device)
        self.parts = []
        for partner in (model.receptor, model.ligand):
            self.parts.append(
                (
                    torch.as_tensor(partner.atoms.coords, device=dev),
                    torch.as_tensor(partner.modes, device=dev),
                    torch.as_tensor(partner.mask, device=dev),
                )
            )

    @staticmethod
    def _deform(xyz, modes, mask, extents):
        out = xyz.expand(len(extents), -1, -1).clone()
        moved = out[:, mask, :]
        for k in range(modes.shape[0]):
            moved = moved + modes[k][None] * extents[:, k, None, None]
        out[:, mask, :] = moved
        return out

    def score(self, poses):
        lay = self.layout
        rec = self._deform(*self.parts[0], poses[:, lay.rec_extents])
        lig = self._deform(*self.parts[1], poses[:, lay.lig_extents])
        lig = rotate_lightdock(poses[:, None, lay.rotation], lig) + poses[:, None, lay.translation]
        d = rec[:, :, None, :] - lig[:, None, :, :]
        d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
        return (d2 < CUTOFF_A * CUTOFF_A).sum(dim=(1, 2)).to(poses.dtype)

    def model_bytes(self) -> int:
        return sum(t.numel() * t.element_size() for part in self.parts for t in part)


class Contacts:
    """Receptor-ligand atom pairs within 5 Å (restraints are ignored)."""

    name = "contacts"
    cutoff = CUTOFF_A
    backends: ClassVar[dict[str, str]] = {"numba": "here", "torch": "here"}

    def typed_atoms(self, partner: Partner, *, source="structure", skip_unknown=False):
        return np.ones(len(partner.atoms), dtype=bool)  # every atom counts

    def prepare(self, receptor: Partner, ligand: Partner, restraints=None, **options: Any):
        return ContactModel(receptor, ligand, PoseLayout(receptor.n_modes, ligand.n_modes))

    def score(self, model, poses, *, backend="numba", threads=None, engine=None):
        poses = model.layout.validate(poses)
        if engine is not None:
            backend = engine.backend
        if backend not in self.backends:
            raise EngineError(f"no {backend!r} backend for scoring 'contacts'")
        if backend == "torch":
            import torch

            scorer = self.device_scorer(model, engine, 0)
            device = torch.as_tensor(poses, device=torch.device(engine.device))
            return scorer.score(device).cpu().numpy()
        rec, lig = conformers(model, poses)
        return _count(rec, lig, CUTOFF_A * CUTOFF_A)

    def device_scorer(self, model, engine, workspace_bytes):
        return DeviceContacts(model, engine)
