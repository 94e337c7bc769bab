"""Residues in contact over many poses: ``lgd_map_contacts.py``'s contact map of where a
docking's glowworms touched the receptor, and the interface of each top model with a
consensus over them (what HADDOCK and PRODIGY users read first)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from scipy.spatial import cKDTree

if TYPE_CHECKING:
    from ..molecule.system import DockingSetup

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


#: Residues with an atom this close (Å) to the other partner are at the interface (the
#: cutoff of fnat and of the restraint filter).
INTERFACE_A = 5.0


def pose_interfaces(
    setup: DockingSetup, poses: np.ndarray, cutoff: float = INTERFACE_A
) -> list[tuple[list[str], list[str]]]:
    """Per pose, its receptor and ligand interface residues (LightDock ids such as
    ``A.LYS.24``, in sequence order): residues with an atom within ``cutoff`` of the other
    partner."""
    from .models import complex_coordinates

    rec_ids = np.asarray(setup.receptor.atoms.residue_ids(), dtype=object)
    lig_ids = np.asarray(setup.ligand.atoms.residue_ids(), dtype=object)
    n_rec = len(rec_ids)
    out = []
    for xyz in complex_coordinates(setup, np.atleast_2d(poses)):
        rec, lig = xyz[:n_rec], xyz[n_rec:]
        near_rec = cKDTree(lig).query(rec, distance_upper_bound=cutoff + 1e-6)[0] <= cutoff
        near_lig = cKDTree(rec).query(lig, distance_upper_bound=cutoff + 1e-6)[0] <= cutoff
        out.append(
            (
                list(dict.fromkeys(rec_ids[near_rec].tolist())),
                list(dict.fromkeys(lig_ids[near_lig].tolist())),
            )
        )
    return out


def consensus_interface(interfaces: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[dict]:
    """Per residue at any of the models' interfaces: its partner, id and in how many of the
    models it is; most frequent first, then receptor before ligand, then sequence order."""
    rows: dict[tuple[str, str], dict] = {}
    for k, (rec, lig) in enumerate(interfaces):
        for partner, residues in (("receptor", rec), ("ligand", lig)):
            for order, residue in enumerate(residues):
                row = rows.setdefault(
                    (partner, residue),
                    {"partner": partner, "residue": residue, "models": 0, "_order": (k, order)},
                )
                row["models"] += 1
    ranked = sorted(
        rows.values(), key=lambda r: (-r["models"], r["partner"] != "receptor", r["_order"])
    )
    return [{k: v for k, v in r.items() if k != "_order"} for r in ranked]
