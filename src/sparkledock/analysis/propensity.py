"""Interface propensity: how likely each residue of an unbound partner is to lie in a
protein-protein interface, from that partner's structure alone.

Each residue is described by its amino acid, its solvent exposure (relative and absolute
area, side-chain area, neighbour counts, half-sphere exposure), how far it protrudes, its
B-factor within the chain and its surface patch (the exposed residues within
:data:`PATCH_A`: their hydrophobicity, charges, aromatics, exposure, B-factors), and the
partner's size (:func:`residue_table`). A gradient-boosted tree model learned on the
training complexes only (``benchmarks/site_propensity.py``: label, a heavy atom within 5 Å
of the partner in the bound complex) gives each residue's log-odds of being at the
interface (:func:`residue_logodds`), evaluated without LightGBM (:mod:`.learned`'s trees).

A docking's pose is then described by the mean log-odds over its interface residues
(``benchmarks/lab_features.py``): whether it binds where a binding site is likely,
a signal independent of the scoring functions' (ISPRED/ProMate-style site prediction used
as a ranking feature, as interface-prediction-driven docking does).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..molecule.structure import Atoms
from ..preparation.surface import atom_sasa
from .learned import read_trees

AMINO_ACIDS = (
    "ALA", "ARG", "ASN", "ASP", "CYS", "GLN", "GLU", "GLY", "HIS", "ILE",
    "LEU", "LYS", "MET", "PHE", "PRO", "SER", "THR", "TRP", "TYR", "VAL",
)  # fmt: skip
#: The largest solvent-accessible area of each amino acid in a Gly-X-Gly peptide (Å²;
#: theoretical values of Tien et al., PLoS One 8:e80635, 2013), for relative exposure.
MAX_AREA = dict(zip(AMINO_ACIDS, (
    129, 274, 195, 193, 167, 225, 223, 104, 224, 197,
    201, 236, 224, 240, 159, 155, 172, 285, 263, 174,
), strict=True))  # fmt: skip
#: The area of a residue of another kind (nucleotide, modified residue kept as is).
OTHER_AREA = 200.0
#: Kyte–Doolittle hydropathy (J. Mol. Biol. 157:105, 1982).
HYDROPATHY = dict(zip(AMINO_ACIDS, (
    1.8, -4.5, -3.5, -3.5, 2.5, -3.5, -3.5, -0.4, -3.2, 4.5,
    3.8, -3.9, 1.9, 2.8, -1.6, -0.8, -0.7, -0.9, -1.3, 4.2,
), strict=True))  # fmt: skip
POSITIVE = ("ARG", "LYS")
NEGATIVE = ("ASP", "GLU")
AROMATIC = ("PHE", "TRP", "TYR", "HIS")
BACKBONE = ("N", "CA", "C", "O", "OXT")
#: A residue with at least this relative exposure is on the surface (patch features).
SURFACE_REL = 0.2
#: Surface residues whose representative atoms lie within this distance (Å) form a
#: residue's patch.
PATCH_A = 10.0
#: Half-sphere exposure radius (Å; Hamelryck, Proteins 59:38, 2005).
HSE_A = 13.0
#: The columns of :func:`residue_table`, in order: one column per amino acid (1 for the
#: residue's own), then the structural descriptors.
FEATURES = (
    *(f"is_{name.lower()}" for name in AMINO_ACIDS),
    "relative_area", "area", "side_chain_area", "b_factor_z", "neighbours_8", "neighbours_12",
    "half_sphere_up", "protrusion", "patch_size", "patch_hydropathy", "patch_positive",
    "patch_negative", "patch_aromatic", "patch_exposure", "patch_b_factor_z",
    "log_residues",
)  # fmt: skip


#: The shipped model (``data/``).
MODEL_FILE = "site_propensity.json"


def _zscores(values: np.ndarray) -> np.ndarray:
    """Values standardised within the chain; all zero where they do not vary (files whose
    B-factors are all zero or all equal)."""
    spread = values.std()
    return (values - values.mean()) / spread if spread > 1e-6 else np.zeros(len(values))


def residue_table(atoms: Atoms) -> np.ndarray:
    """(R, len(FEATURES)) descriptors of every residue of one partner (residues in
    :meth:`Atoms.residue_starts` order; hydrogens bury nothing and get no area)."""
    starts = atoms.residue_starts()
    ends = np.append(starts[1:], len(atoms))
    n = len(starts)
    names = atoms.atom_name.astype(str)
    area = atom_sasa(atoms)
    side_atoms = ~np.isin(names, BACKBONE)
    kinds = atoms.res_name.astype(str)[starts]
    centre_atom = np.zeros((n, 3))  # C-alpha (the residue's mean where it has none)
    beta = np.zeros((n, 3))  # C-beta (the C-alpha where it has none)
    side = np.zeros((n, 3))  # side chain's centroid (the C-alpha where it has none)
    res_area, side_area, b_factor = np.zeros(n), np.zeros(n), np.zeros(n)
    for i, (first, last) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        here, xyz = names[first:last], atoms.coords[first:last]
        ca = np.flatnonzero(here == "CA")
        centre_atom[i] = xyz[ca[0]] if len(ca) else xyz.mean(axis=0)
        cb = np.flatnonzero(here == "CB")
        beta[i] = xyz[cb[0]] if len(cb) else centre_atom[i]
        chain = side_atoms[first:last]
        side[i] = xyz[chain].mean(axis=0) if chain.any() else centre_atom[i]
        res_area[i] = area[first:last].sum()
        side_area[i] = area[first:last][chain].sum()
        b_factor[i] = atoms.b_factor[first:last].mean()
    relative = res_area / np.array([MAX_AREA.get(k, OTHER_AREA) for k in kinds])
    b_z = _zscores(b_factor)
    tree = cKDTree(centre_atom)
    near_8 = tree.query_ball_point(centre_atom, 8.0, return_length=True)
    near_12 = tree.query_ball_point(centre_atom, 12.0, return_length=True)
    half_up = np.zeros(n)
    for i, near in enumerate(tree.query_ball_point(centre_atom, HSE_A)):
        up = beta[i] - centre_atom[i]
        if up @ up > 1e-12:  # (glycine and residues without C-beta: no hemisphere)
            half_up[i] = int(((centre_atom[near] - centre_atom[i]) @ up > 0).sum())
    middle = centre_atom.mean(axis=0)
    gyration = np.sqrt(((centre_atom - middle) ** 2).sum(axis=1).mean())
    protrusion = np.linalg.norm(side - middle, axis=1) / max(gyration, 1e-6)
    surface = relative > SURFACE_REL
    hydropathy = np.array([HYDROPATHY.get(k, 0.0) for k in kinds])
    positive, negative = np.isin(kinds, POSITIVE), np.isin(kinds, NEGATIVE)
    aromatic = np.isin(kinds, AROMATIC)
    patch = np.zeros((n, 7))
    for i, near in enumerate(tree.query_ball_point(centre_atom, PATCH_A)):
        members = np.asarray(near, dtype=np.int64)
        members = members[surface[members]]
        weights = relative[members]
        if not len(members) or weights.sum() <= 0:
            continue
        patch[i] = (
            len(members), (hydropathy[members] * weights).sum() / weights.sum(),
            positive[members].mean(), negative[members].mean(), aromatic[members].mean(),
            relative[members].mean(), b_z[members].mean(),
        )  # fmt: skip
    kind_columns = (kinds[:, None] == np.array(AMINO_ACIDS)[None, :]).astype(np.float64)
    return np.column_stack([
        kind_columns, relative, res_area, side_area, b_z, near_8, near_12, half_up,
        protrusion, patch, np.full(n, np.log(max(n, 1))),
    ])  # fmt: skip


def residue_logodds(atoms: Atoms) -> np.ndarray:
    """Each residue's log-odds of lying at an interface, by the shipped model (trees learned
    on training complexes: ``data/site_propensity.json``)."""
    trees, _ = read_trees(MODEL_FILE, FEATURES)
    return trees.predict(residue_table(atoms))


def likely_residues(atoms: Atoms, fraction: float, logodds: np.ndarray | None = None) -> list[str]:
    """The ``fraction`` of a partner's residues (at least one) most likely to lie at an
    interface by :func:`residue_logodds` (or the per-residue ``logodds`` given), as LightDock
    identifiers in the chain's order."""
    ids = atoms.residue_ids()[atoms.residue_starts()]
    logodds = residue_logodds(atoms) if logodds is None else logodds
    count = max(1, round(fraction * len(ids)))
    return [str(ids[i]) for i in sorted(np.argsort(-logodds, kind="stable")[:count])]
