"""LightDock's Python ``dfire`` (``lightdock3.py -s dfire``): DFIRE as its Cython module
computes it, which is not what its C ``fastdfire`` (sparkledock's ``dfire``) computes.

For every receptor atom i and ligand atom j (in that order) with ``d <= 15 Å``:
``k = trunc(2·d − 1)``, ``E += table[type_i, type_j, DIST_TO_BINS[k] − 1]``; the score is
``(E·0.0157 − 4.7)·(−1)``, restraints combined as every function combines them (interface:
``k <= 3``). Where it differs from ``fastdfire`` (up to 3e-2 relative on the same poses):

* 167 types, not 168: its DCparams is fastdfire's without the membrane bead (checked equal
  to the first 167 rows and columns of the packaged table, which is read from there);
* each atom takes the row of its own name: fastdfire's residue-atom matrix swaps TRP's
  CE2/NE1 and rotates CZ2/CZ3/CH2 (see :mod:`..dfire.model`), this one does not;
* membrane beads are not types: the −999 membrane term does not exist here.

LightDock quirks kept: the interface is ``k <= 3`` (its unsigned ``k`` is compared with
3.9 Å), i.e. ``d < 2.5 Å``; distances are the double ``sqrt(dx² + dy² + dz²)`` that scipy's
``cdist`` gives. Not kept: a pair at exactly 15 Å (bin 20) raises IndexError in LightDock
and a pair at 0 Å OverflowError; here they take the last and the first bin.
"""

from __future__ import annotations

from functools import cache
from typing import Any, ClassVar

import numpy as np

from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..base import KernelScoring, TypedAtomModel, lookup_types, prepare_typed
from ..dfire.model import BINS, dfire_table
from ..terms import lightdock_score

N_TYPES = 167
CUTOFF_A = 15.0

#: Atom names per residue in the row order of LightDock's dfire DCparams (its
#: ``dfire_atom_types``: fastdfire's list with TRP's side chain in name order, no bead).
RESIDUE_ATOMS: tuple[tuple[str, str], ...] = (
    ("CYS", "N CA C O CB SG"),
    ("MET", "N CA C O CB CG SD CE"),
    ("PHE", "N CA C O CB CG CD1 CD2 CE1 CE2 CZ"),
    ("ILE", "N CA C O CB CG1 CG2 CD1"),
    ("LEU", "N CA C O CB CG CD1 CD2"),
    ("VAL", "N CA C O CB CG1 CG2"),
    ("TRP", "N CA C O CB CG CD1 CD2 NE1 CE2 CE3 CZ2 CZ3 CH2"),
    ("TYR", "N CA C O CB CG CD1 CD2 CE1 CE2 CZ OH"),
    ("ALA", "N CA C O CB"),
    ("GLY", "N CA C O"),
    ("THR", "N CA C O CB OG1 CG2"),
    ("SER", "N CA C O CB OG"),
    ("GLN", "N CA C O CB CG CD OE1 NE2"),
    ("ASN", "N CA C O CB CG OD1 ND2"),
    ("GLU", "N CA C O CB CG CD OE1 OE2"),
    ("ASP", "N CA C O CB CG OD1 OD2"),
    ("HIS", "N CA C O CB CG ND1 CD2 CE1 NE2"),
    ("ARG", "N CA C O CB CG CD NE CZ NH1 NH2"),
    ("LYS", "N CA C O CB CG CD CE NZ"),
    ("PRO", "N CA C O CB CG CD"),
)
ATOM_TYPE: dict[tuple[str, str], int] = {
    key: i
    for i, key in enumerate((res, atom) for res, atoms in RESIDUE_ATOMS for atom in atoms.split())
}
#: 0-based bin of each k = trunc(2d − 1), 0 ... 29 (k = 29, d = 15 Å, takes the last bin).
PY_BINS = np.minimum(BINS, 19)


@cache
def pydfire_table() -> np.ndarray:
    """(167, 167, 20): LightDock's dfire DCparams, the packaged table without its bead."""
    table = np.ascontiguousarray(dfire_table()[:N_TYPES, :N_TYPES])
    table.setflags(write=False)
    return table


def pydfire_types(
    partner: Partner, *, source: str = "structure", skip_unknown: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Type of every atom (−1: none) and the mask of typed atoms; an untyped atom is a
    one-line error (LightDock's KeyError), or dropped with ``skip_unknown``."""
    return lookup_types(
        partner,
        lambda res, atom: ATOM_TYPE.get((res, atom), -1),
        "pydfire",
        source=source,
        skip_unknown=skip_unknown,
    )


class PyDFIRE(KernelScoring):
    """LightDock's Python ``dfire`` scoring function (its ``-s dfire``)."""

    name = "pydfire"
    summary = "DFIRE as LightDock's Python dfire (-s dfire; not fastdfire): 167 types"
    backends: ClassVar[dict[str, str]] = {"numba": "numba_kernel", "numpy": "numpy_kernel"}
    molecules: ClassVar[tuple[str, ...]] = ("protein",)

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        return pydfire_types(partner, source=source, skip_unknown=skip_unknown)[1]

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
            pydfire_types,
            table=pydfire_table(),
            bins=PY_BINS,
            skip_unknown=skip_unknown,
            names=names,
        )

    def terms_score(self, terms: Any) -> Any:
        """``(E·0.0157 − 4.7)·(−1)``, restraints combined."""
        return lightdock_score((terms.energy * 0.0157 - 4.7) * -1.0, terms)
