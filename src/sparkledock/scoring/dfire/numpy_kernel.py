"""Plain NumPy all-pairs DFIRE: the test oracle for every other backend.

No culling and no tiles: build each conformer with :mod:`sparkledock.molecule.pose`, form the full
receptor × ligand distance matrix and sum the table entries of pairs within the cutoff in
receptor-major order (``np.cumsum`` adds sequentially, like LightDock's C loop).
"""

from __future__ import annotations

import numpy as np

from ...molecule.pose import deform, rotate_lightdock
from ..terms import Terms
from .model import (
    DFIRE_CUTOFF2,
    N_BINS,
    N_TYPES,
    DFIREModel,
)


def _fraction_hit(group: np.ndarray, atoms: np.ndarray, n_groups: int) -> float:
    if n_groups == 0:
        return 0.0
    hit = np.unique(group[atoms])
    return float((hit >= 0).sum()) / n_groups


def score_poses(model: DFIREModel, poses: np.ndarray, *, threads: int | None = None) -> Terms:
    """All-pairs DFIRE energies and interface fractions of ``poses`` (validated (P, size)
    float64)."""
    del threads  # single-threaded reference
    lay = model.layout
    flat = model.table.ravel()
    out = np.empty((4, len(poses)))
    for p, pose in enumerate(poses):
        rec = deform(
            model.rec_xyz,
            model.rec_modes,
            np.ones(len(model.rec_xyz), bool),
            pose[None, lay.rec_extents],
        )[0]
        lig = deform(
            model.lig_xyz,
            model.lig_modes,
            np.ones(len(model.lig_xyz), bool),
            pose[None, lay.lig_extents],
        )[0]
        lig = rotate_lightdock(pose[lay.rotation], lig) + pose[lay.translation]
        dx = rec[:, None, 0] - lig[None, :, 0]
        dy = rec[:, None, 1] - lig[None, :, 1]
        dz = rec[:, None, 2] - lig[None, :, 2]
        d2 = dx * dx + dy * dy + dz * dz
        i, j = np.nonzero(d2 <= DFIRE_CUTOFF2)  # row-major: receptor-major, like LightDock
        k = np.maximum((np.sqrt(d2[i, j]) * 2.0 - 1.0).astype(np.int64), 0)
        idx = (model.rec_types[i] * N_TYPES + model.lig_types[j]) * (N_BINS + 1) + model.bins[k]
        iface = (k <= model.iface_kmax) & (d2[i, j] <= model.iface_d2max)
        ri, lj = i[iface], j[iface]
        out[:, p] = (
            np.cumsum(flat[idx])[-1] if len(idx) else 0.0,
            _fraction_hit(model.rec_restraint_group, ri, model.n_rec_restraints),
            _fraction_hit(model.lig_restraint_group, lj, model.n_lig_restraints),
            _fraction_hit(model.membrane_group, ri, model.n_membrane),
        )
    return Terms(*out)
