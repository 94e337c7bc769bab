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
from ..molecule.restraints import Restraints, knowledge_of
from ..molecule.structure import Atoms
from ..molecule.system import DockingSetup
from ..schema import DEFAULT_CONTACT_CUTOFF_A
from .models import complex_coordinates
from .options import MOLECULES, FilterOptions, check_filter_options
from .rank import Ranked

__all__ = [
    "MOLECULES",
    "Filtered",
    "filter_solutions",
    "molecule_mask",
    "pair_distances",
    "satisfaction",
]

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
    score, as LightDock keeps them; with a distance for one pair, those with the pair within
    it where any is: ``pairs``, each solution's pair distance, says so)."""

    ranking: list[Ranked]
    fractions: np.ndarray
    #: (P,) bool: which solutions keep
    keeps: np.ndarray
    #: (P,) the given pair's closest atoms' distance (Å) where the pair decided what keeps
    pairs: np.ndarray | None = None

    @property
    def kept(self) -> list[Ranked]:
        """The solutions that keep, in their order."""
        return [r for r, keep in zip(self.ranking, self.keeps, strict=True) if keep]


def pair_distances(setup: DockingSetup, poses: np.ndarray, restraints: Restraints) -> np.ndarray:
    """Per pose, the distance (Å) between the closest atoms of the one receptor and the one
    ligand residue a file of one pair gives (the level "one pair",
    :func:`~sparkledock.molecule.restraints.knowledge_of`)."""
    sides = [set(s.active) | set(s.passive) for s in (restraints.receptor, restraints.ligand)]
    if [len(side) for side in sides] != [1, 1]:
        raise ValueError("pair_distances: restraints of one receptor and one ligand residue")
    rec = np.isin(setup.receptor.atoms.residue_ids(), list(sides[0]))
    lig = np.isin(setup.ligand.atoms.residue_ids(), list(sides[1]))
    n_rec = int(rec.sum())
    out = np.full(len(poses), np.inf)
    if not n_rec or not lig.any():  # (a residue the setup dropped: never in contact)
        return out
    select = np.concatenate([rec, lig])
    for first in range(0, len(poses), CHUNK):
        xyz = complex_coordinates(setup, poses[first : first + CHUNK], select)
        a, b = xyz[:, :n_rec], xyz[:, n_rec:]
        gaps = np.sqrt(((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(axis=-1))
        out[first : first + len(xyz)] = gaps.min(axis=(1, 2))
    return out


def filter_solutions(
    setup: DockingSetup,
    ranking: list[Ranked],
    restraints: Restraints,
    fnat: float | None,
    cutoff: float = DEFAULT_CONTACT_CUTOFF_A,
    include_passive: bool = False,
    molecules: tuple[str, str] = ("all", "all"),
    pair_within: float | None = None,
) -> Filtered:
    """Each ranked solution's restraint satisfaction (:func:`satisfaction`) and which keep
    (``fnat`` None: none, LightDock's filter without ``--fnat``), the cutoff and fraction
    checked before any work. What ``sparkledock filter``, ``lgd_filter_restraints.py`` and a
    restrained docking's filter stage share. ``pair_within`` (a file of one pair): the
    solutions with a positive score whose two residues are within it of each other keep
    instead, where any is (on 59 training TI-SINGLE dockings, 8 Å lost no acceptable first
    model and lifted two into the top 5 / 10: benchmarks/notebook/performance.md, "one pair
    in contact")."""
    options = FilterOptions(fnat, cutoff, include_passive, tuple(molecules), pair_within)
    check_filter_options(options)
    poses = np.array([r.pose for r in ranking]).reshape(-1, setup.layout.size)
    fractions = satisfaction(setup, poses, restraints, cutoff, include_passive, molecules)
    scores = np.array([r.score for r in ranking], dtype=np.float64)
    keeps = (
        (fractions >= fnat) & (scores > 0.0) if fnat is not None else np.zeros(len(ranking), bool)
    )
    if pair_within is not None and knowledge_of(restraints).level == "one pair":
        pairs = pair_distances(setup, poses, restraints)
        close = (pairs <= pair_within) & (scores > 0.0)
        if close.any():
            return Filtered(ranking, fractions, close, pairs)
    return Filtered(ranking, fractions, keeps)
