"""Initial glowworm poses around swarm centres.

Every swarm draws from its own counter-based generator keyed by (seed, swarm id), so a swarm's
poses do not depend on how many swarms there are or which are made together.
"""

from __future__ import annotations

import numpy as np

from ..molecule.pose import PoseLayout
from ..seeds import DEFAULT_SEED

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


def rotation_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Unit quaternions (w, x, y, z) turning directions ``a`` onto ``b`` (…, 3) by the
    shortest arc (half-turns about a perpendicular axis when they are opposite)."""
    u = a / np.linalg.norm(a, axis=-1, keepdims=True)
    v = b / np.linalg.norm(b, axis=-1, keepdims=True)
    w = 1.0 + (u * v).sum(axis=-1)
    axis = np.cross(u, v)
    opposite = w < 1e-6
    if opposite.any():
        perp = np.where(
            (np.abs(u[..., 0]) > np.abs(u[..., 2]))[..., None],
            np.stack([-u[..., 1], u[..., 0], np.zeros_like(w)], axis=-1),
            np.stack([np.zeros_like(w), -u[..., 2], u[..., 1]], axis=-1),
        )
        axis = np.where(opposite[..., None], perp, axis)
        w = np.where(opposite, 0.0, w)
    q = np.concatenate([w[..., None], axis], axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def initial_poses(
    centres: np.ndarray,
    swarm_ids: np.ndarray,
    glowworms: int,
    layout: PoseLayout,
    seed: int = DEFAULT_SEED,
    radius: float = DEFAULT_SWARM_RADIUS_A,
    rec_sites: np.ndarray | None = None,
    lig_sites: np.ndarray | None = None,
    modes_seed: int | None = None,
    flip: bool = False,
) -> np.ndarray:
    """Starting poses (S, G, layout.size): a translation inside ``radius`` Å of each swarm's
    centre, a uniform random rotation and N(0, 1) mode extents.

    With restraint sites on both partners (C-alpha positions, each in its centred frame),
    rotations instead turn a random ligand site toward a random one of the ten receptor sites
    nearest the swarm, as LightDock orients restrained ligands; with ``flip`` (LightDock's
    ``--flip``) a coin turns each such ligand instead by a half-turn about its pointing site
    mirrored through the axis from the receptor's centre to the glowworm (:func:`flipped`).

    ``modes_seed``: the mode extents come from their own generator keyed by (modes_seed,
    swarm) instead of the swarm's (LightDock's separate ``--seed_anm``)."""
    centres = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
    out = np.empty((len(centres), glowworms, layout.size))
    for row, (centre, swarm) in enumerate(zip(centres, swarm_ids, strict=True)):
        rng = swarm_generator(seed, swarm)
        out[row, :, layout.translation] = centre + points_in_ball(rng, glowworms, radius)
        out[row, :, layout.rotation] = random_quaternions(rng, glowworms)
        extents = rng if modes_seed is None else swarm_generator(modes_seed, swarm)
        out[row, :, layout.rotation.stop :] = extents.standard_normal(
            (glowworms, layout.n_rec + layout.n_lig)
        )
        if rec_sites is not None and lig_sites is not None and len(rec_sites) and len(lig_sites):
            order = np.argsort(np.linalg.norm(rec_sites - centre, axis=1))[:10]
            target = rec_sites[order[rng.integers(0, len(order), glowworms)]]
            source = lig_sites[rng.integers(0, len(lig_sites), glowworms)]
            where = out[row, :, layout.translation]
            q = rotation_between(source, target - where)
            if flip:
                turn = rng.random(glowworms) > 0.5
                q[turn] = flipped(q[turn], source[turn], where[turn])
            out[row, :, layout.rotation] = q
    return out


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Vectors ``v`` (…, 3) turned by unit quaternions ``q`` (…, 4: w, x, y, z)."""
    w, u = q[..., :1], q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def flipped(q: np.ndarray, site: np.ndarray, where: np.ndarray) -> np.ndarray:
    """LightDock's ``--flip`` of restraint-oriented rotations ``q``: the ligand site as ``q``
    turns it, mirrored by a half-turn about the direction of the glowworm's position
    ``where``, becomes the axis of a half-turn, the new rotation (LightDock builds the
    quaternion (0, axis) without normalising it; it only ever rotates through q·v·q⁻¹, so
    the unit quaternion here is the same rotation)."""
    turned = rotate(q, site)
    n = where / np.linalg.norm(where, axis=-1, keepdims=True)
    axis = 2.0 * (turned * n).sum(axis=-1, keepdims=True) * n - turned
    axis /= np.linalg.norm(axis, axis=-1, keepdims=True)
    return np.concatenate([np.zeros((len(axis), 1)), axis], axis=-1)
