"""(Research; no default uses it, issue 32 measured it: benchmarks/notebook/performance.md,
"Restrained protocol, fourth pass") Exact polishing of docked poses: a deterministic, batched
pattern search.

A fast search scores poses on a field; its best glowworms sit near, not at, a maximum of the
exact score. Polishing moves each pose by the best of a fixed set of small steps (a shift
along each axis, a turn about each axis through the ligand's centre, a change of each
normal-mode extent, both signs) while that improves its exact score, halving a pose's steps
when none does. Every candidate of every pose is scored in one batch per round, so the work
is dense array work on any engine, and the result depends on nothing but the poses and the
scorer (no random numbers, no thread-dependent order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sparkledock.molecule.pose import PoseLayout


@dataclass(frozen=True)
class PolishSteps:
    """The starting step sizes and how many rounds to take."""

    shift: float = 1.0  # Å along each axis
    turn: float = 6.0  # degrees about each axis
    extent: float = 0.5  # per normal mode
    rounds: int = 8


def _quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a·b`` of (..., 4) quaternions ``w x y z``."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def candidates(poses: np.ndarray, scale: np.ndarray, layout: PoseLayout, steps: PolishSteps):
    """(P, K, D) neighbours of (P, D) poses, each pose's steps scaled by its ``scale`` (P,).

    K = 2 × (3 shifts + 3 turns + every extent). Turns multiply the quaternion on the left
    (a rotation in the receptor's frame about the ligand's centre) and keep it a unit one.
    """
    n, d = poses.shape
    n_ext = d - layout.rec_extents.start
    k = 2 * (6 + n_ext)
    out = np.repeat(poses[:, None, :], k, axis=1)
    sign = np.array([1.0, -1.0])
    for axis in range(3):
        rows = slice(2 * axis, 2 * axis + 2)
        out[:, rows, axis] += sign[None, :] * (steps.shift * scale)[:, None]
    half = np.radians(steps.turn) * scale / 2.0  # (P,)
    q = poses[:, layout.rotation]
    for axis in range(3):
        turn = np.zeros((n, 2, 4))
        turn[..., 0] = np.cos(half)[:, None]
        turn[..., 1 + axis] = sign[None, :] * np.sin(half)[:, None]
        rows = slice(6 + 2 * axis, 8 + 2 * axis)
        moved = _quaternion_product(turn, q[:, None, :])
        out[:, rows, layout.rotation] = moved / np.linalg.norm(moved, axis=-1, keepdims=True)
    for j in range(n_ext):
        rows = slice(12 + 2 * j, 14 + 2 * j)
        out[:, rows, layout.rec_extents.start + j] += (
            sign[None, :] * (steps.extent * scale)[:, None]
        )
    return out


def polish(
    score: Callable[[np.ndarray], np.ndarray],
    poses: np.ndarray,
    layout: PoseLayout,
    steps: PolishSteps = PolishSteps(),
    scores: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Polished (P, D) poses and their (P,) scores (higher is better, as every function's).

    ``score`` scores a (N, D) batch exactly; ``scores`` are the poses' own, when known. A pose
    never ends worse than it started.
    """
    poses = np.array(poses, dtype=np.float64, copy=True)
    if len(poses) == 0:
        return poses, np.zeros(0)
    best = np.asarray(score(poses) if scores is None else scores, dtype=np.float64).copy()
    scale = np.ones(len(poses))
    for _ in range(steps.rounds):
        near = candidates(poses, scale, layout, steps)
        got = np.asarray(score(near.reshape(-1, poses.shape[1])), dtype=np.float64)
        got = got.reshape(near.shape[:2])
        pick = np.argmax(got, axis=1)  # the first of equal ones
        value = got[np.arange(len(poses)), pick]
        better = value > best
        poses[better] = near[better, pick[better]]
        best[better] = value[better]
        scale[~better] /= 2.0
    return poses, best
