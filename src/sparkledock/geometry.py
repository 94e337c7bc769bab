"""Geometry helpers on point sets."""

from __future__ import annotations

import numpy as np


def ellipsoid_centre(
    points: np.ndarray, tolerance: float = 0.01, max_iter: int = 100_000
) -> np.ndarray:
    """Centre of the minimum-volume enclosing ellipsoid of ``points`` (N, 3).

    Khachiyan's algorithm: weights ``u`` on the points, raised one point at a time toward the
    one that lies farthest outside the current ellipsoid, until the weights move less than
    ``tolerance``; the centre is the weighted mean. LightDock uses this point (tolerance 0.01)
    as the ligand's reference for glowworm distances. Falls back to the mean of the points if
    the problem is degenerate (fewer than four points, or coplanar ones).
    """
    pts = np.asarray(points, dtype=np.float64)
    n, dim = pts.shape
    if n <= dim:
        return pts.mean(axis=0)
    lifted = np.vstack([pts.T, np.ones(n)])  # (dim + 1, n)
    u = np.full(n, 1.0 / n)
    try:
        for _ in range(max_iter):
            scatter = (lifted * u) @ lifted.T
            spread = np.einsum("ij,ij->j", lifted, np.linalg.solve(scatter, lifted))
            far = int(np.argmax(spread))
            top = spread[far]
            rate = (top - dim - 1.0) / ((dim + 1.0) * (top - 1.0))
            new_u = (1.0 - rate) * u
            new_u[far] += rate
            change = np.linalg.norm(new_u - u)
            u = new_u
            if not change > tolerance:
                break
    except np.linalg.LinAlgError:
        return pts.mean(axis=0)
    centre = pts.T @ u
    if not np.isfinite(centre).all():
        return pts.mean(axis=0)
    return centre
