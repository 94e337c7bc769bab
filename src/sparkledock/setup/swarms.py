"""Swarm centres on the receptor surface, placed the way LightDock 0.9.4 places them.

1. Cluster the receptor's surface atoms (exposed atoms of amino acids, the phosphorus of
   nucleotides) into ``count`` groups (k-means); their centroids.
2. Around each centroid, 100 points on a sphere whose radius is a quarter of the ligand's
   largest diameter (10 Å for ligands under 20 Å).
3. Drop points closer to another centroid than that radius, and points within 3 Å of any
   receptor atom (inside the receptor).
4. With receptor restraints, drop points whose line of sight to the nearest restraint residue
   runs inside the receptor for more than half its length (the occlusion filter).
5. Cluster what is left into ``count`` centres (k-means++).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import ConvexHull, QhullError, cKDTree
from scipy.spatial.distance import pdist

from ..anm import NUCLEIC
from ..seeds import DEFAULT_SEED
from ..structure import Atoms
from .kmeans import kmeans
from .surface import atom_sasa, sphere_points

SPHERE_POINTS_PER_CENTROID = 100
MIN_SURFACE_DISTANCE_A = 10.0
INTERIOR_CUTOFF_A = 3.0
NEIGHBOUR_CENTROIDS_A = 20.0
SURFACE_ATOM_MIN_SASA_A2 = 1.0
#: A point is occluded when more than this fraction of its probes in a row lie inside the hull.
OCCLUSION_TOLERANCE = 0.5
HULL_TOLERANCE = 1e-12
_OCCLUSION_CHUNK = 512


def surface_distance(ligand: Atoms, fixed: float = 0.0) -> float:
    """How far from the surface atoms swarm centres sit: ``fixed`` when positive (LightDock's
    ``-fd``), else a quarter of the ligand's largest diameter, or 10 Å for ligands under 20 Å
    across (LightDock's rule)."""
    if fixed > 0.0:
        return float(fixed)
    diameter = float(pdist(ligand.coords).max()) if len(ligand) > 1 else 0.0
    if diameter < 2 * MIN_SURFACE_DISTANCE_A:
        return MIN_SURFACE_DISTANCE_A
    return diameter / 4.0


def swarm_centres(
    receptor: Atoms,
    ligand: Atoms,
    count: int,
    seed: int = DEFAULT_SEED,
    near: np.ndarray | None = None,
    near_distance: float = 10.0,
    sights: np.ndarray | None = None,
    sasa: np.ndarray | None = None,
    fixed_distance: float = 0.0,
    dense: bool = False,
) -> np.ndarray:
    """``count`` swarm centres (or fewer if the surface offers fewer), (n, 3), in the
    receptor's frame. With ``near`` (coordinates of restraint residues' atoms), only surface
    atoms within ``near_distance`` of them, and those atoms, seed the swarms. With ``sights``
    (one central atom per restraint residue), points that cannot see their nearest restraint
    past the receptor are dropped (see :func:`visible`). ``sasa``: the receptor's per-atom
    accessible area, when the caller has it already. ``fixed_distance``: see
    :func:`surface_distance`. ``dense`` (LightDock's ``--ds``): every point that survives
    the filters is a swarm centre (no final clustering into ``count``)."""
    sasa = atom_sasa(receptor) if sasa is None else sasa
    exposed = surface_atoms(receptor, sasa)
    if near is not None and len(near):
        close = cKDTree(near).query(receptor.coords)[0]
        exposed = (exposed & (close <= near_distance)) | (close == 0.0)
    surface = receptor.coords[exposed]
    rng = np.random.default_rng(seed)
    centroids = kmeans(surface, count, 100, rng, "points") if len(surface) > count else surface
    radius = surface_distance(ligand, fixed_distance)
    shell = sphere_points(SPHERE_POINTS_PER_CENTROID) * radius
    candidates = (centroids[:, None, :] + shell[None, :, :]).reshape(-1, 3)
    owner = np.repeat(np.arange(len(centroids)), len(shell))
    # drop points nearer to another centroid than the radius
    candidates = candidates[~_near_other(candidates, owner, centroids, radius)]
    # drop points inside the receptor
    if len(candidates):
        inside = cKDTree(receptor.coords).query(candidates)[0] <= INTERIOR_CUTOFF_A
        candidates = candidates[~inside]
    if sights is not None and len(sights) and len(candidates):
        candidates = candidates[visible(candidates, sights, centroids)]
    if len(candidates) <= count or dense:
        return candidates
    return kmeans(candidates, count, 500, rng, "++")


def surface_atoms(receptor: Atoms, sasa: np.ndarray) -> np.ndarray:
    """Atoms that seed swarms: exposed atoms of amino acids (and other groups), and the
    phosphorus atoms of nucleotides (LightDock's ``nucleic and name P``)."""
    nucleic = np.isin(receptor.res_name.astype(str), list(NUCLEIC))
    phosphorus = receptor.atom_name.astype(str) == "P"
    return np.where(nucleic, phosphorus, sasa > SURFACE_ATOM_MIN_SASA_A2)


def _near_other(
    points: np.ndarray, owner: np.ndarray, centroids: np.ndarray, radius: float
) -> np.ndarray:
    """Which points have a centroid other than their owner within ``radius`` (inclusive)."""
    k = min(2, len(centroids))
    distance, index = cKDTree(centroids).query(points, k=k)
    distance, index = distance.reshape(len(points), k), index.reshape(len(points), k)
    other = index != owner[:, None]
    return ((distance <= radius) & other).any(axis=1)


def visible(points: np.ndarray, sights: np.ndarray, hull_points: np.ndarray) -> np.ndarray:
    """Which ``points`` see their nearest ``sights`` point past the receptor, (n,) bool.

    LightDock's occlusion test: probes every ångström along the segment from the point to its
    nearest sight point (ceil(length) intervals, both ends included); the point is occluded
    when the longest run of consecutive probes inside the convex hull of ``hull_points``
    (the surface centroids) exceeds half the number of intervals. Where the hull is
    degenerate (fewer than four points, or flat) nothing is occluded.
    """
    try:
        equations = ConvexHull(hull_points).equations
    except (QhullError, ValueError):
        return np.ones(len(points), dtype=bool)
    normals, offsets = equations[:, :3], equations[:, 3]
    distance, nearest = cKDTree(sights).query(points)
    intervals = np.ceil(distance).astype(np.int64)
    longest = np.zeros(len(points), dtype=np.int64)
    for lo in range(0, len(points), _OCCLUSION_CHUNK):
        part = slice(lo, lo + _OCCLUSION_CHUNK)
        start, stop, m = points[part], sights[nearest[part]], intervals[part]
        k = np.arange(int(m.max()) + 1)
        step = (stop - start) / np.maximum(m, 1)[:, None]
        probes = start[:, None, :] + k[None, :, None] * step[:, None, :]
        ends = k[None, :] == m[:, None]
        probes[ends] = stop  # the last probe is the sight point itself, as in linspace
        inside = ((probes @ normals.T + offsets) <= HULL_TOLERANCE).all(axis=2)
        inside &= k[None, :] <= m[:, None]
        run = np.zeros(len(m), dtype=np.int64)
        for column in inside.T:
            run = np.where(column, run + 1, 0)
            longest[part] = np.maximum(longest[part], run)
    return longest <= OCCLUSION_TOLERANCE * intervals
