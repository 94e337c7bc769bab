"""Swarm centres on the receptor surface, placed the way LightDock 0.9.4 places them.

1. Cluster the receptor's surface atoms into ``count`` groups (k-means); their centroids.
2. Around each centroid, 100 points on a sphere whose radius is a quarter of the ligand's
   largest diameter (10 Å for ligands under 20 Å).
3. Drop points closer to another centroid than that radius, and points within 3 Å of any
   receptor atom (inside the receptor).
4. Cluster what is left into ``count`` centres (k-means++).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.cluster.vq import kmeans2
from scipy.spatial import cKDTree
from scipy.spatial.distance import pdist

from ..structure import Atoms
from .surface import atom_sasa, sphere_points

SPHERE_POINTS_PER_CENTROID = 100
MIN_SURFACE_DISTANCE_A = 10.0
INTERIOR_CUTOFF_A = 3.0
NEIGHBOUR_CENTROIDS_A = 20.0
SURFACE_ATOM_MIN_SASA_A2 = 1.0


def surface_distance(ligand: Atoms) -> float:
    """How far from the surface atoms swarm centres sit: a quarter of the ligand's largest
    diameter, or 10 Å for ligands under 20 Å across (LightDock's rule)."""
    diameter = float(pdist(ligand.coords).max()) if len(ligand) > 1 else 0.0
    if diameter < 2 * MIN_SURFACE_DISTANCE_A:
        return MIN_SURFACE_DISTANCE_A
    return diameter / 4.0


def swarm_centres(
    receptor: Atoms,
    ligand: Atoms,
    count: int,
    seed: int = 324324,
    near: np.ndarray | None = None,
    near_distance: float = 10.0,
) -> np.ndarray:
    """``count`` swarm centres (or fewer if the surface offers fewer), (n, 3), in the
    receptor's frame. With ``near`` (coordinates of restraint residues' atoms), only surface
    atoms within ``near_distance`` of them, and those atoms, seed the swarms."""
    sasa = atom_sasa(receptor)
    exposed = sasa > SURFACE_ATOM_MIN_SASA_A2
    if near is not None and len(near):
        close = cKDTree(near).query(receptor.coords)[0]
        exposed = (exposed & (close <= near_distance)) | (close == 0.0)
    surface = receptor.coords[exposed]
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kmeans2 warns about empty clusters
        centroids = (
            kmeans2(surface, count, minit="points", seed=rng, iter=100)[0]
            if len(surface) > count
            else surface
        )
    radius = surface_distance(ligand)
    shell = sphere_points(SPHERE_POINTS_PER_CENTROID) * radius
    candidates = (centroids[:, None, :] + shell[None, :, :]).reshape(-1, 3)
    owner = np.repeat(np.arange(len(centroids)), len(shell))
    # drop points nearer to another centroid than the radius
    centroid_tree = cKDTree(centroids)
    near = centroid_tree.query_ball_point(candidates, r=radius)
    keep = np.array([all(c == o for c in cs) for cs, o in zip(near, owner, strict=True)])
    candidates = candidates[keep]
    # drop points inside the receptor
    atom_tree = cKDTree(receptor.coords)
    inside = np.array(
        [bool(x) for x in atom_tree.query_ball_point(candidates, INTERIOR_CUTOFF_A)], dtype=bool
    )
    candidates = candidates[~inside] if len(candidates) else candidates
    if len(candidates) <= count:
        return candidates
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return kmeans2(candidates, count, minit="++", seed=rng, iter=500)[0]
