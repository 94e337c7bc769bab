"""Swarm centres on the receptor surface, placed as LightDock 0.9.4 places them, bit for bit.

1. Cluster the seed atoms of the receptor file (see :mod:`.selections`: atoms of hydrophilic
   residues, the phosphorus of nucleotides, hetero groups; with restraints, that surface within
   10 Å of the restraint residues) into ``count`` groups: SciPy's ``kmeans2`` (100 iterations,
   ``minit="points"``), reimplemented in :mod:`.kmeans` for speed with equal bits.
2. Around each centroid, LightDock's spiral of 100 points on a sphere whose radius is a quarter
   of the ligand's largest diameter (10 Å for ligands under 20 Å, or ``-fd``).
3. Drop points within that radius of another centroid (LightDock checks the centroids within
   20 Å of the point's own), and points within 3 Å of an atom of the molecule.
4. With receptor restraints, drop points whose line of sight to the nearest restraint residue
   runs inside the centroids' hull for more than half its length (the occlusion filter).
5. Cluster what is left into ``count`` centres (k-means++, 500 iterations) unless dense.

sparkledock's restraint-focused rule (``spacing`` > 0) changes only step 5's count: as many
centres as it takes to cover the surviving points so that none is farther than ``spacing``
from a centre (:func:`covering_count`), so a small restraint patch gets few swarms and a
large one more, without swarms stacked over the same surface. LightDock 0.9.4 instead asks
for 20 swarms per restraint residue, which on a compact patch puts several on one spot.

All of it runs in the file's frame; the centring translation is added last, as LightDock adds
it, so the centres' bits are LightDock's.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import ConvexHull, QhullError, cKDTree
from scipy.spatial.distance import pdist

from ..molecule.structure import Atoms
from ..seeds import DEFAULT_SEED
from .kmeans import kmeans
from .selections import molecule_mask, seed_mask

SPHERE_POINTS_PER_CENTROID = 100
MIN_SURFACE_DISTANCE_A = 10.0
INTERIOR_CUTOFF_A = 3.0
NEIGHBOUR_CENTROIDS_A = 20.0
#: A point is occluded when more than this fraction of its probes in a row lie inside the hull.
OCCLUSION_TOLERANCE = 0.5
HULL_TOLERANCE = 1e-12
_OCCLUSION_CHUNK = 512
_NEAR_CHUNK = 4096


def ligand_diameter(ligand: Atoms) -> float:
    """The ligand's largest atom–atom distance (0 for a single atom)."""
    return float(pdist(ligand.coords).max()) if len(ligand) > 1 else 0.0


def surface_distance(ligand: Atoms, fixed: float = 0.0) -> float:
    """How far from the surface atoms swarm centres sit: ``fixed`` when positive (LightDock's
    ``-fd``), else a quarter of the ligand's largest diameter, or 10 Å for ligands under 20 Å
    across (LightDock's rule)."""
    if fixed > 0.0:
        return float(fixed)
    diameter = ligand_diameter(ligand)
    if diameter < 2 * MIN_SURFACE_DISTANCE_A:
        return MIN_SURFACE_DISTANCE_A
    return diameter / 4.0


def sphere_spiral(count: int) -> np.ndarray:
    """LightDock's ``count`` points on the unit sphere (Saff and Kuijlaars' spiral, from the
    bottom up), computed with Python's ``math`` as LightDock does so the bits agree."""
    increment = math.pi * (3.0 - math.sqrt(5.0))
    offset = 2.0 / count
    points = []
    for i in range(count):
        y = i * offset - 1.0 + offset / 2.0
        r = math.sqrt(1 - y * y)
        phi = i * increment
        points.append([math.cos(phi) * r, y, math.sin(phi) * r])
    return np.array(points)


def swarm_centres(
    receptor: Atoms,
    ligand: Atoms,
    count: int,
    translation: np.ndarray,
    seed: int = DEFAULT_SEED,
    restraint_residues: list[str] | None = None,
    sights: np.ndarray | None = None,
    fixed_distance: float = 0.0,
    dense: bool = False,
    spacing: float = 0.0,
) -> np.ndarray:
    """Swarm centres, (n, 3), in the receptor's centred frame, as LightDock 0.9.4 places them.

    ``receptor``: the receptor file as read (hydrogens and hetero groups kept: LightDock
    selects on the raw file), in the file's frame; ``translation``: what centres it (added
    last). ``count``: the number of clusters (fewer centres when the surface offers fewer).
    ``restraint_residues``: the receptor's active and passive restraint residues (LightDock
    identifiers); only the surface near them seeds swarms. ``sights``: their central atoms
    (file frame); points that cannot see the nearest past the receptor are dropped (see
    :func:`visible`). ``fixed_distance``: see :func:`surface_distance`. ``dense``
    (LightDock's ``--ds``): every point that survives the filters is a swarm centre.
    ``spacing`` > 0: at most ``count`` centres, as many as cover the surviving points at that
    spacing (:func:`covering_count`); 0 is LightDock's rule."""
    molecule = receptor.coords[molecule_mask(receptor)]
    seeds = receptor.coords[seed_mask(receptor, restraint_residues)]
    centroids = kmeans(seeds, count, 100, seed, "points") if len(seeds) > count else seeds
    radius = surface_distance(ligand, fixed_distance)
    shell = sphere_spiral(SPHERE_POINTS_PER_CENTROID)
    candidates = np.concatenate([shell * radius + c for c in centroids]).reshape(-1, 3)
    candidates = candidates[~_near_other(candidates, centroids, radius)]
    if len(candidates) and len(molecule):  # drop points within 3 Å of the molecule
        inside = cKDTree(molecule).query(candidates)[0] <= INTERIOR_CUTOFF_A
        candidates = candidates[~inside]
    if sights is not None and len(sights) and len(candidates):
        candidates = candidates[visible(candidates, sights, centroids)]
    if spacing > 0 and len(candidates):
        count = min(count, covering_count(candidates, spacing))
    if len(candidates) > count and not dense:
        candidates = kmeans(candidates, count, 500, seed, "++")
    return candidates + np.asarray(translation, dtype=np.float64)


def covering(points: np.ndarray, spacing: float) -> np.ndarray:
    """Indices of the points a greedy farthest-point covering chooses before every point lies
    within ``spacing`` Å of a chosen one: it starts from the point nearest the points' mean
    and adds the point farthest from those chosen (ties to the lowest index), so the choice
    is deterministic and its size grows with the area the points span, not their number."""
    points = np.asarray(points, dtype=np.float64)
    if len(points) == 0:
        return np.zeros(0, dtype=np.int64)
    chosen = [int(np.argmin(((points - points.mean(axis=0)) ** 2).sum(axis=1)))]
    nearest = np.sqrt(((points - points[chosen[0]]) ** 2).sum(axis=1))
    while True:
        far = int(np.argmax(nearest))
        if nearest[far] <= spacing:
            return np.array(chosen, dtype=np.int64)
        chosen.append(far)
        np.minimum(nearest, np.sqrt(((points - points[far]) ** 2).sum(axis=1)), out=nearest)


def covering_count(points: np.ndarray, spacing: float) -> int:
    """How many swarms the restraint-focused rule places over ``points``: the size of their
    :func:`covering` at ``spacing``."""
    return len(covering(points, spacing))


def _near_other(points: np.ndarray, centroids: np.ndarray, radius: float) -> np.ndarray:
    """Which points (``SPHERE_POINTS_PER_CENTROID`` per centroid, in centroid order) lie within
    ``radius`` (inclusive) of another centroid within 20 Å of their own (LightDock looks no
    further)."""
    near = np.zeros(len(points), dtype=bool)
    if len(centroids) < 2:
        return near
    pairs = cKDTree(centroids).query_pairs(NEIGHBOUR_CENTROIDS_A, output_type="ndarray")
    per = SPHERE_POINTS_PER_CENTROID
    both = np.concatenate([pairs, pairs[:, ::-1]])
    blocks = points.reshape(len(centroids), per, 3)
    for lo in range(0, len(both), _NEAR_CHUNK):  # (pairs at a time: bounded memory)
        own, other = both[lo : lo + _NEAR_CHUNK].T
        diff = blocks[own] - centroids[other][:, None, :]
        hit = np.sqrt((diff * diff).sum(axis=2)) <= radius
        near |= np.bincount(
            (own[:, None] * per + np.arange(per)).ravel(), hit.ravel(), minlength=len(points)
        ).astype(bool)
    return near


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
