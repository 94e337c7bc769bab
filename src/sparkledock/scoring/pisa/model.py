"""LightDock's ``pisa``: 32 atom types, contacts between 2 and 8 Å spread over three distance
bins by linear splines, weighted by LightDock's ``pisa.params`` table.

Per receptor–ligand pair with 2 ≤ d ≤ 8 Å, the spline bin of d (edges 2, 3, 4, 4.5, 6, 8 Å)
adds to the contact count of its (sorted) type pair: bin 0 → 1 to bin 0; bin 1 → 4 − d to
bin 0 and d − 3 to bin 1; bin 2 → 1 to bin 1; bin 3 → 4 − d/3 to bin 1 and d/3 − 3 to bin 2
(LightDock's weights, negative there, kept); bin 4 → 1 to bin 2. The energy is Σ count·w over
the table (upper triangle) and the score minus it, restraints combined (interface:
2 ≤ d ≤ 3.9 Å).

LightDock's quirks kept: the spline bin is found on the distance rounded to float32 (its
Cython takes a C ``float``), while the weights use the double. Not kept: LightDock pairs
coordinates of every atom with the types of the typed atoms only, which mis-types (or
crashes) when some atom has no PISA type; here such an atom is a one-line error, or dropped
with ``--skip-unknown``.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any, ClassVar

import numpy as np

from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..base import KernelScoring, TypedAtomModel, lookup_types, prepare_typed

N_TYPES = 32
N_BINS = 3
PISA_CUTOFF_A = 8.0

#: (residue, atom names, type): LightDock's residue-specific PISA types (first match wins)
_SPECIFIC = [
    ("ASN", "CG", 3), ("GLN", "CD", 3),
    ("ASN", "OD1", 4), ("GLN", "OE1 OE", 4),
    ("ALA", "CB", 6), ("ILE", "CG2 CD1", 6), ("LEU", "CD1 CD2 CD CE", 6), ("THR", "CG2", 6),
    ("VAL", "CG1 CG2", 6),
    ("ARG", "CB CG", 7), ("ASN", "CB", 7), ("GLN", "CB CG", 7), ("GLU", "CB", 7),
    ("HIS", "CB", 7), ("ILE", "CB CG1", 7), ("LEU", "CB CG", 7), ("LYS", "CB CG CD", 7),
    ("MET", "CB", 7), ("PHE", "CB", 7), ("PRO", "CB CG", 7), ("TRP", "CB", 7),
    ("TYR", "CB", 7), ("VAL", "CB", 7),
    ("PHE", "CG CD1 CD2 CE1 CE2 CZ", 8), ("TRP", "CE3 CZ2 CZ3 CH2", 8),
    ("TYR", "CG CD1 CD2 CE1 CE2 CC CD CE CH", 8),
    ("TYR", "CZ CF", 9),
    ("SER", "OG", 10), ("THR", "OG1", 10), ("TYR", "OH", 10),
    ("TRP", "CG CD2", 11), ("TRP", "CD1 CE2", 12), ("TRP", "NE1", 13),
    ("MET", "CG", 14), ("MET", "SD S SE", 15), ("MET", "CE", 16),
    ("LYS", "CE CZ", 17), ("SER", "CB", 18), ("THR", "CB", 18), ("PRO", "CD CA", 19),
    ("CYS", "CB", 20), ("CYS", "SG S SE", 21),
    ("HIS", "CG CD2", 22), ("HIS", "ND1 NE2", 23), ("HIS", "CE1", 24),
    ("ARG", "CD", 25), ("ARG", "NE", 26), ("ARG", "CZ", 27), ("ARG", "NH1 NH2", 28),
    ("ASN", "ND2", 29), ("GLN", "NE2", 29),
    ("ASP", "CB", 30), ("GLU", "CG", 30),
    ("ASP", "CG", 31), ("GLU", "CD CD1", 31),
    ("ASP", "OD1 OD2", 32), ("GLU", "OE1 OE2 OE11 OE21 OE", 32),
]  # fmt: skip


@cache
def _specific() -> dict[tuple[str, str], int]:
    table: dict[tuple[str, str], int] = {}
    for res, names, kind in _SPECIFIC:
        for name in names.split():
            table.setdefault((res, name), kind)
    return table


def pisa_type(res: str, atom: str) -> int:
    """LightDock's PISA type of an atom (1–32), or −1."""
    if res == "LYS" and atom == "NZ":
        return 1
    backbone = {"N": 2, "C": 3, "O": 4}
    if atom in backbone:
        return backbone[atom]
    if atom == "CA" and res != "PRO":
        return 5
    kind = _specific().get((res, atom))
    if kind is not None:
        return kind
    return 32 if atom in ("OXT", "OX2") else -1


@cache
def pisa_table() -> np.ndarray:
    """(32, 32, 3) weights: LightDock's upper triangle, zeros below."""
    text = resources.files("sparkledock").joinpath("data/pisa_params.json").read_text()
    values = iter(json.loads(text))
    table = np.zeros((N_TYPES, N_TYPES, N_BINS))
    for i in range(N_TYPES):
        for j in range(i, N_TYPES):
            for r in range(N_BINS):
                table[i, j, r] = next(values)
    return table


def pisa_types(
    partner: Partner, *, source: str = "structure", skip_unknown: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    return lookup_types(partner, pisa_type, "pisa", source=source, skip_unknown=skip_unknown)


class PISA(KernelScoring):
    """LightDock's ``pisa`` scoring function."""

    name = "pisa"
    summary = "PISA-style atomic contact potential, 32 types (LightDock's pisa)"
    cutoff = PISA_CUTOFF_A
    backends: ClassVar[dict[str, str]] = {"numba": "numba_kernel", "numpy": "numpy_kernel"}
    molecules: ClassVar[tuple[str, ...]] = ("protein",)

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        return pisa_types(partner, source=source, skip_unknown=skip_unknown)[1]

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        skip_unknown: bool = False,
        names: tuple[str, str] = ("receptor", "ligand"),
        **_: Any,
    ) -> TypedAtomModel:
        return prepare_typed(
            receptor,
            ligand,
            restraints,
            pisa_types,
            table=pisa_table(),
            first_type=1,
            skip_unknown=skip_unknown,
            names=names,
        )
