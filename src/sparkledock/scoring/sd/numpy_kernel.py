"""The NumPy oracle for ``sd``: every pair of every pose, the running sums per receptor atom
as cumulative sums."""

from __future__ import annotations

import numpy as np

from ..terms import Terms
from ..vdw.model import PairModel
from ..vdw.numpy_kernel import conformers, interface_terms

CAP = 5000000.0


def score_poses(model: PairModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    recs, ligs = conformers(model, poses)
    qq = model.rec_charge[:, None] * model.lig_charge[None, :]
    eps = np.sqrt(model.rec_eps[:, None] * model.lig_eps[None, :])
    r6 = (model.rec_radius[:, None] + model.lig_radius[None, :]) ** 6
    energy, p_rec, p_lig = [], [], []
    for rec, lig in zip(recs, ligs, strict=True):
        d = rec[:, None, :] - lig[None, :, :]
        d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
        inside = d2 < 81.0
        elec = qq / d2 * (332.0 / 4.0)
        p6 = r6 / d2**3
        k = np.where(inside, eps * (p6 * p6 - 2.0 * p6), 0.0)
        total = 0.0
        for i in range(len(rec)):  # the running, capped sum per receptor atom
            running = 0.0
            for j in np.flatnonzero(inside[i]):
                running = min(running + k[i, j], CAP)
                x = d2[i, j]
                pair = elec[i, j] + running
                if x >= 49.0:
                    pair *= (81.0 - x) * (81.0 - x) * (81.0 + 2.0 * x - 147.0) / 32768.0
                total += pair
        energy.append(total)
        a, b = interface_terms(model, d2)
        p_rec.append(a)
        p_lig.append(b)
    zeros = np.zeros(len(poses))
    return Terms(np.array(energy), np.array(p_rec), np.array(p_lig), zeros)
