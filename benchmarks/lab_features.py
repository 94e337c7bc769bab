"""Research features of docking solutions that no shipped model reads: where the interface
lies by the site model (interface propensity), how squarely the surfaces face each other
(shape complementarity) and formal charges across the interface (formal Coulomb). Tried as
candidates for the learned rankings (``blind_learned.py --features``, ``site_chooser.py``,
``contact_features.py``); none earned a place (benchmarks/notebook/performance.md, "seventh
part" and the contact-features pass), so they live here. Importing this module registers
them with the package's feature table (``sparkledock.analysis.features.COMPUTED``), where
``solution_features`` finds them by name."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from sparkledock.analysis import features
from sparkledock.analysis.features import (
    CHUNK,
    CONTACT_A,
    atom_interfaces,
    interface_residues,
)
from sparkledock.analysis.models import complex_coordinates
from sparkledock.analysis.propensity import residue_logodds
from sparkledock.molecule.residues import NUCLEOTIDES
from sparkledock.molecule.system import DockingSetup

#: The interface-propensity features (:func:`interface_propensity`).
PROPENSITY = ("propensity_receptor", "propensity_ligand", "propensity")
#: Where the interface lies: the mean interface log-odds of the pose's receptor and ligand
#: interface residues by the site model, and their sum (as a rank and as a value): a signal
#: independent of the energies. A model trained with it (``blind_learned.py --features
#: propensity``) tied the shipped one on the twenty (notebook, "seventh part").
BLIND_SITE = (
    ("propensity", "rank"), ("propensity", "raw"), ("propensity_receptor", "raw"),
    ("propensity_ligand", "raw"),
)  # fmt: skip


def interface_propensity(
    setup: DockingSetup,
    poses: np.ndarray,
    logodds: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Per pose: the mean interface log-odds (the site model's) of its receptor
    interface residues, of its ligand ones (residues as :func:`interface_sizes` counts
    them), and their sum; a partner without interface residues counts its mean over all
    residues. ``logodds``: each partner's residues' values (default: the shipped model's;
    training pools pass out-of-fold ones). Rounded to float32, as archives keep them."""
    if logodds is None:
        logodds = residue_logodds(setup.receptor.atoms), residue_logodds(setup.ligand.atoms)
    rec, lig = (np.asarray(v, dtype=np.float64) for v in logodds)
    for values, partner in ((rec, setup.receptor), (lig, setup.ligand)):
        if len(values) != len(partner.atoms.residue_starts()):
            raise ValueError(
                f"{len(values)} residue log-odds for a partner of "
                f"{len(partner.atoms.residue_starts())} residues"
            )
    out = {name: np.zeros(len(poses)) for name in PROPENSITY}
    for p, receptor, ligand, _ in interface_residues(setup, poses):
        out["propensity_receptor"][p] = rec[receptor].mean() if len(receptor) else rec.mean()
        out["propensity_ligand"][p] = lig[ligand].mean() if len(ligand) else lig.mean()
    out["propensity"] = out["propensity_receptor"] + out["propensity_ligand"]
    return {k: v.astype(np.float32).astype(np.float64) for k, v in out.items()}


#: A partner's atoms within this distance (Å) of one of its atoms set that atom's outward
#: normal (:func:`outward_normals`).
NORMAL_A = 10.0


def outward_normals(
    coords: np.ndarray, at: np.ndarray | None = None, tree: cKDTree | None = None
) -> np.ndarray:
    """Unit vectors from the centroid of each atom's neighbours within :data:`NORMAL_A`
    (its own partner's atoms, itself included) to the atom: the local surface's outward
    normal, for atoms ``at`` (default all); zero where the centroid is the atom."""
    coords = np.asarray(coords, dtype=np.float64)
    at = np.arange(len(coords)) if at is None else np.asarray(at)
    tree = cKDTree(coords) if tree is None else tree
    if not len(at):
        return np.zeros((0, 3))
    near = tree.query_ball_point(coords[at], NORMAL_A)
    sizes = np.fromiter((len(n) for n in near), dtype=np.int64, count=len(near))
    flat = np.concatenate([np.asarray(n, dtype=np.int64) for n in near])
    sums = np.add.reduceat(coords[flat], np.append(0, np.cumsum(sizes)[:-1]), axis=0)
    away = coords[at] - sums / sizes[:, None]
    length = np.sqrt((away**2).sum(axis=1))
    return np.divide(away, length[:, None], out=np.zeros_like(away), where=length[:, None] > 0)


def shape_complementarity(setup: DockingSetup, poses: np.ndarray) -> np.ndarray:
    """Per pose, how squarely the two surfaces face each other across the interface, in
    [-1, 1]: for every buried atom (a partner atom within :data:`CONTACT_A`), minus the dot
    product of its outward normal (:func:`outward_normals`) with its nearest partner atom's;
    the mean of the receptor's median and the ligand's. Lawrence and Colman's Sc over atoms
    instead of surface dots and without its distance weight: no surface calculation, no
    extra. The receptor's normals are its resting ones (its normal modes move atoms by a few
    Å, which turns a normal little); the ligand's are the posed ones. 0 without contact."""
    out = np.zeros(len(poses))
    rec_normals = outward_normals(setup.receptor.atoms.coords)
    for p, can, moved, lig in atom_interfaces(setup, poses):
        lig_tree = cKDTree(lig)
        distance, nearest_lig = lig_tree.query(moved, distance_upper_bound=2 * CONTACT_A)
        buried = distance <= CONTACT_A
        if not buried.any():
            continue
        rec_atoms, nearest_lig = can[buried], nearest_lig[buried]
        distance, nearest_rec = cKDTree(moved[buried]).query(
            lig, distance_upper_bound=2 * CONTACT_A
        )
        lig_atoms = np.flatnonzero(distance <= CONTACT_A)
        need = np.union1d(lig_atoms, nearest_lig)
        lig_normals = np.zeros((len(lig), 3))
        lig_normals[need] = outward_normals(lig, need, lig_tree)
        facing_rec = -(rec_normals[rec_atoms] * lig_normals[nearest_lig]).sum(axis=1)
        partner = rec_normals[rec_atoms[nearest_rec[lig_atoms]]]
        facing_lig = -(lig_normals[lig_atoms] * partner).sum(axis=1)
        out[p] = 0.5 * (np.median(facing_rec) + np.median(facing_lig))
    return out


#: Formal charges (e) at one atom of each charged group: the side chains at pH 7 (histidine
#: neutral), a nucleotide's phosphate. The termini are left out (their atoms are often
#: missing or renamed in unbound structures).
FORMAL_CHARGES = {
    ("LYS", "NZ"): 1.0, ("ARG", "CZ"): 1.0, ("ASP", "CG"): -1.0, ("GLU", "CD"): -1.0,
    **{(name, "P"): -1.0 for name in NUCLEOTIDES},
}  # fmt: skip
#: Charged groups farther apart than this (Å) do not interact in :func:`formal_coulomb`.
COULOMB_A = 12.0
#: Charge separations are taken as at least this (Å): groups in contact, not overlapping.
COULOMB_MIN_A = 3.0
#: Charged pairs over all poses :func:`formal_coulomb` holds at once (about 100 MB of
#: temporaries; a large receptor and ligand take fewer poses per batch).
PAIR_BUDGET = 2_000_000


def formal_charges(atoms) -> np.ndarray:
    """Per atom, its group's formal charge if it carries it (:data:`FORMAL_CHARGES`)."""
    names = atoms.res_name.astype(str)
    atom_names = atoms.atom_name.astype(str)
    return np.array([FORMAL_CHARGES.get(key, 0.0) for key in zip(names, atom_names, strict=True)])


def formal_coulomb(setup: DockingSetup, poses: np.ndarray) -> np.ndarray:
    """Per pose, minus the Coulomb energy (kcal/mol) between the partners' charged groups
    (:func:`formal_charges`) within :data:`COULOMB_A`, with a distance-dependent dielectric
    (4r), separations of at least :data:`COULOMB_MIN_A`: salt bridges and like charges
    across the interface, larger when attractive.

    pyDock's electrostatics (``cpydock``, ``dna``) types every atom with AMBER's all-atom
    charges, so on structures without hydrogens (``dock``'s setup drops them) each residue
    carries about -0.9 e of unpaired charge and the term grows repulsive with the interface's
    size; formal charges on one atom per group are the same whether hydrogens are there or
    not."""
    charges = np.concatenate(
        [formal_charges(setup.receptor.atoms), formal_charges(setup.ligand.atoms)]
    )
    n_rec = len(setup.receptor.atoms)
    charged = charges != 0
    q_rec, q_lig = charges[:n_rec][charged[:n_rec]], charges[n_rec:][charged[n_rec:]]
    out = np.zeros(len(poses))
    if not len(q_rec) or not len(q_lig):
        return out
    pair_q = q_rec[:, None] * q_lig[None, :]
    k = len(q_rec)
    step = max(1, min(CHUNK, PAIR_BUDGET // pair_q.size))  # (poses × pairs held at once)
    for first in range(0, len(poses), step):
        xyz = complex_coordinates(setup, poses[first : first + step], charged)
        d = np.sqrt(((xyz[:, :k, None, :] - xyz[:, None, k:, :]) ** 2).sum(axis=3))
        r = np.maximum(d, COULOMB_MIN_A)
        energy = np.where(d <= COULOMB_A, 332.0 * pair_q / (4.0 * r * r), 0.0)
        out[first : first + step] = -energy.sum(axis=(1, 2))
    return out


features.COMPUTED.update(
    {
        **dict.fromkeys(PROPENSITY, interface_propensity),
        "shape_complementarity": shape_complementarity,
        "formal_coulomb": formal_coulomb,
    }
)
