"""k-means as SciPy's ``kmeans2`` computes it, fast for thousands of clusters.

Swarm placement clusters tens of thousands of surface atoms into as many clusters as swarms
(LightDock calls ``scipy.cluster.vq.kmeans2``). ``kmeans2`` assigns points by brute force, which
for a 100,000-atom receptor (6,000 swarms, 100 iterations) takes half a minute; here a k-d tree
over the centroids proposes each point's few nearest and the distance is recomputed exactly as
``vq`` does (the same sum, ties to the lowest index), so the labels, the centroid means
(summed in point order) and the random draws of the initialisation are ``kmeans2``'s own: the
results are equal bit for bit (tested).
"""

from __future__ import annotations

import numpy as np
from scipy.cluster.vq import vq
from scipy.spatial import cKDTree

#: How many nearest centroids the tree proposes per point before the exact comparison.
_PROPOSED = 4
#: Below this many centroids, ``vq``'s brute force is as fast as the tree.
_TREE_FROM = 512


def _labels(data: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """Index of each point's nearest centroid, as ``scipy.cluster.vq.vq`` chooses it."""
    if len(centroids) < _TREE_FROM:
        return vq(data, centroids, check_finite=False)[0]
    k = min(_PROPOSED, len(centroids))
    _, proposed = cKDTree(centroids).query(data, k=k)
    proposed = np.sort(proposed.reshape(len(data), k), axis=1)  # ties go to the lowest index
    diff = data[:, None, :] - centroids[proposed]
    d2 = diff[..., 0] * diff[..., 0]
    for axis in range(1, data.shape[1]):
        d2 = d2 + diff[..., axis] * diff[..., axis]
    return proposed[np.arange(len(data)), np.argmin(d2, axis=1)]


def _means(data: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    counts = np.bincount(labels, minlength=k)
    sums = np.stack([np.bincount(labels, data[:, a], minlength=k) for a in range(data.shape[1])])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums.T / counts[:, None]
    return means, counts > 0


def _plus_plus(data: np.ndarray, k: int, rng: np.random.RandomState) -> np.ndarray:
    """k-means++ seeding with ``kmeans2``'s draws (one integer, then one uniform per centre)."""
    init = np.empty((k, data.shape[1]))
    nearest = np.full(len(data), np.inf)
    for i in range(k):
        if i == 0:
            index = int(rng.randint(0, len(data)))
        else:
            probs = nearest / nearest.sum()
            index = int(np.searchsorted(probs.cumsum(), rng.uniform()))
        init[i] = data[index]
        diff = data - init[i]
        d2 = diff[:, 0] * diff[:, 0] + diff[:, 1] * diff[:, 1] + diff[:, 2] * diff[:, 2]
        nearest = np.minimum(nearest, d2)
    return init


def kmeans(
    data: np.ndarray, k: int, iterations: int, seed: int, init: str = "points"
) -> np.ndarray:
    """Centroids of ``kmeans2(data, k, iter=iterations, minit=init, seed=seed)`` for 3-D
    points (``init``: ``"points"`` or ``"++"``); empty clusters keep their last position.

    As in SciPy, an integer seed starts a fresh ``RandomState`` for every call (LightDock
    clusters twice with the same seed)."""
    data = np.ascontiguousarray(data, dtype=np.float64)
    rng = np.random.RandomState(seed)
    if init == "points":
        centroids = data[rng.choice(len(data), size=int(k), replace=False)]
    elif init == "++":
        centroids = _plus_plus(data, int(k), rng)
    else:
        raise ValueError(f"unknown k-means initialisation {init!r}")
    for _ in range(iterations):
        means, filled = _means(data, _labels(data, centroids), int(k))
        means[~filled] = centroids[~filled]
        centroids = means
    return centroids
