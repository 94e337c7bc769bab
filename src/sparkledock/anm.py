"""Normal modes from an anisotropic network model (ANM) of the C-alpha atoms.

What LightDock computes through ProDy, written with SciPy: a network of C-alpha atoms joined
within 15 Å by springs of equal strength; the lowest non-trivial modes of its Hessian; each
residue's atoms moved with their C-alpha (modes extended to all atoms and renormalised); then
every mode scaled so that random N(0, 1) extents give conformers with a mean RMSD of ``rmsd``
Å from the input, the scaling weighted by each mode's variance (``1 / eigenvalue``).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh

from .errors import UnsupportedAtomError
from .structure import Atoms

ANM_CUTOFF_A = 15.0
#: The random sample LightDock draws (400 swarms × 200 glowworms) to calibrate mode scales.
SCALE_SAMPLES = 400 * 200
#: Amino-acid residue names whose atoms normal modes move (ProDy's "protein" for our types).
AMINO_ACIDS = frozenset(
    [
        "ALA",
        "ARG",
        "ASN",
        "ASP",
        "CYS",
        "GLN",
        "GLU",
        "GLY",
        "HIS",
        "ILE",
        "LEU",
        "LYS",
        "MET",
        "PHE",
        "PRO",
        "SER",
        "THR",
        "TRP",
        "TYR",
        "VAL",
        "HSD",
        "HSE",
        "HSP",
        "HID",
        "HIE",
        "HIP",
        "CYX",
        "MSE",
    ]
)


def mode_mask(atoms: Atoms) -> np.ndarray:
    """Atoms of amino-acid residues: the atoms normal modes move."""
    return np.isin(atoms.res_name.astype(str), list(AMINO_ACIDS))


def anm_hessian(ca: np.ndarray, cutoff: float = ANM_CUTOFF_A, gamma: float = 1.0) -> np.ndarray:
    """The (3n, 3n) ANM Hessian of n nodes: ``−gamma·r rᵀ/|r|²`` per contact within cutoff."""
    n = len(ca)
    diff = ca[:, None, :] - ca[None, :, :]
    d2 = (diff**2).sum(axis=2)
    contact = (d2 <= cutoff * cutoff) & ~np.eye(n, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = np.where(contact, -gamma / d2, 0.0)
    blocks = weight[:, :, None, None] * diff[:, :, :, None] * diff[:, :, None, :]
    idx = np.arange(n)
    blocks[idx, idx] = -blocks.sum(axis=1)
    return blocks.transpose(0, 2, 1, 3).reshape(3 * n, 3 * n)


def normal_modes(
    atoms: Atoms,
    n_modes: int = 10,
    rmsd: float = 0.5,
    seed: int = 324324,
    source: str = "structure",
) -> tuple[np.ndarray, np.ndarray]:
    """LightDock-style ANM modes of a structure.

    Returns:
        (modes, mask): modes of shape (n_modes, mask.sum(), 3) for the atoms where ``mask``
        (amino-acid residues) is True.

    Raises:
        UnsupportedAtomError: a residue without (or with several) C-alpha atoms.
        ValueError: too few C-alpha atoms for the requested modes.
    """
    mask = mode_mask(atoms)
    sub = atoms.select(mask)
    starts = sub.residue_starts()
    residue_of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(sub))))
    is_ca = sub.atom_name.astype(str) == "CA"
    ca_residue = residue_of[is_ca]
    if len(ca_residue) != len(starts) or len(np.unique(ca_residue)) != len(starts):
        per_residue = np.bincount(ca_residue, minlength=len(starts))
        bad = int(np.flatnonzero(per_residue != 1)[0])
        a = starts[bad]
        raise UnsupportedAtomError(
            f"{source}: residue chain {sub.chain[a]} {sub.res_name[a]} {sub.res_seq[a]}"
            f"{sub.ins_code[a]} has {per_residue[bad]} CA atoms; normal modes need one per "
            "residue (complete or remove it, or run without --anm)"
        )
    n_nodes = len(ca_residue)
    if 3 * n_nodes < n_modes + 6:
        raise UnsupportedAtomError(
            f"{source}: {n_nodes} C-alpha atoms are too few for {n_modes} normal modes "
            f"(at least {-(-(n_modes + 6) // 3)} needed; use fewer modes or no --anm)"
        )
    hessian = anm_hessian(sub.coords[is_ca])
    values, vectors = eigh(hessian, subset_by_index=[0, min(n_modes + 6, 3 * n_nodes) - 1])
    keep = values > 1e-6 * max(1.0, float(values[-1]))  # drop the six rigid-body modes
    values, vectors = values[keep][:n_modes], vectors[:, keep][:, :n_modes]
    # extend: every atom takes its residue's C-alpha displacement, then renormalise
    per_node = vectors.T.reshape(len(values), n_nodes, 3)
    extended = per_node[:, residue_of, :]
    extended /= np.sqrt((extended**2).sum(axis=(1, 2)))[:, None, None]
    variances = 1.0 / values
    draws = np.random.RandomState(seed).normal(0.0, 1.0, size=(SCALE_SAMPLES, n_modes))
    coef = np.sqrt((draws[:, : len(values)] ** 2 * variances).sum(axis=1)).mean()
    scale = np.sqrt(len(sub)) * rmsd / coef * np.sqrt(variances)
    return extended * scale[:, None, None], mask
