"""Quaternion rotation and conformer building."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from sparkledock.errors import PoseError
from sparkledock.molecule.pose import PoseLayout, deform, ligand_conformers, rotate_lightdock


def test_rotation_matches_scipy_for_unit_and_scaled_quaternions():
    rng = np.random.default_rng(5)
    q = rng.normal(size=(20, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    pts = rng.normal(size=(20, 50, 3)) * 20
    expected = np.stack(
        [Rotation.from_quat(np.roll(qi, -1)).apply(p) for qi, p in zip(q, pts, strict=True)]
    )
    np.testing.assert_allclose(rotate_lightdock(q[:, None, :], pts), expected, atol=1e-10)
    # q v q⁻¹ with q⁻¹ = conj(q)/|q|²: a scaled quaternion is the same rotation
    np.testing.assert_allclose(rotate_lightdock(3.7 * q[:, None, :], pts), expected, atol=1e-10)


def test_layout_slices():
    lay = PoseLayout(3, 2)
    pose = np.arange(lay.size, dtype=float)
    assert lay.size == 12
    assert list(pose[lay.translation]) == [0, 1, 2]
    assert list(pose[lay.rotation]) == [3, 4, 5, 6]
    assert list(pose[lay.rec_extents]) == [7, 8, 9]
    assert list(pose[lay.lig_extents]) == [10, 11]
    with pytest.raises(PoseError, match="need 12 numbers"):
        lay.validate(np.zeros((2, 11)))
    with pytest.raises(PoseError, match="pose 2 has non-finite"):
        lay.validate(np.array([pose, pose * np.nan]))


def test_deform_moves_only_masked_atoms_by_sum_of_modes():
    coords = np.arange(12, dtype=float).reshape(4, 3)
    mask = np.array([True, False, True, False])
    modes = np.array([[[1.0, 0, 0], [0, 1.0, 0]], [[0, 0, 2.0], [1.0, 1.0, 1.0]]])
    out = deform(coords, modes, mask, np.array([[0.5, -1.0]]))[0]
    assert np.array_equal(out[[1, 3]], coords[[1, 3]])
    assert np.allclose(out[0], coords[0] + [0.5, 0, -2.0])
    assert np.allclose(out[2], coords[2] + [-1.0, -0.5, -1.0])


@pytest.mark.parametrize(
    "dtypes",
    [("f8", "f8", "f8"), ("f4", "f8", "f8"), ("f4", "f4", "f4"), ("f8", "f4", "f4")],
)
def test_deform_in_pieces_equals_the_whole_batch_bit_for_bit(dtypes):
    """``deform`` works on a few poses at a time; the result is the batch-wide sum, mode by
    mode in order (LightDock's), to the last bit, in every precision and across the pieces'
    boundaries (37 poses)."""
    rng = np.random.default_rng(7)
    coords = rng.normal(size=(300, 3)).astype(dtypes[0])
    mask = rng.random(300) < 0.8
    modes = rng.normal(size=(10, int(mask.sum()), 3)).astype(dtypes[1])
    extents = rng.normal(size=(37, 10)).astype(dtypes[2])
    expected = np.broadcast_to(coords, (37, 300, 3)).copy()
    moved = expected[:, mask, :]
    for k in range(10):
        moved += modes[k][None, :, :] * extents[:, k, None, None]
    expected[:, mask, :] = moved
    got = deform(coords, modes, mask, extents)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_ligand_is_rotated_then_translated():
    coords = np.array([[1.0, 0.0, 0.0]])
    lay = PoseLayout(0, 0)
    c = np.cos(np.pi / 4)
    pose = np.array([[10.0, 0.0, 0.0, c, 0.0, 0.0, c]])  # 90° about z, then +10 x
    out = ligand_conformers(coords, np.zeros((0, 1, 3)), np.ones(1, bool), pose, lay)[0, 0]
    np.testing.assert_allclose(out, [10.0, 1.0, 0.0], atol=1e-12)
