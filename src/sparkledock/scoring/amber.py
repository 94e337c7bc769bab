"""AMBER94 atom parameters as LightDock's vdw, cpydock and dna functions assign them.

The table (``data/amber94.json``, packed from LightDock 0.9.4 by ``scripts/pack_amber.py``)
gives per ``RESIDUE-ATOM`` the AMBER type and partial charge, and per type the
Lennard-Jones well depth and radius. LightDock's typing quirks, kept: ``HIS`` is typed as
``HID`` (neutral, proton on δ), and the atom names ``OP1`` / ``OP2`` are read as ``O1P`` /
``O2P``. Nucleotides carry LightDock's AMBER residue names (``DA``, ``RU``, ``DA5``, …).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from ..errors import SkippedAtomWarning, UnsupportedAtomError
from ..molecule.system import Partner

#: residue names LightDock renames before the lookup (vdw, cpydock)
#: RNA's plain names (``A C G U``, what the PDB writes and what force-field names such as
#: ``RA``/``RU5`` are read as) are the table's ``RA RC RG RU``: LightDock knows RNA only by
#: those, so a file it cannot type is typed here, and nothing it can is typed otherwise
RNA_ALIASES = {b: f"R{b}" for b in "ACGU"}
RESIDUE_ALIASES = {"HIS": "HID", **RNA_ALIASES}
#: LightDock's dna function renames nucleotides' long names too
DNA_RESIDUE_ALIASES = {
    "HIS": "HID", "THY": "DT", "ADE": "DA", "CYT": "DC", "GUA": "DG", **RNA_ALIASES,
}  # fmt: skip
#: N-terminal hydrogens LightDock's dna function types as the backbone H
_NTERM_H = ("H1", "H2", "H3")


@cache
def amber_table() -> dict:
    """The packed AMBER94 table (read once)."""
    text = resources.files("sparkledock").joinpath("data/amber94.json").read_text()
    return json.loads(text)


@dataclass(frozen=True)
class AmberAtoms:
    """Per atom: partial charge (e), Lennard-Jones well depth (kcal/mol) and radius (Å), and
    the AMBER type name."""

    types: np.ndarray
    charge: np.ndarray
    epsilon: np.ndarray
    radius: np.ndarray


def _dna_entry(key: str, atoms_table: dict) -> list | None:
    """LightDock's dna typing of one ``RES-ATOM``: N-terminal H1/H2/H3 take the type and
    charge of H. (Its fallback to N-terminal charges never fires: every typed atom has a
    charge in the same table.)"""
    res, _, name = key.partition("-")
    if key not in atoms_table and name in _NTERM_H:
        key = f"{res}-H"
    return atoms_table.get(key)


def amber_atoms(
    partner: Partner,
    *,
    function: str,
    source: str = "structure",
    skip_unknown: bool = False,
    dna_rules: bool = False,
    translate_names: bool = True,
) -> tuple[AmberAtoms, np.ndarray]:
    """AMBER parameters of every atom and a mask of the atoms kept (``dna_rules``: LightDock's
    dna function's residue names and N-terminal hydrogens).

    Raises:
        UnsupportedAtomError: an atom the table has no entry for, naming ``source`` and the
            residue (unless ``skip_unknown``: such atoms are dropped with a warning).
    """
    table = amber_table()
    translate, atoms_table, lj = table["translate"], table["atoms"], table["lennard_jones"]
    if not translate_names:  # (LightDock's sd reads OP1/OP2 as they are)
        translate = {}
    atoms = partner.atoms
    aliases = DNA_RESIDUE_ALIASES if dna_rules else RESIDUE_ALIASES
    keys = [
        f"{aliases.get(r, r)}-{translate.get(a, a)}"
        for r, a in zip(atoms.res_name, atoms.atom_name, strict=True)
    ]
    if dna_rules:
        entries = [_dna_entry(k, atoms_table) for k in keys]
    else:
        entries = [atoms_table.get(k) for k in keys]
    known = np.array([e is not None for e in entries], dtype=bool)
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        where = f"chain {atoms.chain[i]} {atoms.res_name[i]} {atoms.res_seq[i]}{atoms.ins_code[i]}"
        message = (
            f"{source}: {function} (AMBER94) has no parameters for atom {atoms.atom_name[i]} "
            f"of residue {where}; {int((~known).sum())} such atoms in all"
        )
        if not skip_unknown:
            raise UnsupportedAtomError(message + " (use {0} to drop them)", "skip_unknown")
        warnings.warn(message + ", skipped", SkippedAtomWarning, stacklevel=3)
    kept = [e for e in entries if e is not None]
    types = np.array([e[0] for e in kept], dtype=object)
    return (
        AmberAtoms(
            types=types,
            charge=np.array([e[1] for e in kept], dtype=np.float64),
            epsilon=np.array([lj[t][0] for t in types], dtype=np.float64),
            radius=np.array([lj[t][1] for t in types], dtype=np.float64),
        ),
        known,
    )
