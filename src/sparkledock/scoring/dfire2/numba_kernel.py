"""``dfire2`` on the CPU with Numba: poses in parallel (one thread each), far pairs culled.

Per pose: the conformers of the receptor (modes added) and ligand, concatenated as LightDock
concatenates them, and exact boxes of sub-tiles of 8 atoms and groups of 8 sub-tiles; per
atom ``i`` in order, the atoms ``j > i`` of boxes within 15 Å in ascending order, so pairs
are summed in LightDock's ``i < j`` order (pairs beyond 15 Å would add nothing): scores are
bit-identical to LightDock's.
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
    ligand_boxes,
    ligand_conformer,
    point_gap2,
    receptor_atom,
    run_batch,
)
from ..terms import Terms
from .model import INTERFACE_2D, N_BINS, N_TYPES, DFIRE2Model


class DFIRE2Arrays(NamedTuple):
    n_rec_modes: int
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    offsets: np.ndarray
    residues: np.ndarray
    table: np.ndarray
    rec_group: np.ndarray
    n_rec_groups: int
    lig_group: np.ndarray
    n_lig_groups: int


def dfire2_arrays(model: DFIRE2Model) -> DFIRE2Arrays:
    return DFIRE2Arrays(
        n_rec_modes=model.layout.n_rec,
        rec_xyz=model.rec_xyz,
        rec_modes=model.rec_modes,
        lig_xyz=model.lig_xyz,
        lig_modes=model.lig_modes,
        offsets=(model.types * N_BINS).astype(np.int64),
        residues=model.residues,
        table=np.ascontiguousarray(model.table.reshape(-1)),
        rec_group=model.rec_restraint_group,
        n_rec_groups=model.n_rec_restraints,
        lig_group=model.lig_restraint_group,
        n_lig_groups=model.n_lig_restraints,
    )


@njit(cache=True)
def _score_one(pose, m, out):
    n_rec = m.rec_xyz.shape[0]
    n_lig = m.lig_xyz.shape[0]
    n = n_rec + n_lig
    x = np.empty(n)
    y = np.empty(n)
    z = np.empty(n)
    for i in range(n_rec):
        x[i], y[i], z[i] = receptor_atom(pose, EXTENTS_START, m.rec_xyz, m.rec_modes, i)
    ligand_conformer(
        pose, EXTENTS_START + m.n_rec_modes, m.lig_xyz, m.lig_modes,
        x[n_rec:], y[n_rec:], z[n_rec:],
    )  # fmt: skip
    n_sub = (n + SUB - 1) // SUB
    sub_box = np.empty((n_sub, 6))
    group_box = np.empty(((n_sub + GROUP - 1) // GROUP, 6))
    all_box = np.empty(6)
    ligand_boxes(x, y, z, sub_box, group_box, all_box)
    first = np.zeros(n, dtype=np.bool_)
    second = np.zeros(n, dtype=np.bool_)
    cut = N_BINS / 2.0
    bound = cut * cut * (1.0 + 1e-12) + 1e-12
    span = SUB * GROUP
    energy = 0.0
    for i in range(n):
        xi, yi, zi = x[i], y[i], z[i]
        ri = m.residues[i]
        row = m.offsets[i] * N_TYPES
        for g in range((i + 1) // span, group_box.shape[0]):
            if point_gap2(xi, yi, zi, group_box[g]) > bound:
                continue
            for s in range(max(g * GROUP, (i + 1) // SUB), min((g + 1) * GROUP, n_sub)):
                if point_gap2(xi, yi, zi, sub_box[s]) > bound:
                    continue
                for j in range(max(s * SUB, i + 1), min((s + 1) * SUB, n)):
                    if m.residues[j] == ri:
                        continue
                    dx = xi - x[j]
                    dy = yi - y[j]
                    dz = zi - z[j]
                    dist = math.sqrt(dx * dx + dy * dy + dz * dz) * 2
                    if dist <= INTERFACE_2D:
                        first[i] = True
                        second[j] = True
                    b = int(dist)
                    if b < N_BINS:
                        energy += m.table[row + m.offsets[j] + b]
    out[0] = energy / 100.0  # (LightDock's C returns the sum over 100)
    # LightDock's restraint sets hold concatenated indices (see the model's notes)
    out[1] = _fraction(first, m.rec_group, m.n_rec_groups)
    out[2] = _fraction(second, m.lig_group, m.n_lig_groups)
    out[3] = 0.0


@njit(cache=True)
def _fraction(hit, groups, n_groups):
    if n_groups == 0:
        return 0.0
    seen = np.zeros(n_groups, dtype=np.bool_)
    for k in range(groups.shape[0]):
        if groups[k] >= 0 and hit[k]:
            seen[groups[k]] = True
    return seen.sum() / n_groups


@njit(parallel=True, cache=True)
def _score_batch(poses, m):
    out = np.empty((poses.shape[0], 4))
    for p in prange(poses.shape[0]):
        _score_one(poses[p], m, out[p])
    return out


def score_poses(model: DFIRE2Model, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    return run_batch(_score_batch, poses, dfire2_arrays(model), threads=threads)
