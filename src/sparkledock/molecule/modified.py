"""Modified residues read as their parents: common modified amino acids (MSE, SEP, TPO,
PTR, ...) and nucleotides (PSU, 5MC, OMG, ... and force-field spellings), and a
selenomethionine already named MET; what a docking user expects of deposited files."""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ModifiedResidueWarning
from .residues import (
    AMINO_ACID_ATOMS,
    MODIFIED_NUCLEOTIDES,
    MODIFIED_PARENTS,
    NUCLEOTIDE_ATOMS,
    RENAMED_ATOMS,
)

if TYPE_CHECKING:
    from .structure import Atoms

#: Every residue name read as another (modified amino acids and nucleotides), and the heavy
#: atoms of each parent.
_PARENTS = {**MODIFIED_PARENTS, **MODIFIED_NUCLEOTIDES}
_PARENT_ATOMS = {**AMINO_ACID_ATOMS, **NUCLEOTIDE_ATOMS}


def listed(labels: Iterable[str], most: int = 5) -> str:
    """Sorted labels for a warning: the first ``most``, then how many more."""
    ordered = sorted(labels)
    more = f" and {len(ordered) - most} more" if len(ordered) > most else ""
    return ", ".join(ordered[:most]) + more


def map_modified_residues(atoms: Atoms, source: str = "structure") -> Atoms:
    """Common modified residues (MSE, SEP, TPO, PTR, ... : :data:`MODIFIED_PARENTS`) become
    their parent amino acid, and modified nucleotides (PSU, 5MC, OMG, ... and force-field
    spellings such as RA or DA5: :data:`MODIFIED_NUCLEOTIDES`) their parent nucleotide, as
    docking users expect: renamed, marked ATOM, keeping the atoms the parent has (MSE's SE
    becomes SD). One warning names them. A selenomethionine already named MET (its SE atom
    kept, as some deposited and prepared files have it) has its SE read as SD too."""
    atoms = _selenium_as_sulphur(atoms, source)
    names = atoms.res_name.astype(str)
    modified = np.isin(names, list(_PARENTS))
    if not modified.any():
        return atoms
    res_name, atom_name = atoms.res_name.copy(), atoms.atom_name.copy()
    hetero = atoms.hetero.copy()
    keep = np.ones(len(atoms), dtype=bool)
    for i in np.flatnonzero(modified):
        parent = _PARENTS[names[i]]
        name = RENAMED_ATOMS.get((names[i], str(atom_name[i])), str(atom_name[i]))
        keep[i] = name in _PARENT_ATOMS[parent] or name == "OXT" or name.startswith("H")
        res_name[i], atom_name[i], hetero[i] = parent, name, False
    found = {
        f"{r} {c}.{n}{s}"
        for r, c, n, s in zip(
            names[modified],
            atoms.chain[modified],
            atoms.res_seq[modified],
            atoms.ins_code[modified],
            strict=True,
        )
    }
    shown = listed(found)
    warnings.warn(
        f"{source}: read modified residues {shown} as their parent amino acids or nucleotides",
        ModifiedResidueWarning,
        stacklevel=3,
    )
    mapped = replace(atoms, res_name=res_name, atom_name=atom_name, hetero=hetero)
    return mapped.select(keep)


def _selenium_as_sulphur(atoms: Atoms, source: str) -> Atoms:
    """MET residues whose SD is an SE atom (selenomethionine renamed MET, its selenium left):
    the SE read as SD, as MSE's is, with one warning naming them; a MET that has both keeps
    its SD and loses the SE."""
    selenium = (atoms.res_name.astype(str) == "MET") & (atoms.atom_name.astype(str) == "SE")
    if not selenium.any():
        return atoms
    atom_name = atoms.atom_name.copy()
    atom_name[selenium] = "SD"
    found = {
        f"MET {c}.{n}{s}"
        for c, n, s in zip(
            atoms.chain[selenium], atoms.res_seq[selenium], atoms.ins_code[selenium], strict=True
        )
    }
    warnings.warn(
        f"{source}: read the SE atom of {listed(found)} (selenomethionine named MET) as SD",
        ModifiedResidueWarning,
        stacklevel=4,
    )
    # a residue with both an SD and an SE: the SD stays, the SE goes
    met = atoms.res_name.astype(str) == "MET"
    sd = np.flatnonzero(met & (atoms.atom_name.astype(str) == "SD"))
    has_sd = set(zip(atoms.chain[sd], atoms.res_seq[sd], atoms.ins_code[sd], strict=True))
    keep = np.ones(len(atoms), dtype=bool)
    for i in np.flatnonzero(selenium):
        keep[i] = (atoms.chain[i], atoms.res_seq[i], atoms.ins_code[i]) not in has_sd
    return replace(atoms, atom_name=atom_name).select(keep)
