"""Initial glowworm poses around swarm centres.

Every swarm draws from its own counter-based generator keyed by (seed, swarm id), so a swarm's
poses do not depend on how many swarms there are or which are made together.
"""

from __future__ import annotations

import numpy as np

from ..pose import PoseLayout

DEFAULT_SWARM_RADIUS_A = 10.0


def swarm_generator(seed: int, swarm: int) -> np.random.Generator:
    """The generator of one swarm: Philox keyed by (seed, swarm id)."""
    key = np.array([int(seed), int(swarm)], dtype=np.uint64)
    return np.random.Generator(np.random.Philox(key=key))


def random_quaternions(rng: np.random.Generator, count: int) -> np.ndarray:
    """Uniformly distributed unit quaternions ``w, x, y, z`` (Shoemake's method)."""
    u1, u2, u3 = rng.random((3, count))
    a, b = np.sqrt(1.0 - u1), np.sqrt(u1)
    return np.stack(
        [
            a * np.sin(2 * np.pi * u2),
            a * np.cos(2 * np.pi * u2),
            b * np.sin(2 * np.pi * u3),
            b * np.cos(2 * np.pi * u3),
        ],
        axis=1,
    )


def points_in_ball(rng: np.random.Generator, count: int, radius: float) -> np.ndarray:
    """Points uniformly distributed inside a ball of ``radius`` about the origin."""
    direction = rng.standard_normal((count, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    return direction * (radius * rng.random(count) ** (1.0 / 3.0))[:, None]


def initial_poses(
    centres: np.ndarray,
    swarm_ids: np.ndarray,
    glowworms: int,
    layout: PoseLayout,
    seed: int = 324324,
    radius: float = DEFAULT_SWARM_RADIUS_A,
) -> np.ndarray:
    """Starting poses (S, G, layout.size): a translation inside ``radius`` Å of each swarm's
    centre, a uniform random rotation and N(0, 1) mode extents."""
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
    out = np.empty((len(centres), glowworms, layout.size))
    for row, (centre, swarm) in enumerate(zip(centres, swarm_ids, strict=True)):
        rng = swarm_generator(seed, swarm)
        out[row, :, layout.translation] = centre + points_in_ball(rng, glowworms, radius)
        out[row, :, layout.rotation] = random_quaternions(rng, glowworms)
        out[row, :, layout.rotation.stop :] = rng.standard_normal(
            (glowworms, layout.n_rec + layout.n_lig)
        )
    return out
