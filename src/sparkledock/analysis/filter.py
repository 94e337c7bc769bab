"""Keep solutions that satisfy restraints, as LightDock's ``lgd_filter_restraints.py``.

A solution's satisfaction is the fraction of restraint residues (receptor and ligand, active;
passive too on request) with an atom within ``cutoff`` Å of the other partner; solutions with a
non-positive score are dropped, as LightDock does.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..restraints import Restraints
from ..system import DockingSetup
from .models import complex_coordinates

DEFAULT_CONTACT_CUTOFF_A = 5.0
#: Poses whose complex coordinates are built at once.
CHUNK = 32


def satisfaction(
    setup: DockingSetup,
    poses: np.ndarray,
    restraints: Restraints,
    cutoff: float = DEFAULT_CONTACT_CUTOFF_A,
    include_passive: bool = False,
) -> np.ndarray:
    """Fraction of restraint residues in contact, per pose (P,)."""
    n_rec = len(setup.receptor.atoms)
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
            rec, lig = xyz[:n_rec], xyz[n_rec:]
            rec_near = cKDTree(lig).query(rec, distance_upper_bound=cutoff)[0] <= cutoff
            lig_near = cKDTree(rec).query(lig, distance_upper_bound=cutoff)[0] <= cutoff
            hit = len(set(rec_ids[rec_near]) & set(rec_want)) + len(
                set(lig_ids[lig_near]) & set(lig_want)
            )
            out[p] = hit / total
    return out
