"""Ranking methods for the solutions of a docking: pure functions over arrays.

A docking leaves, per swarm, its final glowworms and its cluster representatives. LightDock
ranks the representatives of all swarms by score alone (``dfire``); in blind docking the
search finds near-native poses far more often than that ranking puts them first. The methods
here reorder the same representatives:

* ``dfire``: by score (LightDock's ``lgd_rank.py``).
* ``population``: by how many of *all* final glowworms, over every swarm, sit within
  :data:`POPULATION_RADIUS_A` ligand RMSD of the representative (ClusPro's observation that
  near-native solutions form the most populated low-energy clusters: Kozakov et al., Proteins
  65:392, 2006), ties by score.

Poses are compared through a few ligand landmarks (C-alpha or C4' atoms spread over the
ligand by farthest-point sampling): their RMSD tracks the ligand RMSD of the whole backbone
closely, and a k-d tree over them counts neighbours among tens of thousands of glowworms in
well under a second.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..system import DockingSetup
from .models import complex_coordinates

#: Landmark atoms per ligand.
LANDMARKS = 12
#: Ligand RMSD (Å, over the landmarks) within which a glowworm counts for a representative.
POPULATION_RADIUS_A = 4.0
METHODS = ("dfire", "population")


def landmark_atoms(setup: DockingSetup, count: int = LANDMARKS) -> np.ndarray:
    """Indices (into the complex's atoms) of ``count`` ligand atoms spread over the ligand:
    farthest-point sampling of its C-alpha / C4' atoms (all atoms if it has none),
    starting from the one nearest the ligand's centre."""
    lig = setup.ligand.atoms
    names = lig.atom_name.astype(str)
    pool = np.flatnonzero((names == "CA") | (names == "C4'"))
    if len(pool) == 0:
        pool = np.arange(len(lig))
    xyz = lig.coords[pool]
    chosen = [int(np.argmin(((xyz - xyz.mean(axis=0)) ** 2).sum(axis=1)))]
    gap = ((xyz - xyz[chosen[0]]) ** 2).sum(axis=1)
    while len(chosen) < min(count, len(pool)):
        nxt = int(np.argmax(gap))
        chosen.append(nxt)
        gap = np.minimum(gap, ((xyz - xyz[nxt]) ** 2).sum(axis=1))
    return len(setup.receptor.atoms) + pool[np.array(chosen)]


def landmarks(setup: DockingSetup, poses: np.ndarray, atoms: np.ndarray) -> np.ndarray:
    """(P, K·3) landmark coordinates of poses (receptor frame), flattened for a k-d tree."""
    select = np.zeros(len(setup.receptor.atoms) + len(setup.ligand.atoms), dtype=bool)
    select[atoms] = True
    xyz = complex_coordinates(setup, poses, select=select)
    order = np.argsort(np.argsort(atoms))  # landmarks in the requested order
    n_rec = int(select[: len(setup.receptor.atoms)].sum())
    return xyz[:, n_rec:][:, order].reshape(len(poses), -1)


def population(
    representatives: np.ndarray, everyone: np.ndarray, radius: float = POPULATION_RADIUS_A
) -> np.ndarray:
    """Per representative (rows of flattened landmarks), how many of ``everyone`` lie within
    ``radius`` Å landmark RMSD of it (itself included when it is among them)."""
    k = representatives.shape[1] // 3
    tree = cKDTree(everyone)
    hits = tree.query_ball_point(representatives, r=radius * np.sqrt(k), return_length=True)
    return np.asarray(hits, dtype=np.int64)


def order(method: str, scores: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Indices of the representatives, best first, by ``method`` (:data:`METHODS`).

    Ties keep the score order (then the input order), so the result is deterministic.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if method == "dfire":
        return np.lexsort((np.arange(len(scores)), -scores))
    if method == "population":
        if counts is None:
            raise ValueError("population ranking needs the population counts")
        return np.lexsort((np.arange(len(scores)), -scores, -np.asarray(counts)))
    raise ValueError(f"unknown ranking method {method!r} (known: {', '.join(METHODS)})")
