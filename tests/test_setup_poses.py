"""Initial poses: unit quaternions, inside the swarm radius, reproducible, N(0, 1) extents."""

from __future__ import annotations

import numpy as np

from sparkledock.molecule.pose import PoseLayout
from sparkledock.preparation.poses import initial_poses

LAYOUT = PoseLayout(10, 10)
CENTRES = np.array([[10.0, 0.0, 0.0], [-5.0, 20.0, 3.0], [0.0, 0.0, -30.0]])


def test_poses_are_valid_and_inside_the_radius():
    poses = initial_poses(CENTRES, np.array([0, 1, 2]), 500, LAYOUT, seed=7, radius=10.0)
    assert poses.shape == (3, 500, 27)
    q = poses[..., LAYOUT.rotation]
    np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1.0, atol=1e-12)
    offsets = poses[..., LAYOUT.translation] - CENTRES[:, None, :]
    distances = np.linalg.norm(offsets, axis=-1)
    assert distances.max() <= 10.0 and distances.mean() > 6.0  # uniform in the ball: mean 7.5
    extents = poses[..., 7:].ravel()
    assert abs(extents.mean()) < 0.02 and abs(extents.std() - 1.0) < 0.02
    assert np.abs(q.reshape(-1, 4).mean(axis=0)).max() < 0.05  # no preferred orientation


def test_poses_are_reproducible_per_swarm():
    a = initial_poses(CENTRES, np.array([0, 1, 2]), 50, LAYOUT, seed=7)
    b = initial_poses(CENTRES[1:2], np.array([1]), 50, LAYOUT, seed=7)
    assert np.array_equal(a[1], b[0])  # a swarm's poses do not depend on the others
    assert np.array_equal(a, initial_poses(CENTRES, np.array([0, 1, 2]), 50, LAYOUT, seed=7))
    assert not np.array_equal(a, initial_poses(CENTRES, np.array([0, 1, 2]), 50, LAYOUT, seed=8))


def test_restrained_ligands_face_the_receptor_sites():
    from sparkledock.molecule.pose import rotate_lightdock

    rec_sites = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    lig_sites = np.array([[5.0, 1.0, 0.0], [-3.0, 4.0, 2.0]])
    centres = np.array([[30.0, 0.0, 0.0], [0.0, -25.0, 5.0]])
    poses = initial_poses(
        centres,
        np.array([0, 1]),
        200,
        PoseLayout(0, 0),
        seed=3,
        rec_sites=rec_sites,
        lig_sites=lig_sites,
    )
    q = poses[..., 3:7].reshape(-1, 4)
    t = poses[..., :3].reshape(-1, 3)
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-12)
    best = np.zeros(len(q))
    for ls in lig_sites:
        turned = rotate_lightdock(q, np.broadcast_to(ls, t.shape))
        turned /= np.linalg.norm(turned, axis=1, keepdims=True)
        for rs in rec_sites:
            to_site = rs - t
            to_site /= np.linalg.norm(to_site, axis=1, keepdims=True)
            best = np.maximum(best, (turned * to_site).sum(axis=1))
    assert best.min() > 0.999999  # each ligand site points at a receptor site


def test_rotation_between_opposite_directions():
    from sparkledock.molecule.pose import rotate_lightdock
    from sparkledock.preparation.poses import rotation_between

    q = rotation_between(np.array([[1.0, 0, 0]]), np.array([[-2.0, 0, 0]]))
    np.testing.assert_allclose(
        rotate_lightdock(q, np.array([[1.0, 0, 0]])), [[-1.0, 0, 0]], atol=1e-12
    )
