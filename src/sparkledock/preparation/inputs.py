"""A setup's inputs read and checked before any work: both structures read, cleaned and
typed for the scoring function, the restraints against them, and what ``lightdock_*.pdb``
(fixed PDB columns) can hold; warnings for what is docked as given but looks like a mistake.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputFileError, RemnantWarning, SparkledockWarning
from ..io.restraints import read_any_restraints
from ..molecule.anm import backbone_remnants
from ..molecule.modified import listed
from ..molecule.residues import MEMBRANE_RESIDUE
from ..molecule.restraints import Restraints
from ..molecule.structure import PDB_COORDINATE_RANGE, Atoms, centred, clean, read_structure
from ..molecule.system import Partner
from ..scoring import check_installed, check_molecules, get_scoring
from .membrane import membrane_atoms

if TYPE_CHECKING:
    from .prepare import SetupOptions


def drop_remnants(atoms: Atoms, path: Path) -> Atoms:
    """A partner given normal modes without its backbone remnants (a lone N closing a cut
    chain: :func:`~..molecule.anm.backbone_remnants`), with one warning naming them; they
    cannot be network nodes, and otherwise the setup is refused."""
    remnant = backbone_remnants(atoms)
    if not remnant.any():
        return atoms
    shown = listed(set(atoms.residue_ids()[remnant]))
    warnings.warn(
        f"{path}: dropped backbone remnant(s) {shown} (no C-alpha, only backbone atoms: "
        "normal modes need a C-alpha per residue)",
        RemnantWarning,
        stacklevel=3,
    )
    return atoms.select(~remnant)


def clean_partner(raw: Atoms, path: Path, options: SetupOptions, modes: int = 0) -> Atoms:
    """A partner cleaned (LightDock's options, hetero groups dropped), its backbone remnants
    dropped when it gets ``modes`` normal modes, and typed for the scoring function."""
    atoms = clean(
        raw,
        remove_hydrogens=options.noh,
        remove_water=options.now,
        remove_oxt=options.noxt,
        map_modified=options.map_modified,
        source=str(path),
    )
    if modes:
        atoms = drop_remnants(atoms, path)
    if len(atoms) == 0:
        raise InputFileError(
            f"{path}: nothing left to dock after cleaning ({len(raw)} atoms, all hetero "
            "groups, waters or hydrogens)"
        )
    if options.scoring is None:
        return atoms
    function = get_scoring(options.scoring)
    check_molecules(function, Partner.rigid(atoms), str(path))
    keep = function.typed_atoms(
        Partner.rigid(atoms), source=str(path), skip_unknown=options.skip_unknown
    )
    if not keep.any():
        raise InputFileError(
            f"{path}: scoring {options.scoring!r} can type none of its {len(atoms)} atoms, "
            "so nothing is left to dock"
        )
    return atoms.select(keep)


@dataclass(frozen=True)
class ReadPartners:
    """Both partners as read (``raw``), cleaned and typed for the scoring function
    (``cleaned``) and centred (``centred``), each a (receptor, ligand) pair; and the
    restraints, checked against them."""

    raw: tuple[Atoms, Atoms]
    cleaned: tuple[Atoms, Atoms]
    centred: tuple[Atoms, Atoms]
    restraints: Restraints | None


def read_partners(
    receptor: Path,
    ligand: Path,
    restraints: str | os.PathLike[str] | None,
    options: SetupOptions,
    raw: tuple[Atoms, Atoms] | None = None,
) -> ReadPartners:
    """Everything a setup can refuse about its inputs, before any work: both structures read
    (``raw``: as already read from those files), cleaned and typed for the scoring function,
    their ``lightdock_*.pdb`` columns, every restraint residue present (one line naming the
    file and residue)."""
    if options.scoring is not None:  # (a setup for a function that cannot run here)
        check_installed(get_scoring(options.scoring), "scoring", options.scoring)
    if raw is None:
        raw = read_structure(receptor), read_structure(ligand)
    modes = (options.anm_rec, options.anm_lig) if options.anm else (0, 0)
    cleaned = (
        clean_partner(raw[0], receptor, options, modes[0]),
        clean_partner(raw[1], ligand, options, modes[1]),
    )
    moved = centred(cleaned[0]), centred(cleaned[1])
    for atoms, path in zip(moved, (receptor, ligand), strict=True):
        check_pdb_columns(atoms, path)
        warn_odd_atoms(atoms, path)
    beads = [int(membrane_atoms(atoms).sum()) for atoms in cleaned]
    if beads[1]:
        warnings.warn(
            f"{ligand}: {beads[1]} membrane bead(s) ({MEMBRANE_RESIDUE}) in the ligand: a "
            "membrane belongs to the receptor; they are docked as part of the ligand",
            SparkledockWarning,
            stacklevel=2,
        )
    if beads[0] and not (options.membrane or options.transmembrane):
        warnings.warn(
            SparkledockWarning(
                f"{receptor}: {beads[0]} membrane bead(s) ({MEMBRANE_RESIDUE}) without {{0}} or "
                "{1}: swarms may sit on either side of the membrane",
                ("membrane", "transmembrane"),
            ),
            stacklevel=2,
        )
    parsed: Restraints | None = None
    if restraints is not None:
        rpath = Path(restraints)
        parsed = read_any_restraints(rpath, *moved)
        for side, atoms, name in zip(
            ("receptor", "ligand"), moved, (receptor, ligand), strict=True
        ):
            ids = set(atoms.residue_ids())
            for kind in ("active", "passive", "blocked"):
                for rid in getattr(getattr(parsed, side), kind):
                    if rid not in ids:
                        raise InputFileError(f"{rpath}: {side} restraint {rid} not found in {name}")
    return ReadPartners(raw, cleaned, moved, parsed)


#: An atom farther than this (Å) from every other atom of its molecule is reported.
ISOLATED_A = 15.0


def warn_odd_atoms(atoms: Atoms, path: Path) -> None:
    """Warn of what is docked as given but is probably a mistake: atoms listed twice (same
    chain, residue and name) and atoms far from every other atom of the molecule."""
    keys = [
        f"{c}.{n}{i}.{a}"
        for c, n, i, a in zip(
            atoms.chain, atoms.res_seq, atoms.ins_code, atoms.atom_name, strict=True
        )
    ]
    unique, counts = np.unique(np.array(keys, dtype=object), return_counts=True)
    if (counts > 1).any():
        twice = unique[counts > 1]
        warnings.warn(
            f"{path}: {len(twice)} atom(s) listed more than once (first: {twice[0]}); "
            "each copy is docked",
            SparkledockWarning,
            stacklevel=3,
        )
    if len(atoms) > 1:
        from scipy.spatial import cKDTree

        distance, _ = cKDTree(atoms.coords).query(atoms.coords, k=2)
        far = np.flatnonzero(distance[:, 1] > ISOLATED_A)
        if len(far):
            i = int(far[0])
            warnings.warn(
                f"{path}: atom {atoms.atom_name[i]} of {atoms.res_name[i]} {atoms.chain[i]}."
                f"{atoms.res_seq[i]} is {distance[i, 1]:.0f} Å from every other atom"
                f"{f' ({len(far)} such atoms)' if len(far) > 1 else ''}; it is docked as part "
                "of the molecule",
                SparkledockWarning,
                stacklevel=3,
            )


def check_pdb_columns(atoms: Atoms, path: Path) -> None:
    """Refuse, before any work, a partner whose ``lightdock_*.pdb`` (centred coordinates in
    PDB's fixed columns, which LightDock and sparkledock read back) cannot hold it: a
    coordinate outside ``%8.3f``, a residue number outside 4 columns, a chain name longer
    than one character. Atom serials are labels: past 99,999 they wrap, with a warning."""
    low, high = PDB_COORDINATE_RANGE
    bad = ~((atoms.coords > low) & (atoms.coords < high)).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputFileError(
            f"{path}: atom {atoms.atom_name[i]} of {atoms.res_name[i]} {atoms.chain[i]}."
            f"{atoms.res_seq[i]} lies at {atoms.coords[i].round(1).tolist()} Å from the "
            f"molecule's centre, beyond PDB's coordinate columns ({low:.0f} to {high:.0f}); "
            "is it part of the molecule?"
        )
    seq = atoms.res_seq
    if len(seq) and (seq.min() < -999 or seq.max() > 9999):
        i = int(np.flatnonzero((seq < -999) | (seq > 9999))[0])
        raise InputFileError(
            f"{path}: residue {atoms.res_name[i]} {atoms.chain[i]}.{seq[i]}: residue numbers "
            "must fit PDB's four columns (-999 to 9999); renumber it"
        )
    long = [str(c) for c in np.unique(atoms.chain.astype(str)) if len(c) > 1]
    if long:
        raise InputFileError(
            f"{path}: chain {long[0]!r}: LightDock's files take one-character chain names; "
            "rename it"
        )
    if len(atoms.serial) and int(atoms.serial.max()) > 99_999:
        warnings.warn(
            f"{path}: atom serial numbers past 99,999 wrap round in lightdock_*.pdb (they are "
            "labels; LightDock reads five columns)",
            SparkledockWarning,
            stacklevel=3,
        )
