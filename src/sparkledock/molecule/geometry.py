"""Geometry helpers on point sets."""

from __future__ import annotations

from collections.abc import Sequence

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
    u = _khachiyan_weights(pts, tolerance, max_iter)
    if u is None:
        return pts.mean(axis=0)
    centre = pts.T @ u
    if not np.isfinite(centre).all():
        return pts.mean(axis=0)
    return centre


def _khachiyan_weights(pts: np.ndarray, tolerance: float, max_iter: int) -> np.ndarray | None:
    """Khachiyan's point weights of the minimum-volume ellipsoid; None when degenerate."""
    n, dim = pts.shape
    if n <= dim:
        return None
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
        return None
    return u


def ellipsoid_poles(points: np.ndarray, tolerance: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """The minimum-volume enclosing ellipsoid's centre (3,) and six poles (6, 3): the two ends
    of each principal axis, in LightDock's order (``MinimumVolumeEllipsoid.poles``, what
    ``lgd_calculate_reference_points.py`` writes).

    Raises:
        ValueError: degenerate points (fewer than four, or coplanar).
    """
    pts = np.asarray(points, dtype=np.float64)
    u = _khachiyan_weights(pts, tolerance, 100_000)
    if u is None:
        raise ValueError("no ellipsoid: fewer than four points or all in one plane")
    centre = pts.T @ u
    scatter = pts.T @ (u[:, None] * pts) - np.outer(centre, centre)
    a = np.linalg.inv(scatter) / pts.shape[1]
    _, s, rotation = np.linalg.svd(a)
    if (s <= 0).any():
        raise ValueError("no ellipsoid: the points are flat")
    axes = np.diag(1.0 / np.sqrt(s)) @ rotation
    poles = np.empty((6, 3))
    poles[0::2], poles[1::2] = centre - axes, centre + axes
    return centre, poles


def _hamilton(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float, float]:
    """Quaternion product a·b (w, x, y, z), term by term in LightDock's order."""
    return (
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    )


def lightdock_rotate(q: Sequence[float], v: Sequence[float]) -> list[float]:
    """``v`` turned by ``q`` as LightDock's ``Quaternion.rotate`` computes it, q·v·q⁻¹ with
    q⁻¹ = conjugate / |q|², in Python floats: the same bits (poses, BILD files)."""
    n2 = float((q[0] * q[0]) + (q[1] * q[1]) + (q[2] * q[2]) + (q[3] * q[3]))
    inverse = (q[0] / n2, -q[1] / n2, -q[2] / n2, -q[3] / n2)
    r = _hamilton(_hamilton(q, (0.0, v[0], v[1], v[2])), inverse)
    return [r[1], r[2], r[3]]
