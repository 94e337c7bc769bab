"""LightDock's ``mj3h``: the Miyazawa–Jernigan MJ3h residue contact energies between side-chain
beads, as LightDock 0.9.4 evaluates them.

Each residue is one bead at the mean of its atoms other than ``O``, ``C``, ``N`` and ``H``
(a residue with none is left out). Per receptor–ligand bead pair with d² < 42.25 Å²: 3.0 (a
clash) if d² < 6.2, else the MJ3h energy of the two residue types (nothing for a residue name
outside the twenty). The score is minus the sum. LightDock's quirks kept: it refuses normal
modes with this function (a setup with modes is a one-line error here), and restraints never
count (it keeps restraint residues without atoms, so none is ever satisfied: the fractions are
always 0).

References: S. Miyazawa, R. L. Jernigan, J. Mol. Biol. 256, 623–644 (1996).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, ClassVar

import numpy as np

from ...molecule.pose import PoseLayout
from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..base import KernelScoring, refuse_normal_modes

_BACKBONE = ("O", "C", "N", "H")


@cache
def mj3h_table() -> tuple[dict[str, int], np.ndarray]:
    data = json.loads(resources.files("sparkledock").joinpath("data/mj3h.json").read_text())
    return {r: i for i, r in enumerate(data["residues"])}, np.array(data["energies"])


def beads(partner: Partner) -> tuple[np.ndarray, np.ndarray]:
    """Side-chain bead coordinates (LightDock's centroids, summed in atom order) and residue
    types (−1: not one of the twenty)."""
    index, _ = mj3h_table()
    atoms = partner.atoms
    starts = atoms.residue_starts()
    xyz, kinds = [], []
    for a, b in zip(starts, [*starts[1:], len(atoms)], strict=True):
        cx = cy = cz = 0.0
        count = 0
        for k in range(a, b):
            if atoms.atom_name[k] not in _BACKBONE:
                cx += atoms.coords[k, 0]
                cy += atoms.coords[k, 1]
                cz += atoms.coords[k, 2]
                count += 1
        if count:
            n = float(count)
            xyz.append((cx / n, cy / n, cz / n))
            kinds.append(index.get(str(atoms.res_name[a]), -1))
    return np.array(xyz, dtype=np.float64).reshape(-1, 3), np.array(kinds, dtype=np.int64)


@dataclass(frozen=True)
class MJ3hModel:
    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_kind: np.ndarray
    lig_xyz: np.ndarray
    lig_kind: np.ndarray
    table: np.ndarray


class MJ3h(KernelScoring):
    """LightDock's ``mj3h`` scoring function (rigid partners only)."""

    name = "mj3h"
    summary = "Miyazawa-Jernigan MJ3h residue contacts, rigid only (LightDock's mj3h)"
    cutoff = 6.5
    backends: ClassVar[dict[str, str]] = {"numba": "numba_kernel"}
    molecules: ClassVar[tuple[str, ...]] = ("protein",)
    #: partners without normal modes only (poses have 7 numbers)
    rigid_only = True

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        return np.ones(len(partner.atoms), dtype=bool)  # (beads of every residue)

    def reference_coordinates(self, model: Any) -> np.ndarray:
        """The ligand's residue beads (LightDock's reference point is their ellipsoid's
        centre, not the atoms')."""
        return model.lig_xyz

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        names: tuple[str, str] = ("receptor", "ligand"),
        **_: Any,
    ) -> MJ3hModel:
        refuse_normal_modes(self.name, (receptor, ligand), names)
        _, table = mj3h_table()
        r_xyz, r_kind = beads(receptor)
        l_xyz, l_kind = beads(ligand)
        return MJ3hModel(PoseLayout(0, 0), r_xyz, r_kind, l_xyz, l_kind, table)
