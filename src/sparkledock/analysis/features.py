"""Features of a docking's solutions for a learned ranking, computed for thousands at once:
per cluster representative, what more scoring functions say of it (re-scores), the size of
its interface, and where it stands in its swarm. The ranking's other features (the run's
score, DFIRE, ``dfire_soft``, MJ3h, cluster size, population, restraint satisfaction) are
:mod:`.ranking`'s."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from ..molecule.pose import EXTENTS_START, deform
from ..molecule.system import DockingSetup
from .models import complex_coordinates

#: Residues whose C-alpha atoms (C4' for nucleotides) are this close (Å) across the
#: interface are in contact for the interface-size features (a residue-level interface, as
#: CAPRI's 10 Å interface of i-RMSD).
INTERFACE_A = 10.0
#: Poses whose coordinates are built at once.
CHUNK = 256
#: The interface features, in :func:`interface_sizes`' order.
INTERFACE = ("interface_receptor", "interface_ligand", "interface_pairs")
#: The swarm features (:func:`swarm_standing`).
SWARM = ("rank_in_swarm", "swarm_representatives")
#: Atom pairs across the interface closer than this (Å) clash, for :func:`atom_contacts`.
CLASH_A = 3.0
#: Atoms with an atom of the other partner within this distance (Å) are buried.
CONTACT_A = 5.0
#: The atom-level interface features (:func:`atom_contacts`): a buried-area and shape
#: descriptor without a surface calculation (no extra needed).
CONTACTS = ("clash_pairs", "contact_pairs", "buried_receptor_atoms", "buried_ligand_atoms")


def rescore(setup: DockingSetup, poses: np.ndarray, function: str) -> np.ndarray:
    """Scores of poses by another scoring function (its exact numba kernel); a rigid-only
    one (its class's ``rigid_only``: no normal-mode support, LightDock refuses ANM with it)
    scores the rigid-body part of each pose on the unflexed partners."""
    from ..scoring import get_scoring

    scoring = get_scoring(function)
    receptor, ligand = setup.receptor, setup.ligand
    if getattr(scoring, "rigid_only", False) and (receptor.n_modes or ligand.n_modes):
        receptor, ligand = receptor.without_modes(), ligand.without_modes()
        poses = np.ascontiguousarray(np.asarray(poses)[:, :EXTENTS_START])
    return scoring.score(scoring.prepare(receptor, ligand), poses)


def residue_atoms(setup: DockingSetup) -> np.ndarray:
    """A mask over the complex's atoms (receptor then ligand): one atom per residue, its
    C-alpha (C4' for a nucleotide; its first atom where it has neither)."""
    masks = []
    for atoms in (setup.receptor.atoms, setup.ligand.atoms):
        names = atoms.atom_name.astype(str)
        starts = atoms.residue_starts()
        ends = np.append(starts[1:], len(atoms))
        mask = np.zeros(len(atoms), dtype=bool)
        for first, last in zip(starts.tolist(), ends.tolist(), strict=True):
            found = np.flatnonzero(np.isin(names[first:last], ("CA", "C4'")))
            mask[first + (found[0] if len(found) else 0)] = True
        masks.append(mask)
    return np.concatenate(masks)


def interface_residues(setup: DockingSetup, poses: np.ndarray, cutoff: float = INTERFACE_A):
    """Per pose: its index, the receptor residues and the ligand residues (indices in
    residue order) with a residue of the other partner within ``cutoff``, and how many
    residue pairs are that close (residue atoms as :func:`residue_atoms` picks them)."""
    select = residue_atoms(setup)
    n_rec = int(select[: len(setup.receptor.atoms)].sum())
    tree = None
    for first in range(0, len(poses), CHUNK):
        chunk = complex_coordinates(setup, poses[first : first + CHUNK], select)
        for p, xyz in enumerate(chunk, first):
            if tree is None or setup.receptor.n_modes:  # (receptor modes move its residues)
                tree = cKDTree(xyz[:n_rec])
            near = tree.query_ball_point(xyz[n_rec:], cutoff)
            counts = np.fromiter((len(n) for n in near), dtype=np.int64, count=len(near))
            touched = np.unique(np.fromiter((i for n in near for i in n), dtype=np.int64))
            yield p, touched, np.flatnonzero(counts), int(counts.sum())


def interface_sizes(
    setup: DockingSetup, poses: np.ndarray, cutoff: float = INTERFACE_A
) -> dict[str, np.ndarray]:
    """Per pose: how many receptor residues and ligand residues have a residue of the other
    partner within ``cutoff`` (:func:`interface_residues`), and how many residue pairs are
    that close."""
    out = {name: np.zeros(len(poses), dtype=np.int64) for name in INTERFACE}
    for p, receptor, ligand, pairs in interface_residues(setup, poses, cutoff):
        out["interface_receptor"][p] = len(receptor)
        out["interface_ligand"][p] = len(ligand)
        out["interface_pairs"][p] = pairs
    return out


def _mode_reach(setup: DockingSetup, poses: np.ndarray) -> np.ndarray:
    """Per pose, how far (Å) its normal-mode extents can move any receptor atom at most: the
    sum over modes of the extent's size times the mode's longest atom displacement (P,)."""
    modes = setup.receptor.modes
    if modes.shape[0] == 0:
        return np.zeros(len(poses))
    longest = np.sqrt((modes**2).sum(axis=2)).max(axis=1)  # (M,)
    return np.abs(poses[:, setup.layout.rec_extents]) @ longest


#: Receptors with more atoms than this move and test only the atoms that can reach the
#: ligand (:func:`_reachable`); smaller ones all (cheaper than finding them).
REACHABLE_FROM = 3000
#: Ligand atoms per block of :func:`_reachable`'s search (consecutive atoms lie close).
BLOCK = 16


def _reachable(
    rest_tree: cKDTree, lig: np.ndarray, reach: float, cutoff: float = CONTACT_A
) -> np.ndarray:
    """The receptor atoms (sorted indices into ``rest_tree``'s resting coordinates) that can
    lie within ``cutoff`` of a ligand atom once moved by at most ``reach`` Å: those within
    reach of a block of :data:`BLOCK` consecutive ligand atoms (its centre, its radius plus
    the cutoff and the reach)."""
    blocks = -(-len(lig) // BLOCK)
    padded = np.concatenate([lig, np.repeat(lig[-1:], blocks * BLOCK - len(lig), axis=0)])
    padded = padded.reshape(blocks, BLOCK, 3)
    centres = padded.mean(axis=1)
    radii = np.sqrt(((padded - centres[:, None]) ** 2).sum(axis=2).max(axis=1))
    found = rest_tree.query_ball_point(centres, radii + cutoff + reach + 1e-6)
    return np.unique(np.concatenate([np.asarray(f, dtype=np.int64) for f in found]))


def atom_interfaces(setup: DockingSetup, poses: np.ndarray):
    """Per pose: its index, the receptor atoms that can touch the ligand (their indices
    and moved coordinates: every atom in the ligand's box widened by :data:`CONTACT_A`, or
    for a large receptor those that can reach it, :func:`_reachable`) and the placed ligand.

    The ligand is placed first. A large receptor (over :data:`REACHABLE_FROM` atoms) then
    moves only the atoms that can reach it, with the most the pose's normal modes can move
    an atom (:func:`_mode_reach`); a small one all."""
    poses = setup.layout.validate(poses)
    rec = setup.receptor
    n_rec, n_lig = len(rec.atoms), len(setup.ligand.atoms)
    every = n_rec <= REACHABLE_FROM
    rest_tree = None if every else cKDTree(rec.atoms.coords)
    slot = np.cumsum(rec.mask) - 1  # (each moving atom's row in the modes)
    extents = poses[:, setup.layout.rec_extents]
    reach = _mode_reach(setup, poses)
    ligand_only = np.concatenate([np.zeros(n_rec, bool), np.ones(n_lig, bool)])
    step = CHUNK // 4 if every else CHUNK  # (every receptor atom: smaller batches)
    for first in range(0, len(poses), step):
        batch = poses[first : first + step]
        xyz = complex_coordinates(setup, batch, None if every else ligand_only)
        for p, placed in enumerate(xyz, first):
            lig = placed[-n_lig:]
            if every:  # the receptor atoms in the ligand's box widened by the cutoff
                low, high = lig.min(axis=0) - CONTACT_A, lig.max(axis=0) + CONTACT_A
                inside = np.all((placed[:n_rec] >= low) & (placed[:n_rec] <= high), axis=1)
                can = np.flatnonzero(inside)
                moved = placed[:n_rec][can]
            else:
                can = _reachable(rest_tree, lig, reach[p])
                moves = rec.mask[can]
                moved = deform(rec.atoms.coords[can], rec.modes[:, slot[can[moves]]], moves,
                               extents[p : p + 1])[0]  # fmt: skip
            yield p, can, moved, lig


def atom_contacts(setup: DockingSetup, poses: np.ndarray) -> dict[str, np.ndarray]:
    """Per pose, over all atoms: atom pairs across the interface within :data:`CLASH_A`
    (clashes, mostly unrepacked side chains) and beyond it up to :data:`CONTACT_A`
    (contacts), and the receptor and ligand atoms with a partner atom within
    :data:`CONTACT_A` (buried atoms: interface area and packing without a surface
    calculation).

    Only the receptor atoms that can touch the ligand are moved (:func:`atom_interfaces`). Of
    those, the ones with a ligand atom within the cutoff (one nearest-neighbour query) are
    the buried ones, and every pair and buried ligand atom involves one of them. The counts
    equal all pairs' (tested); a large receptor costs what its interface does (4GAM: 2.7×
    faster)."""
    out = {name: np.zeros(len(poses), dtype=np.int64) for name in CONTACTS}
    for p, _, moved, lig in atom_interfaces(setup, poses):
        lig_tree = cKDTree(lig)
        nearest = lig_tree.query(moved, distance_upper_bound=2 * CONTACT_A)[0]
        buried = moved[nearest <= CONTACT_A]
        if not len(buried):
            continue
        rec_tree = cKDTree(buried)
        clash, contact = rec_tree.count_neighbors(lig_tree, [CLASH_A, CONTACT_A])
        out["clash_pairs"][p] = clash
        out["contact_pairs"][p] = contact - clash
        out["buried_receptor_atoms"][p] = len(buried)
        hits = rec_tree.query_ball_point(lig, CONTACT_A, return_length=True)
        out["buried_ligand_atoms"][p] = int((hits > 0).sum())
    return out


def swarm_standing(swarm: np.ndarray, score: np.ndarray) -> dict[str, np.ndarray]:
    """Per representative: its rank by score within its swarm (0: the swarm's best) and how
    many representatives its swarm has (a converged swarm has few)."""
    swarm = np.asarray(swarm)
    score = np.asarray(score, dtype=np.float64)
    rank = np.zeros(len(swarm), dtype=np.int64)
    size = np.zeros(len(swarm), dtype=np.int64)
    for s in np.unique(swarm):
        members = np.flatnonzero(swarm == s)
        by_score = members[np.argsort(-score[members], kind="stable")]
        rank[by_score] = np.arange(len(members))
        size[members] = len(members)
    return {"rank_in_swarm": rank, "swarm_representatives": size}


#: Re-scores the blind ranking reads besides the run's score (each function's exact kernel,
#: :func:`rescore`): LightDock's functions that need no extra.
RESCORED = ("dfire_soft", "mj3h", "tobi", "pisa", "vdw", "sipper")
#: Features computed by a function of the setup and poses here (besides re-scores, named by
#: their scoring function, and the swarm's, :func:`swarm_standing`), computed only when asked
#: for; research candidates that no shipped model reads (interface propensity, shape
#: complementarity, formal charges) add themselves here from ``benchmarks/lab_features.py``.
COMPUTED = {
    **dict.fromkeys(INTERFACE, interface_sizes),
    **dict.fromkeys(CONTACTS, atom_contacts),
}


def solution_features(
    setup: DockingSetup,
    poses: np.ndarray,
    swarm: np.ndarray,
    score: np.ndarray,
    known: dict[str, np.ndarray] | None = None,
    names: tuple[str, ...] | None = None,
) -> dict[str, np.ndarray]:
    """The features ``names`` of the representatives ``poses`` (with their swarms and the
    run's scores): a :data:`COMPUTED` feature, a :data:`SWARM` one, or else a scoring
    function's re-score (:func:`rescore`); by default every feature of :data:`RESCORED`,
    :data:`INTERFACE`, :data:`CONTACTS` and :data:`SWARM`. Those in ``known`` are taken as
    given (the ranking has some already) and kept, with ``known``'s others."""
    out = {"score": np.asarray(score, dtype=np.float64), **(known or {})}
    poses = np.ascontiguousarray(poses, dtype=np.float64)
    for name in (*RESCORED, *INTERFACE, *CONTACTS, *SWARM) if names is None else names:
        if name in out:
            continue
        if name in SWARM:
            out.update(swarm_standing(swarm, out["score"]))
        elif name in COMPUTED:
            got = COMPUTED[name](setup, poses)
            out.update(got if isinstance(got, dict) else {name: got})
        else:
            out[name] = rescore(setup, poses, name)
    return out
