"""Receptor residues in contact with the ligand over many poses: ``lgd_map_contacts.py``'s
contact map of where a docking's glowworms touched the receptor."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

#: LightDock's atomic contact distance (Å): atoms at most this far apart touch.
ATOM_CONTACT_A = 3.9


def residue_contact_counts(
    receptor: np.ndarray,
    ligand: np.ndarray,
    residue: np.ndarray,
    n_residues: int,
    cutoff: float = ATOM_CONTACT_A,
) -> np.ndarray:
    """How many poses have each receptor residue in contact: (n_residues,) int.

    ``receptor`` (P, N, 3) and ``ligand`` (P, M, 3) are the partners' coordinates in each
    pose, ``residue`` (N,) each receptor atom's residue index. A residue is in contact in a
    pose when any of its atoms is within ``cutoff`` of any ligand atom; it counts once per
    pose however many of its atoms touch.
    """
    counts = np.zeros(n_residues, dtype=np.int64)
    for rec, lig in zip(receptor, ligand, strict=True):
        # a hair over the cutoff so that the tree misses nothing at it; <= decides
        near, _ = cKDTree(lig).query(rec, distance_upper_bound=cutoff + 1e-6)
        counts[np.unique(residue[near <= cutoff])] += 1
    return counts


def normalised_frequencies(counts: np.ndarray) -> np.ndarray:
    """Counts as ``lgd_map_contacts.py`` writes them into B-factors: 100 × count / ‖counts‖₂
    (zeros when nothing touched)."""
    norm = float(np.linalg.norm(counts.astype(np.float64)))
    if norm == 0.0:
        return np.zeros(len(counts))
    return counts / norm * 100.0
