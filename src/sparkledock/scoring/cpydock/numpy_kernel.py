"""The all-pairs NumPy oracle for ``cpydock`` (tests check the Numba kernel against it)."""

from __future__ import annotations

import numpy as np

from ..terms import Terms
from ..vdw.model import VDW_CAP, VDW_CUTOFF_A
from ..vdw.numpy_kernel import conformers, interface_terms
from .model import ELEC_CUTOFF_A, EPSILON, FACTOR, SOLVATION_CUTOFF_A, PyDockModel

HUGE_D2 = 10000.0


def buried(min_d2: np.ndarray, sasa: np.ndarray, solv: np.ndarray) -> float:
    """Σ min(65 − 10·d_min, ASA)·σ over atoms with a partner within 6.4 Å (LightDock's rule,
    including its clamp of non-buried atoms to a negative ASA: hydrogens, σ = 0)."""
    near = (min_d2 <= SOLVATION_CUTOFF_A * SOLVATION_CUTOFF_A) & (min_d2 > 0.0) & (sasa > 0)
    area = np.where(near, -10.0 * np.sqrt(min_d2) + 65.0, 0.0)
    area = np.where(area > sasa, sasa, area)
    return float((area * solv).sum())


def score_poses(model: PyDockModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    m = model.pairs
    recs, ligs = conformers(m, poses)
    qq = m.rec_charge[:, None] * m.lig_charge[None, :]
    eps = np.sqrt(m.rec_eps[:, None] * m.lig_eps[None, :])
    radius = m.rec_radius[:, None] + m.lig_radius[None, :]
    both = model.rec_heavy[:, None] & model.lig_heavy[None, :]
    hi, lo = 1.0 * EPSILON / FACTOR, -1.0 * EPSILON / FACTOR
    energy, p_rec, p_lig = [], [], []
    for rec, lig in zip(recs, ligs, strict=True):
        d = rec[:, None, :] - lig[None, :, :]
        d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
        elec = np.clip(qq / d2, lo, hi)
        elec = float(elec[d2 <= ELEC_CUTOFF_A * ELEC_CUTOFF_A].sum()) * FACTOR / EPSILON
        p6 = radius**6 / d2**3
        lj = np.minimum(eps * (p6 * p6 - 2.0 * p6), VDW_CAP)
        vdw = float(lj[d2 <= VDW_CUTOFF_A * VDW_CUTOFF_A].sum())
        heavy_d2 = np.where(both, d2, HUGE_D2)
        solv_rec = buried(heavy_d2.min(axis=1), model.rec_sasa, model.rec_solv)
        solv_lig = buried(heavy_d2.min(axis=0), model.lig_sasa, model.lig_solv)
        energy.append(elec + model.vdw_weight * vdw + -1 * (solv_rec + solv_lig))
        a, b = interface_terms(m, d2)
        p_rec.append(a)
        p_lig.append(b)
    zeros = np.zeros(len(poses))
    return Terms(np.array(energy), np.array(p_rec), np.array(p_lig), zeros)
