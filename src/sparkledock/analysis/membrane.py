"""Models on the right side of a membrane: ``lgd_filter_membrane.py``'s test.

The membrane's height is the lowest C-alpha z of the receptor's restraint residues (the
residues that face the membrane's outside); a model passes when a large enough fraction of
the ligand's C-alpha atoms sit at or above it.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..errors import InputFileError
from ..molecule.structure import Atoms
from ..preparation.selections import classes


def calpha_mask(atoms: Atoms) -> np.ndarray:
    """C-alpha atoms of protein residues (ProDy's ``calpha``)."""
    return classes(atoms)["protein"] & (atoms.atom_name.astype(str) == "CA")


def membrane_height(receptor: Atoms, residues: Iterable[str], source: str = "receptor") -> float:
    """Lowest C-alpha z among ``residues`` (LightDock identifiers ``A.LYS.24``, ``A.GLY.5B``).

    Raises:
        InputFileError: no residue given, or one without a C-alpha in ``receptor`` (named).
    """
    ids = receptor.residue_ids()
    ca = receptor.atom_name.astype(str) == "CA"
    heights = []
    for residue in residues:
        hit = np.flatnonzero(ca & (ids == residue))
        if len(hit) == 0:
            raise InputFileError(f"{source}: residue {residue} has no C-alpha")
        heights.append(float(receptor.coords[hit[0], 2]))
    if not heights:
        raise InputFileError(f"{source}: no receptor restraint residues to place the membrane")
    return min(heights)


def fraction_above(model: Atoms, chains: Iterable[str], height: float, source: str) -> float:
    """Fraction of the protein C-alpha atoms of ``chains`` at z ≥ ``height``.

    Raises:
        InputFileError: the chains have no C-alpha atoms in ``model``.
    """
    chosen = calpha_mask(model) & np.isin(model.chain.astype(str), list(chains))
    if not chosen.any():
        raise InputFileError(f"{source}: no C-alpha atoms in chain(s) {', '.join(chains)}")
    return float(np.count_nonzero(model.coords[chosen, 2] >= height) / np.count_nonzero(chosen))
