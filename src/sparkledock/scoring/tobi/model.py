"""LightDock's ``tobi``: the TOBI coarse-grained potentials (two 22 × 22 tables) between
residue beads, as LightDock 0.9.4 evaluates them.

Beads, in atom order per residue of the twenty: one at the backbone N (type 20) and one at
the O (type 21) where present, then the residue's side-chain bead (its own type) at the mean
of its heavy atoms named in TOBI's atom lists (``RESATOM`` names; each listed match counts,
so glycine's bead is its CA); a residue without such atoms keeps its N and O beads only. Per
pair at distance d ≤ 8 Å, thresholds by bead kinds (backbone–backbone 4.5 / 6 Å,
backbone–side chain 5.5 / 7 Å, side chain–side chain 6.5 / 8 Å) pick the first table (closer)
or the second. The score is minus the sum. LightDock's quirks kept: it refuses normal modes
with this function (a one-line error here), and restraints never count (fractions always 0).
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

N_BEAD, O_BEAD = 20, 21


@cache
def tobi_data() -> dict:
    return json.loads(resources.files("sparkledock").joinpath("data/tobi.json").read_text())


def beads(partner: Partner) -> tuple[np.ndarray, np.ndarray]:
    """TOBI bead coordinates and types, as LightDock builds them (see the module notes)."""
    data = tobi_data()
    residues = {r: i for i, r in enumerate(data["residues"])}
    atom_lists = [set(names) for names in data["atom_types"]]
    atoms = partner.atoms
    starts = atoms.residue_starts()
    xyz, kinds = [], []
    for a, b in zip(starts, [*starts[1:], len(atoms)], strict=True):
        kind = residues.get(str(atoms.res_name[a]))
        if kind is None:
            continue
        cx = cy = cz = 0.0
        count = 0
        for k in range(a, b):
            if atoms.element[k] == "H":
                continue
            name = str(atoms.atom_name[k])
            x, y, z = (float(v) for v in atoms.coords[k])
            full = str(atoms.res_name[a]) + name
            for names in atom_lists:
                if full in names:
                    cx += x
                    cy += y
                    cz += z
                    count += 1
            if name == "N":
                xyz.append((x, y, z))
                kinds.append(N_BEAD)
            if name == "O":
                xyz.append((x, y, z))
                kinds.append(O_BEAD)
        if count:
            n = float(count)
            xyz.append((cx / n, cy / n, cz / n))
            kinds.append(kind)
    return np.array(xyz, dtype=np.float64).reshape(-1, 3), np.array(kinds, dtype=np.int64)


@dataclass(frozen=True)
class TOBIModel:
    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_kind: np.ndarray
    lig_xyz: np.ndarray
    lig_kind: np.ndarray
    step1: np.ndarray
    step2: np.ndarray


class TOBI(KernelScoring):
    """LightDock's ``tobi`` scoring function (rigid partners only)."""

    name = "tobi"
    summary = "TOBI coarse-grained residue potentials, rigid only (LightDock's tobi)"
    cutoff = 8.0
    backends: ClassVar[dict[str, str]] = {"numba": "numba_kernel"}
    molecules: ClassVar[tuple[str, ...]] = ("protein",)
    #: partners without normal modes only (poses have 7 numbers)
    rigid_only = True

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        return np.ones(len(partner.atoms), dtype=bool)

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
    ) -> TOBIModel:
        refuse_normal_modes(self.name, (receptor, ligand), names)
        data = tobi_data()
        r_xyz, r_kind = beads(receptor)
        l_xyz, l_kind = beads(ligand)
        return TOBIModel(
            PoseLayout(0, 0), r_xyz, r_kind, l_xyz, l_kind,
            np.array(data["step1"]), np.array(data["step2"]),
        )  # fmt: skip
