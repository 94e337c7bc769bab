"""Keep solutions that satisfy restraints, as LightDock's ``lgd_filter_restraints.py``.

A solution's satisfaction is the fraction of restraint residues (receptor and ligand, active;
passive too on request) with an atom within ``cutoff`` Å of the other partner; solutions with a
non-positive score are dropped, as LightDock does. Which atoms of each partner count is a
choice per side: all (sparkledock's default), or, as LightDock's filter selects them, its
amino acids only (``protein``) or its nucleotides only (``nucleic``: ``--rnuc``/``--lnuc``).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.spatial import cKDTree

from ..errors import SparkledockWarning
from ..molecule.anm import AMINO_ACIDS, NUCLEIC
from ..molecule.restraints import Restraints
from ..molecule.structure import Atoms
from ..molecule.system import DockingSetup
from ..schema import DEFAULT_CONTACT_CUTOFF_A
from .models import complex_coordinates
from .options import MOLECULES, FilterOptions, check_filter_options
from .rank import Ranked

__all__ = ["MOLECULES", "Filtered", "filter_solutions", "molecule_mask", "satisfaction"]

#: Poses whose complex coordinates are built at once.
CHUNK = 32


MOLECULES_SAID = {"protein": "amino acids", "nucleic": "nucleotides (as asked)"}


def molecule_mask(atoms: Atoms, molecule: str) -> np.ndarray:
    """Atoms of ``molecule`` kind: ``all``, ``protein`` (amino acids) or ``nucleic``."""
    if molecule == "all":
        return np.ones(len(atoms), dtype=bool)
    names = AMINO_ACIDS if molecule == "protein" else NUCLEIC
    return np.isin(atoms.res_name.astype(str), list(names))


def _restraint_slots(ids: np.ndarray, want: list[str], use: np.ndarray) -> np.ndarray:
    """Per atom, the index of its residue in ``want`` (-1: not a restraint residue, or an
    atom that does not count)."""
    slot = {residue: k for k, residue in enumerate(dict.fromkeys(want))}
    out = np.array([slot.get(r, -1) for r in ids], dtype=np.int64)
    out[~use] = -1
    return out


def satisfaction(
    setup: DockingSetup,
    poses: np.ndarray,
    restraints: Restraints,
    cutoff: float = DEFAULT_CONTACT_CUTOFF_A,
    include_passive: bool = False,
    molecules: tuple[str, str] = ("all", "all"),
) -> np.ndarray:
    """Fraction of restraint residues in contact, per pose (P,); ``molecules``: which atoms
    of the receptor and of the ligand count (:data:`MOLECULES`).

    Per pose one tree over the ligand answers which receptor atoms (of those within its
    bounding sphere grown by the cutoff) are in contact; a ligand
    atom is in contact exactly when one of those receptor atoms is near it (the relation is
    symmetric), so a tree over them alone answers the ligand side."""
    n_rec = len(setup.receptor.atoms)
    rec_use = molecule_mask(setup.receptor.atoms, molecules[0])
    lig_use = molecule_mask(setup.ligand.atoms, molecules[1])
    rec_want = list(restraints.receptor.active) + (
        list(restraints.receptor.passive) if include_passive else []
    )
    lig_want = list(restraints.ligand.active) + (
        list(restraints.ligand.passive) if include_passive else []
    )
    total = len(rec_want) + len(lig_want)  # (LightDock's count: a listed duplicate counts)
    out = np.zeros(len(poses))
    for side, use, molecule in (
        ("receptor", rec_use, molecules[0]),
        ("ligand", lig_use, molecules[1]),
    ):
        if not use.any():
            warnings.warn(
                f"{setup.path}: the {side} has no {MOLECULES_SAID.get(molecule, 'atoms')}, so no "
                "contact counts and no solution satisfies a restraint",
                SparkledockWarning,
                stacklevel=2,
            )
    if total == 0 or not rec_use.any() or not lig_use.any():
        return out  # no restraint, or nothing of a kind: no contacts
    rec_slot = _restraint_slots(setup.receptor.atoms.residue_ids(), rec_want, rec_use)[rec_use]
    lig_slot = _restraint_slots(setup.ligand.atoms.residue_ids(), lig_want, lig_use)
    lig_asked = lig_slot >= 0
    lig_slot = lig_slot[lig_asked]
    # a few poses at a time: a large receptor's conformers are big
    for start in range(0, len(poses), CHUNK):
        chunk = complex_coordinates(setup, poses[start : start + CHUNK])
        for p, xyz in enumerate(chunk, start):
            rec, lig = xyz[:n_rec][rec_use], xyz[n_rec:]
            partner = lig[lig_use]
            # only receptor atoms within reach of the ligand's bounding sphere can touch it
            centre = partner.mean(axis=0)
            reach = np.sqrt(((partner - centre) ** 2).sum(axis=1).max()) + cutoff + 1e-6
            near = ((rec - centre) ** 2).sum(axis=1) <= reach * reach
            ids = np.flatnonzero(near)
            d = cKDTree(partner).query(rec[ids], distance_upper_bound=cutoff)[0]
            near[ids] = d <= cutoff
            hit = np.unique(rec_slot[near & (rec_slot >= 0)]).size
            if near.any() and lig_slot.size:
                d = cKDTree(rec[near]).query(lig[lig_asked], distance_upper_bound=cutoff)[0]
                hit += np.unique(lig_slot[d <= cutoff]).size
            out[p] = hit / total
    return out


@dataclass(frozen=True)
class Filtered:
    """A restraint filter's outcome: the solutions judged, in their order, each one's
    satisfaction, and which keep (satisfaction at least the fraction asked for and a positive
    score, as LightDock keeps them)."""

    ranking: list[Ranked]
    fractions: np.ndarray
    #: (P,) bool: which solutions keep
    keeps: np.ndarray

    @property
    def kept(self) -> list[Ranked]:
        """The solutions that keep, in their order."""
        return [r for r, keep in zip(self.ranking, self.keeps, strict=True) if keep]


def filter_solutions(
    setup: DockingSetup,
    ranking: list[Ranked],
    restraints: Restraints,
    fnat: float | None,
    cutoff: float = DEFAULT_CONTACT_CUTOFF_A,
    include_passive: bool = False,
    molecules: tuple[str, str] = ("all", "all"),
) -> Filtered:
    """Each ranked solution's restraint satisfaction (:func:`satisfaction`) and which keep
    (``fnat`` None: none, LightDock's filter without ``--fnat``), the cutoff and fraction
    checked before any work. What ``sparkledock filter``, ``lgd_filter_restraints.py`` and a
    restrained docking's filter stage share."""
    check_filter_options(FilterOptions(fnat, cutoff, include_passive, tuple(molecules)))
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    fractions = satisfaction(setup, poses, restraints, cutoff, include_passive, molecules)
    scores = np.array([r.score for r in ranking], dtype=np.float64)
    keeps = (
        (fractions >= fnat) & (scores > 0.0) if fnat is not None else np.zeros(len(ranking), bool)
    )
    return Filtered(ranking, fractions, keeps)
