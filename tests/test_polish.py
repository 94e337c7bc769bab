"""Exact polishing: a deterministic pattern search that never makes a pose worse."""

import numpy as np

from sparkledock.analysis.polish import PolishSteps, candidates, polish
from sparkledock.molecule.pose import PoseLayout

LAYOUT = PoseLayout(n_rec=1, n_lig=1)
TARGET = np.array([2.0, -1.0, 0.5])


def bowl(poses: np.ndarray) -> np.ndarray:
    """Higher nearer TARGET and a zero extent; the rotation's w component rewarded."""
    t = poses[:, :3] - TARGET
    return -(t**2).sum(axis=1) - (poses[:, 7:] ** 2).sum(axis=1) + poses[:, 3] ** 2


def start(n: int = 3) -> np.ndarray:
    rng = np.random.default_rng(4)
    poses = np.zeros((n, LAYOUT.size))
    poses[:, :3] = rng.normal(size=(n, 3)) * 3
    q = rng.normal(size=(n, 4))
    poses[:, 3:7] = q / np.linalg.norm(q, axis=1, keepdims=True)
    poses[:, 7:] = rng.normal(size=(n, 2))
    return poses


def test_candidates_are_unit_quaternions_and_one_change_each():
    poses = start(2)
    near = candidates(poses, np.ones(2), LAYOUT, PolishSteps())
    assert near.shape == (2, 2 * (6 + 2), LAYOUT.size)
    np.testing.assert_allclose(np.linalg.norm(near[..., 3:7], axis=-1), 1.0)
    changed = (near != poses[:, None, :]).sum(axis=-1)
    assert (changed[:, :6] == 1).all() and (changed[:, 12:] == 1).all()
    turned = near[:, 6:12, 3:7]
    dot = np.abs((turned * poses[:, None, 3:7]).sum(axis=-1))
    np.testing.assert_allclose(dot, np.cos(np.radians(PolishSteps().turn) / 2))


def test_polish_climbs_never_descends_and_is_deterministic():
    poses = start()
    before = bowl(poses)
    steps = PolishSteps(shift=1.0, turn=10.0, extent=0.5, rounds=80)
    moved, scores = polish(bowl, poses, LAYOUT, steps)
    np.testing.assert_array_equal(scores, bowl(moved))
    assert (scores >= before).all() and (scores > before).all()
    np.testing.assert_allclose(moved[:, :3], np.broadcast_to(TARGET, (3, 3)), atol=0.1)
    np.testing.assert_allclose(moved[:, 7:], 0.0, atol=0.1)
    again, _ = polish(bowl, poses, LAYOUT, steps)
    np.testing.assert_array_equal(moved, again)
    single, _ = polish(bowl, poses[1:2], LAYOUT, steps)
    np.testing.assert_array_equal(single[0], moved[1])  # batched alike, pose by pose


def test_polish_keeps_a_maximum_and_empty_input():
    top = np.zeros((1, LAYOUT.size))
    top[0, :3] = TARGET
    top[0, 3] = 1.0
    moved, scores = polish(bowl, top, LAYOUT)
    np.testing.assert_array_equal(moved, top)
    assert scores[0] == bowl(top)[0]
    empty, none = polish(bowl, np.zeros((0, LAYOUT.size)), LAYOUT)
    assert empty.shape == (0, LAYOUT.size) and none.shape == (0,)
