"""Normal modes from an anisotropic network model (ANM) of the C-alpha (or C4') atoms.

What LightDock computes through ProDy, written with SciPy: a network of one node per residue
(the C-alpha of an amino acid, the C4' of a nucleotide, as LightDock selects "name C4'" when a
molecule has no C-alpha) joined within 15 Å by springs of equal strength; the lowest
non-trivial modes of its Hessian; each residue's atoms moved with their node (modes extended to
all atoms and renormalised); then
every mode scaled so that random N(0, 1) extents give conformers with a mean RMSD of ``rmsd``
Å from the input, the scaling weighted by each mode's variance (``1 / eigenvalue``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import eigsh
from scipy.spatial import cKDTree

from ..errors import UnsupportedAtomError
from ..seeds import DEFAULT_SEED
from .structure import Atoms

ANM_CUTOFF_A = 15.0
#: Networks up to this many C-alpha atoms are solved densely (as ProDy does), larger sparsely.
DENSE_NODES = 1500
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


#: Nucleotide residue names whose atoms normal modes move (ProDy's "nucleic", which
#: LightDock's modes use): standard and common modified nucleotides, bases and nucleosides.
_PRODY_NUCLEIC = (
    "2MA 2MG 2YR 3TD 4OC 5GP 5MC 5MU 6MA 7MG A A2P A3P ADE ADN ADP AGS AMP ATP C C2P C3P C5P "
    "CDP CMP CP1 CTN CTP CYT DA DC DG DT DU G GDP GMP GTP GUA GUN MA6 MIA OMC OMG OMU PSU T "
    "THM THY TMP TPP TTP U UDP UMP UR3 URA URI UTP"
)
NUCLEIC = frozenset(_PRODY_NUCLEIC.split())


def mode_mask(atoms: Atoms) -> np.ndarray:
    """Atoms of amino-acid and nucleotide residues: the atoms normal modes move."""
    return np.isin(atoms.res_name.astype(str), list(AMINO_ACIDS | NUCLEIC))


def node_mask(atoms: Atoms) -> np.ndarray:
    """The network's nodes: C-alpha atoms of amino acids, C4' atoms of nucleotides.

    LightDock (ProDy) takes every atom named CA, or, in a molecule without one, every C4'; on
    a protein or a nucleic acid that is the same choice. A molecule with both (a protein-DNA
    complex as one partner) fails in LightDock; here each residue has its own node.
    """
    names = atoms.atom_name.astype(str)
    nucleic = np.isin(atoms.res_name.astype(str), list(NUCLEIC))
    return np.where(nucleic, names == "C4'", names == "CA") & mode_mask(atoms)


#: The atoms a backbone remnant holds (hydrogens aside): what a cut chain leaves of a
#: residue whose C-alpha is gone.
REMNANT_ATOMS = frozenset({"N", "C", "O", "OXT"})


def backbone_remnants(atoms: Atoms) -> np.ndarray:
    """True for the atoms of backbone remnants: residues normal modes move that hold no node
    atom and nothing but N, C, O, OXT and hydrogens (the lone N a cut chain leaves, in 7 of
    the 175 training complexes' unbound files). They cannot be nodes; :func:`normal_modes`
    refuses any residue without one, and the setup drops these with a warning."""
    starts, residue = atoms.residue_starts(), atoms.residue_index()
    names = atoms.atom_name.astype(str)
    backbone = np.isin(names, list(REMNANT_ATOMS)) | np.char.startswith(names, "H")
    moved = mode_mask(atoms)
    has_node = np.bincount(residue, weights=node_mask(atoms), minlength=len(starts)) > 0
    all_backbone = np.bincount(residue, weights=~backbone, minlength=len(starts)) == 0
    remnant = moved[starts] & ~has_node & all_backbone
    return remnant[residue]


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


def sparse_anm_hessian(
    ca: np.ndarray, cutoff: float = ANM_CUTOFF_A, gamma: float = 1.0
) -> sp.csc_matrix:
    """:func:`anm_hessian` as a sparse matrix, built from the contacts alone (for networks too
    large for a dense (3n, 3n) array)."""
    n = len(ca)
    pairs = cKDTree(ca).query_pairs(cutoff, output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]
    diff = ca[i] - ca[j]
    block = (-gamma / (diff**2).sum(axis=1))[:, None, None] * diff[:, :, None] * diff[:, None, :]
    diagonal = np.zeros((n, 3, 3))
    np.add.at(diagonal, i, -block)
    np.add.at(diagonal, j, -block)
    nodes = np.concatenate([i, j, np.arange(n)])
    others = np.concatenate([j, i, np.arange(n)])
    values = np.concatenate([block, block.transpose(0, 2, 1), diagonal])
    axis = np.arange(3)
    rows = (3 * nodes[:, None, None] + axis[None, :, None]).repeat(3, axis=2)
    cols = (3 * others[:, None, None] + axis[None, None, :]).repeat(3, axis=1)
    return sp.csc_matrix((values.ravel(), (rows.ravel(), cols.ravel())), shape=(3 * n, 3 * n))


def lowest_modes(ca: np.ndarray, n_modes: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_modes`` lowest non-trivial eigenpairs of the ANM Hessian of C-alpha atoms.

    Each connected part of the network has six rigid-body modes of zero frequency; they are
    skipped. Up to :data:`DENSE_NODES` nodes the Hessian is dense and solved by LAPACK (what
    ProDy does; equal to LightDock's modes on the benchmark); beyond, it is sparse and solved
    by shift-invert Lanczos (ARPACK), which gives the same eigenpairs (to ~1e-12, tested on a
    2,128-node receptor) in seconds instead of the dense solver's O(n³) time and O(n²) memory,
    with each vector's largest component made positive (a fixed sign).
    """
    n = len(ca)
    contacts = cKDTree(ca).query_pairs(ANM_CUTOFF_A, output_type="ndarray")
    graph = sp.coo_matrix((np.ones(len(contacts)), (contacts[:, 0], contacts[:, 1])), (n, n))
    parts = connected_components(graph, directed=False)[0]
    wanted = min(n_modes + 6 * parts, 3 * n - 1)
    if n <= DENSE_NODES:
        values, vectors = eigh(anm_hessian(ca), subset_by_index=[0, wanted - 1])
    else:
        start = np.full(3 * n, 1.0 / np.sqrt(3 * n))  # a fixed start: a deterministic result
        values, vectors = eigsh(sparse_anm_hessian(ca), k=wanted, sigma=-1e-3, which="LM", v0=start)
        order = np.argsort(values)
        values, vectors = values[order], vectors[:, order]
        largest = np.abs(vectors).argmax(axis=0)
        vectors = vectors * np.sign(vectors[largest, np.arange(vectors.shape[1])])
    keep = values > 1e-6 * max(1.0, float(values[-1]))  # drop the rigid-body modes
    return values[keep][:n_modes], vectors[:, keep][:, :n_modes]


def normal_modes(
    atoms: Atoms,
    n_modes: int = 10,
    rmsd: float = 0.5,
    seed: int = DEFAULT_SEED,
    source: str = "structure",
) -> tuple[np.ndarray, np.ndarray]:
    """LightDock-style ANM modes of a structure.

    Returns:
        (modes, mask): modes of shape (n_modes, mask.sum(), 3) for the atoms where ``mask``
        (amino-acid and nucleotide residues) is True.

    Raises:
        UnsupportedAtomError: a residue without (or with several) C-alpha (C4') atoms.
        UnsupportedAtomError: too few nodes for the requested modes.
    """
    mask = mode_mask(atoms)
    sub = atoms.select(mask)
    starts = sub.residue_starts()
    residue_of = sub.residue_index()
    is_ca = node_mask(sub)
    ca_residue = residue_of[is_ca]
    if len(ca_residue) != len(starts) or len(np.unique(ca_residue)) != len(starts):
        per_residue = np.bincount(ca_residue, minlength=len(starts))
        bad = int(np.flatnonzero(per_residue != 1)[0])
        a = starts[bad]
        node = "C4'" if sub.res_name[a] in NUCLEIC else "CA"
        raise UnsupportedAtomError(
            f"{source}: residue chain {sub.chain[a]} {sub.res_name[a]} {sub.res_seq[a]}"
            f"{sub.ins_code[a]} has {per_residue[bad]} {node} atoms; normal modes need one "
            "per residue (complete or remove it, or run without {0})",
            "anm",
        )
    n_nodes = len(ca_residue)
    if 3 * n_nodes < n_modes + 6:
        raise UnsupportedAtomError(
            f"{source}: {n_nodes} C-alpha or C4' atoms are too few for {n_modes} normal modes "
            f"(at least {-(-(n_modes + 6) // 3)} needed; use fewer modes or no {{0}})",
            "anm",
        )
    values, vectors = lowest_modes(sub.coords[is_ca], n_modes)
    if len(values) < n_modes:
        raise UnsupportedAtomError(
            f"{source}: its C-alpha network has only {len(values)} non-rigid normal modes, "
            f"{n_modes} asked (use fewer modes or no {{0}})",
            "anm",
        )
    # extend: every atom takes its residue's C-alpha displacement, then renormalise
    per_node = vectors.T.reshape(len(values), n_nodes, 3)
    extended = per_node[:, residue_of, :]
    extended /= np.sqrt((extended**2).sum(axis=(1, 2)))[:, None, None]
    variances = 1.0 / values
    draws = np.random.RandomState(seed).normal(0.0, 1.0, size=(SCALE_SAMPLES, n_modes))
    coef = np.sqrt((draws[:, : len(values)] ** 2 * variances).sum(axis=1)).mean()
    scale = np.sqrt(len(sub)) * rmsd / coef * np.sqrt(variances)
    return extended * scale[:, None, None], mask
