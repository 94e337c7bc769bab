"""The all-pairs NumPy oracle for LightDock's Python ``dfire``."""

from __future__ import annotations

import numpy as np

from ..base import TypedAtomModel
from ..terms import Terms
from ..vdw.numpy_kernel import conformers as _conformers
from ..vdw.numpy_kernel import fractions
from .model import CUTOFF_A


def score_poses(model: TypedAtomModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    recs, ligs = _conformers(model, poses)
    energy, p_rec, p_lig = [], [], []
    for rec, lig in zip(recs, ligs, strict=True):
        d = rec[:, None, :] - lig[None, :, :]
        dist = np.sqrt(d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
        i, j = np.nonzero(dist <= CUTOFF_A)  # row-major: LightDock's order
        k = np.maximum((dist[i, j] * 2.0 - 1.0).astype(np.int64), 0)
        values = model.table[model.rec_types[i], model.lig_types[j], model.bins[k]]
        energy.append(float(np.cumsum(values)[-1]) if len(values) else 0.0)
        close = np.zeros_like(dist, dtype=bool)
        close[i[k <= 3], j[k <= 3]] = True
        p_rec.append(
            fractions(close.any(axis=1), model.rec_restraint_group, model.n_rec_restraints)
        )
        p_lig.append(
            fractions(close.any(axis=0), model.lig_restraint_group, model.n_lig_restraints)
        )
    zeros = np.zeros(len(poses))
    return Terms(np.array(energy), np.array(p_rec), np.array(p_lig), zeros)
