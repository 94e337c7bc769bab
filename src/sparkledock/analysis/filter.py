"""Keep solutions that satisfy restraints, as LightDock's ``lgd_filter_restraints.py``.

A solution's satisfaction is the fraction of restraint residues (receptor and ligand, active;
passive too on request) with an atom within ``cutoff`` Å of the other partner; solutions with a
non-positive score are dropped, as LightDock does. Which atoms of each partner count is a
choice per side: all (sparkledock's default), or, as LightDock's filter selects them, its
amino acids only (``protein``) or its nucleotides only (``nucleic``: ``--rnuc``/``--lnuc``).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..anm import AMINO_ACIDS, NUCLEIC
from ..restraints import Restraints
from ..structure import Atoms
from ..system import DockingSetup
from .models import complex_coordinates

DEFAULT_CONTACT_CUTOFF_A = 5.0
#: Poses whose complex coordinates are built at once.
CHUNK = 32


#: Which atoms of a partner take part in contacts.
MOLECULES = ("all", "protein", "nucleic")


def molecule_mask(atoms: Atoms, molecule: str) -> np.ndarray:
    """Atoms of ``molecule`` kind: ``all``, ``protein`` (amino acids) or ``nucleic``."""
    if molecule == "all":
        return np.ones(len(atoms), dtype=bool)
    names = AMINO_ACIDS if molecule == "protein" else NUCLEIC
    return np.isin(atoms.res_name.astype(str), list(names))


def satisfaction(
    setup: DockingSetup,
    poses: np.ndarray,
    restraints: Restraints,
    cutoff: float = DEFAULT_CONTACT_CUTOFF_A,
    include_passive: bool = False,
    molecules: tuple[str, str] = ("all", "all"),
) -> np.ndarray:
    """Fraction of restraint residues in contact, per pose (P,); ``molecules``: which atoms
    of the receptor and of the ligand count (:data:`MOLECULES`)."""
    n_rec = len(setup.receptor.atoms)
    rec_use = molecule_mask(setup.receptor.atoms, molecules[0])
    lig_use = molecule_mask(setup.ligand.atoms, molecules[1])
    rec_ids = setup.receptor.atoms.residue_ids()
    lig_ids = setup.ligand.atoms.residue_ids()
    rec_want = list(restraints.receptor.active) + (
        list(restraints.receptor.passive) if include_passive else []
    )
    lig_want = list(restraints.ligand.active) + (
        list(restraints.ligand.passive) if include_passive else []
    )
    total = len(rec_want) + len(lig_want)
    out = np.zeros(len(poses))
    if total == 0:
        return out
    # a few poses at a time: a large receptor's conformers are big
    for start in range(0, len(poses), CHUNK):
        chunk = complex_coordinates(setup, poses[start : start + CHUNK])
        for p, xyz in enumerate(chunk, start):
            rec, lig = xyz[:n_rec][rec_use], xyz[n_rec:][lig_use]
            if len(rec) == 0 or len(lig) == 0:
                continue  # nothing of that kind: no contacts
            rec_near = cKDTree(lig).query(rec, distance_upper_bound=cutoff)[0] <= cutoff
            lig_near = cKDTree(rec).query(lig, distance_upper_bound=cutoff)[0] <= cutoff
            hit = len(set(rec_ids[rec_use][rec_near]) & set(rec_want)) + len(
                set(lig_ids[lig_use][lig_near]) & set(lig_want)
            )
            out[p] = hit / total
    return out
