"""LightDock's ``sipper``: SIPPER residue-pair energies counted over atom contacts, as
LightDock 0.9.4 evaluates them.

- **Only the first half of each partner's residues count.** LightDock passes its residue
  types and atom counts as NumPy int64 arrays that its C code reads as ``int``: slot k is the
  low word of residue k/2 (k even) or its high word, 0 (k odd, a residue of no atoms); the loop
  runs over as many slots as there are residues, so it sees residues 0 … ⌈n/2⌉ − 1, each with
  its own atoms and type.
- LightDock 0.9.4's sipper driver cannot run at all: it uses ``DEFAULT_CONTACT_RESTRAINTS_CUTOFF``
  without importing it (NameError on every evaluation); the parity data was made with that
  constant supplied (``benchmarks/lightdock_eval.py``), its C code unchanged.

For every receptor residue i and ligand residue j (in order), each atom of i with at least
one atom of j closer than 5 Å (d² < 25) adds E[i, j]: a residue pair counts once per
contacting receptor atom. The score is minus the sum. LightDock's quirks kept: its C loop
leaves an atom's inner loop at its first contact before the interface test, so no pair is
ever recorded as interface and restraints never count (fractions always 0); every atom,
hydrogens included, takes part. Not kept: LightDock adds 0.019 × the residues' ODA values
when a ``lightdock_<structure>.oda`` file sits in its working directory; these are not read
here (the term is zero, as in LightDock without the files). A residue outside SIPPER's twenty
(plus HID/HIP) is a one-line error.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, ClassVar

import numpy as np

from ...errors import UnsupportedAtomError
from ...molecule.pose import PoseLayout
from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..base import KernelScoring


@cache
def sipper_data() -> tuple[dict[str, int], np.ndarray]:
    data = json.loads(resources.files("sparkledock").joinpath("data/sipper.json").read_text())
    return data["residue_index"], np.array(data["energies"], dtype=np.float64)


def lightdock_half(bounds: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The residues LightDock's sipper visits (see the module notes): the first ⌈n/2⌉."""
    keep = (len(kinds) + 1) // 2
    return bounds[: keep + 1], kinds[:keep]


def residues(partner: Partner, source: str) -> tuple[np.ndarray, np.ndarray]:
    """Residue starts (with the end) and SIPPER residue indices."""
    index, _ = sipper_data()
    atoms = partner.atoms
    starts = atoms.residue_starts()
    kinds = []
    for a in starts:
        name = str(atoms.res_name[a])
        if name not in index:
            where = f"chain {atoms.chain[a]} {name} {atoms.res_seq[a]}{atoms.ins_code[a]}"
            raise UnsupportedAtomError(f"{source}: sipper has no energies for residue {where}")
        kinds.append(index[name])
    bounds = np.append(starts, len(atoms)).astype(np.int64)
    return bounds, np.array(kinds, dtype=np.int64)


@dataclass(frozen=True)
class SIPPERModel:
    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    rec_bounds: np.ndarray
    rec_kind: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    lig_bounds: np.ndarray
    lig_kind: np.ndarray
    table: np.ndarray


class SIPPER(KernelScoring):
    """LightDock's ``sipper`` scoring function."""

    name = "sipper"
    summary = "SIPPER residue-pair energies over atom contacts (LightDock's sipper)"
    cutoff = 5.0
    backends: ClassVar[dict[str, str]] = {"numba": "numba_kernel"}
    molecules: ClassVar[tuple[str, ...]] = ("protein",)

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        residues(partner, source)
        return np.ones(len(partner.atoms), dtype=bool)

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        names: tuple[str, str] = ("receptor", "ligand"),
        **_: Any,
    ) -> SIPPERModel:
        rb, rk = lightdock_half(*residues(receptor, names[0]))
        lb, lk = lightdock_half(*residues(ligand, names[1]))
        _, table = sipper_data()
        return SIPPERModel(
            PoseLayout(receptor.n_modes, ligand.n_modes),
            np.ascontiguousarray(receptor.atoms.coords), receptor.full_modes(), rb, rk,
            np.ascontiguousarray(ligand.atoms.coords), ligand.full_modes(), lb, lk, table,
        )  # fmt: skip
