"""The all-pairs NumPy oracle for ``pisa``."""

from __future__ import annotations

import numpy as np

from ..base import TypedAtomModel
from ..terms import Terms
from ..vdw.numpy_kernel import conformers as _conformers
from ..vdw.numpy_kernel import fractions
from .model import N_BINS

EDGES = np.array([2.0, 3.0, 4.0, 4.5, 6.0, 8.0])
#: per spline bin: (count bin, weight of the distance) pairs (LightDock's weights)
SPLINE = {
    0: ((0, np.ones_like),),
    1: ((0, lambda d: 4.0 - d), (1, lambda d: d - 3.0)),
    2: ((1, np.ones_like),),
    3: ((1, lambda d: 4.0 - d / 3.0), (2, lambda d: d / 3.0 - 3.0)),
    4: ((2, np.ones_like),),
}


def spline_bin(dist: np.ndarray) -> np.ndarray:
    """LightDock's spline bin (0–4) of float32-rounded distances, −1 outside [2, 8)."""
    d32 = dist.astype(np.float32).astype(np.float64)
    b = np.searchsorted(EDGES, d32, side="right") - 1
    return np.where((d32 >= 8.0) | (d32 < 2.0), -1, b)


def score_poses(model: TypedAtomModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    recs, ligs = _conformers(model, poses)
    ti = np.minimum(model.rec_types[:, None], model.lig_types[None, :])
    tj = np.maximum(model.rec_types[:, None], model.lig_types[None, :])
    energy, p_rec, p_lig = [], [], []
    for rec, lig in zip(recs, ligs, strict=True):
        d = rec[:, None, :] - lig[None, :, :]
        dist = np.sqrt(d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
        keep = (dist >= 2.0) & (dist <= 8.0)
        r = spline_bin(dist)
        counts = np.zeros((32, 32, N_BINS))
        for b, parts in SPLINE.items():
            sel = keep & (r == b)
            for k, weight in parts:
                np.add.at(counts, (ti[sel], tj[sel], k), weight(dist[sel]))
        energy.append(float((counts * model.table).sum()))
        close = keep & (dist <= 3.9)
        p_rec.append(
            fractions(close.any(axis=1), model.rec_restraint_group, model.n_rec_restraints)
        )
        p_lig.append(
            fractions(close.any(axis=0), model.lig_restraint_group, model.n_lig_restraints)
        )
    zeros = np.zeros(len(poses))
    return Terms(np.array(energy), np.array(p_rec), np.array(p_lig), zeros)
