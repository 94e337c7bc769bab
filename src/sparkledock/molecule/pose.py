"""Poses and conformers.

A pose (LightDock's glowworm position) is one vector
``[tx, ty, tz, qw, qx, qy, qz, e_rec(0..nr-1), e_lig(0..nl-1)]``. :class:`PoseLayout` names
its slices once; every other module uses it instead of literal offsets.

Conformers follow LightDock 0.9.4 operation by operation (so coordinates are bit-identical):
masked atoms move by ``Σ_k e[k]·mode[k]`` added one mode at a time; the ligand is then rotated
by ``q·v·q⁻¹`` (with ``q⁻¹ = conj(q)/|q|²``, so a non-unit quaternion still rotates) and
translated. The receptor never rotates or translates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import PoseError

#: The rigid part of every pose: translation ``tx ty tz``, then the quaternion ``w x y z``;
#: the receptor's normal-mode extents start right after (kernels index from it).
TRANSLATION = slice(0, 3)
ROTATION = slice(3, 7)
EXTENTS_START = ROTATION.stop


@dataclass(frozen=True)
class PoseLayout:
    """Where each part of a pose vector lives, for ``n_rec`` and ``n_lig`` normal modes."""

    n_rec: int = 10
    n_lig: int = 10

    translation = TRANSLATION
    rotation = ROTATION

    @property
    def rec_extents(self) -> slice:
        return slice(EXTENTS_START, EXTENTS_START + self.n_rec)

    @property
    def lig_extents(self) -> slice:
        return slice(EXTENTS_START + self.n_rec, self.size)

    @property
    def size(self) -> int:
        return EXTENTS_START + self.n_rec + self.n_lig

    def validate(self, poses: np.ndarray, source: str = "poses") -> np.ndarray:
        """Return ``poses`` as a C-contiguous (P, size) float64 array or raise PoseError."""
        arr = np.asarray(poses, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[1] != self.size:
            raise PoseError(
                f"{source}: poses need {self.size} numbers each (3 translation, 4 quaternion, "
                f"{self.n_rec} receptor and {self.n_lig} ligand extents), got shape {arr.shape}"
            )
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            first = int(np.flatnonzero(bad)[0]) + 1
            raise PoseError(f"{source}: pose {first} has non-finite values")
        qn = (arr[:, self.rotation] ** 2).sum(axis=1)
        if (qn == 0).any():
            raise PoseError(
                f"{source}: pose {int(np.flatnonzero(qn == 0)[0]) + 1} has a zero quaternion"
            )
        return np.ascontiguousarray(arr)


def rotate_lightdock(q: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    """Rotate points by quaternions exactly as LightDock does (``q * v * q.inverse()``).

    Args:
        q: (..., 4) quaternions ``w, x, y, z``; leading axes broadcast against ``xyz``'s
            (pass ``q[:, None, :]`` to rotate (P, N, 3) points by P quaternions).
        xyz: (..., 3) points.

    NumPy arrays or torch tensors (the torch engine rotates on its device with this too).
    """
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    a, b, c = xyz[..., 0], xyz[..., 1], xyz[..., 2]
    n2 = w * w + x * x + y * y + z * z
    iw, ix, iy, iz = w / n2, -x / n2, -y / n2, -z / n2
    # t = q * (0, a, b, c), written term by term in LightDock's order
    tw = w * 0.0 - x * a - y * b - z * c
    tx = w * a + x * 0.0 + y * c - z * b
    ty = w * b - x * c + y * 0.0 + z * a
    tz = w * c + x * b - y * a + z * 0.0
    rx = tw * ix + tx * iw + ty * iz - tz * iy
    ry = tw * iy - tx * iz + ty * iw + tz * ix
    rz = tw * iz + tx * iy - ty * ix + tz * iw
    if isinstance(rx, np.ndarray | float):
        return np.stack([rx, ry, rz], axis=-1)
    import torch  # the torch engine passes tensors

    return torch.stack([rx, ry, rz], dim=-1)


#: poses deformed together (their buffers stay in cache)
DEFORM_CHUNK = 16


def deform(
    coords: np.ndarray, modes: np.ndarray, mask: np.ndarray, extents: np.ndarray
) -> np.ndarray:
    """Apply normal-mode extents to a batch: (N, 3) coords → (P, N, 3) conformers.

    ``modes`` is (M, n_masked, 3); ``extents`` is (P, M). Modes are added one at a time in
    order, as LightDock does, so results are bit-identical to it.
    """
    extents = np.atleast_2d(extents)
    out = np.broadcast_to(coords, (len(extents), *coords.shape)).copy()
    if modes.shape[0] == 0 or len(extents) == 0:
        return out
    # a few poses at a time in two reused buffers: the same sums, in the same order, without
    # a pose-batch-sized temporary per mode (8× faster on a 2,000-atom receptor)
    modes = np.ascontiguousarray(modes)
    base = coords[mask]
    moved = np.empty((min(DEFORM_CHUNK, len(extents)), *base.shape), dtype=out.dtype)
    # each product in the precision the batch-wide expression computed it in
    term = np.empty(moved.shape, dtype=np.result_type(modes.dtype, extents.dtype))
    for first in range(0, len(extents), DEFORM_CHUNK):
        part = extents[first : first + DEFORM_CHUNK]
        acc, tmp = moved[: len(part)], term[: len(part)]
        acc[...] = base
        for k in range(modes.shape[0]):
            np.multiply(modes[k][None, :, :], part[:, k, None, None], out=tmp)
            acc += tmp
        out[first : first + len(part), mask, :] = acc
    return out


def receptor_conformers(
    coords: np.ndarray, modes: np.ndarray, mask: np.ndarray, poses: np.ndarray, layout: PoseLayout
) -> np.ndarray:
    """Receptor coordinates for every pose: (P, N_rec, 3)."""
    return deform(coords, modes, mask, poses[:, layout.rec_extents])


def ligand_conformers(
    coords: np.ndarray, modes: np.ndarray, mask: np.ndarray, poses: np.ndarray, layout: PoseLayout
) -> np.ndarray:
    """Ligand coordinates for every pose: deformed, rotated, then translated: (P, N_lig, 3)."""
    flex = deform(coords, modes, mask, poses[:, layout.lig_extents])
    rotated = rotate_lightdock(poses[:, None, layout.rotation], flex)
    return rotated + poses[:, None, layout.translation]
