"""``cpydock`` on the CPU with Numba: poses in parallel (one thread each), far atoms culled.

Per pose: the ligand conformer and its culling boxes; per receptor atom in order (its modes
added), the electrostatics of every group of ligand atoms within 30 Å (groups farther away
would add nothing), summed in LightDock's order, so scores are bit-identical to LightDock's.
The pairs within 10 Å (:func:`near_ligand`, in order) give the van der Waals sum, the nearest
partners of the desolvation term (only those within 6.4 Å matter) and the restraint pairs.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...molecule.pose import EXTENTS_START
from ..numba_common import (
    GROUP,
    SUB,
    flag_pair,
    near_ligand,
    point_gap2,
    posed_ligand,
    receptor_atom,
    run_batch,
    store_fractions,
)
from ..terms import Terms
from ..vdw.model import INTERFACE_CUTOFF_A, VDW_CAP, VDW_CUTOFF_A
from ..vdw.numba_kernel import vdw_arrays
from .model import ELEC_CUTOFF_A, EPSILON, FACTOR, SOLVATION_CUTOFF_A, PyDockModel

HUGE_D2 = 10000.0


class PyDockArrays(NamedTuple):
    n_rec_modes: int
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    rec_class: np.ndarray
    lig_class: np.ndarray
    eps: np.ndarray
    r6: np.ndarray
    rec_q: np.ndarray
    lig_q: np.ndarray
    rec_heavy: np.ndarray
    lig_heavy: np.ndarray
    rec_sasa: np.ndarray
    lig_sasa: np.ndarray
    rec_solv: np.ndarray
    lig_solv: np.ndarray
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int
    mem_group: np.ndarray
    vdw_weight: float


def pydock_arrays(model: PyDockModel) -> PyDockArrays:
    v = vdw_arrays(model.pairs)
    return PyDockArrays(
        n_rec_modes=v.n_rec_modes,
        rec_xyz=v.rec_xyz,
        rec_modes=v.rec_modes,
        lig_xyz=v.lig_xyz,
        lig_modes=v.lig_modes,
        rec_class=v.rec_class,
        lig_class=v.lig_class,
        eps=v.eps,
        r6=v.r6,
        rec_q=model.pairs.rec_charge,
        lig_q=model.pairs.lig_charge,
        rec_heavy=model.rec_heavy,
        lig_heavy=model.lig_heavy,
        rec_sasa=model.rec_sasa,
        lig_sasa=model.lig_sasa,
        rec_solv=model.rec_solv,
        lig_solv=model.lig_solv,
        rec_group=v.rec_group,
        n_rec_groups=v.n_rec_groups,
        lig_group=v.lig_group,
        n_lig_groups=v.n_lig_groups,
        mem_group=v.mem_group,
        vdw_weight=float(model.vdw_weight),
    )


@njit(cache=True, inline="never", error_model="numpy")
def _elec_block(elec, x, y, z, qi, j0, j1, lx, ly, lz, lq):
    """``elec`` plus the clamped Coulomb terms of receptor atom (x, y, z) against ligand atoms
    ``j0:j1`` within 30 Å, added one by one in LightDock's order (the NumPy error model drops
    the zero-divisor branch, so only the sum's dependency chain stays serial)."""
    hi = 1.0 * EPSILON / FACTOR
    lo = -1.0 * EPSILON / FACTOR
    cut = ELEC_CUTOFF_A * ELEC_CUTOFF_A
    for j in range(j0, j1):
        dx = x - lx[j]
        dy = y - ly[j]
        dz = z - lz[j]
        d2 = dx * dx + dy * dy + dz * dz
        e = min(max(qi * lq[j] / d2, lo), hi)
        elec += e if d2 <= cut else 0.0
    return elec


@njit(cache=True, inline="never")
def _buried(min_d2, sasa, solv):
    """LightDock's desolvation sum over one partner's atoms, in order."""
    cut = SOLVATION_CUTOFF_A * SOLVATION_CUTOFF_A
    total = 0.0
    for i in range(min_d2.shape[0]):
        if min_d2[i] <= cut and min_d2[i] > 0.0 and sasa[i] > 0:
            s = -10.0 * math.sqrt(min_d2[i]) + 65.0
        else:
            s = 0.0
        if s > sasa[i]:
            s = sasa[i]
        total += s * solv[i]
    return total


@njit(cache=True)
def _score_one(pose, m, out):
    n_lig = m.lig_xyz.shape[0]
    n_rec = m.rec_xyz.shape[0]
    lx, ly, lz, sub_box, group_box, all_box = posed_ligand(
        pose, EXTENTS_START + m.n_rec_modes, m.lig_xyz, m.lig_modes
    )
    lmin = np.full(n_lig, HUGE_D2)
    rmin = np.full(n_rec, HUGE_D2)
    rec_hit = np.zeros(max(m.n_rec_groups, 1), dtype=np.bool_)
    lig_hit = np.zeros(max(m.n_lig_groups, 1), dtype=np.bool_)
    mem_hit = np.zeros(1, dtype=np.bool_)
    cut2 = ELEC_CUTOFF_A * ELEC_CUTOFF_A
    bound = cut2 * (1.0 + 1e-12) + 1e-12
    iface2 = INTERFACE_CUTOFF_A * INTERFACE_CUTOFF_A
    vdw2 = VDW_CUTOFF_A * VDW_CUTOFF_A
    hit_j = np.empty(n_lig, dtype=np.int64)
    hit_d2 = np.empty(n_lig)
    restrained = m.n_rec_groups + m.n_lig_groups > 0
    span = SUB * GROUP
    elec = 0.0
    vdw = 0.0
    for i in range(n_rec):
        x, y, z = receptor_atom(pose, EXTENTS_START, m.rec_xyz, m.rec_modes, i)
        if point_gap2(x, y, z, all_box) > bound:
            continue
        qi = m.rec_q[i]
        for g in range(group_box.shape[0]):
            if point_gap2(x, y, z, group_box[g]) <= bound:
                elec = _elec_block(
                    elec, x, y, z, qi, g * span, min((g + 1) * span, n_lig), lx, ly, lz, m.lig_q
                )
        # van der Waals, nearest partners (only within 6.4 Å matter) and restraints: the
        # pairs within 10 Å, in LightDock's order
        n = near_ligand(x, y, z, lx, ly, lz, sub_box, group_box, vdw2, hit_j, hit_d2)
        ci = m.rec_class[i]
        seen_i = m.rec_heavy[i]
        best = HUGE_D2
        for h in range(n):
            j = hit_j[h]
            d2 = hit_d2[h]
            cj = m.lig_class[j]
            p6 = m.r6[ci, cj] / math.pow(d2, 3.0)
            k = m.eps[ci, cj] * (p6 * p6 - 2.0 * p6)
            if k > VDW_CAP:
                k = VDW_CAP
            vdw += k
            if seen_i and m.lig_heavy[j]:
                best = min(best, d2)
                lmin[j] = min(lmin[j], d2)
            if restrained and d2 <= iface2:
                flag_pair(i, j, m.rec_group, rec_hit, m.lig_group, lig_hit, m.mem_group, mem_hit)
        rmin[i] = best
    elec = elec * FACTOR / EPSILON
    solv_rec = _buried(rmin, m.rec_sasa, m.rec_solv)
    solv_lig = _buried(lmin, m.lig_sasa, m.lig_solv)
    out[0] = elec + m.vdw_weight * vdw + -1 * (solv_rec + solv_lig)
    store_fractions(out, rec_hit, m.n_rec_groups, lig_hit, m.n_lig_groups, mem_hit, 0)


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


def score_poses(model: PyDockModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """Energies and restraint fractions of validated ``poses``."""
    return run_batch(_score_batch, poses, pydock_arrays(model), threads=threads)
