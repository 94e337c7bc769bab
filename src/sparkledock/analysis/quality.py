"""DockQ of many poses at once: fnat, iRMSD, LRMSD and DockQ computed from the poses' own
coordinates, as the DockQ package computes them for one model file.

Ranking studies need the quality of thousands of poses per docking (every clustered
representative, every final glowworm); DockQ takes about a second per model file. What DockQ
derives from the reference alone is computed once (:func:`quality_reference`): its chain
alignment (the same aligner and scores), the native contacts (5 Å, all heavy atoms), the
interface residues (10 Å), the backbone atoms both structures have; then, per chunk of poses
(:func:`pose_quality`), the contacts of the native pairs, two batched Kabsch superpositions
(interface, receptor) and the formula. Equal to DockQ 2.1 on written models to rounding (its
coordinates are float32; tested on a sample).

The receptor (DockQ: the chain with more residues in the reference) and ligand are the
setup's partners, each one chain, matched to the reference's chains by id, as ``evaluate``
matches them.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputFileError
from ..molecule.structure import Atoms, hydrogen_mask, read_structure
from ..molecule.system import DockingSetup
from .models import complex_atoms, complex_coordinates

#: DockQ's thresholds and backbone atoms (DockQ.constants).
FNAT_CUTOFF_A = 5.0
INTERFACE_CUTOFF_A = 10.0
BACKBONE = ("CA", "C", "N", "O", "P", "OP1", "OP2", "O2'", "O3'", "O4'", "O5'", "C1'", "C2'",
            "C3'", "C4'", "C5'")  # fmt: skip
#: Residues DockQ reads with another one-letter code than Biopython's table gives.
CUSTOM_ONE_LETTER = {"MSE": "M", "CME": "C"}
#: Poses whose coordinates are built at once.
CHUNK = 256


def _residues(atoms: Atoms) -> list[np.ndarray]:
    starts = [*atoms.residue_starts().tolist(), len(atoms)]
    return [np.arange(a, b) for a, b in itertools.pairwise(starts)]


def _sequence(atoms: Atoms, residues: list[np.ndarray]) -> str:
    """DockQ's one-letter sequence of a chain."""
    from Bio.SeqUtils import seq1

    out = []
    for r in residues:
        name = str(atoms.res_name[r[0]])
        if len(name) == 3:
            out.append(seq1(name, custom_map=CUSTOM_ONE_LETTER))
        else:
            out.append(name[-1] if len(name) == 2 else name)
    return "".join(out)


def _aligned(model_seq: str, native_seq: str) -> tuple[list[int], list[int]]:
    """Residue pairs that DockQ's alignment matches (identical letters only)."""
    from Bio import Align

    aligner = Align.PairwiseAligner()
    aligner.match, aligner.mismatch = 5, 0
    aligner.open_gap_score, aligner.extend_gap_score = -4, -0.5
    aln = aligner.align(model_seq, native_seq)[0]
    a, b = aln[0, :], aln[1, :]
    if a == b:
        return list(range(len(model_seq))), list(range(len(native_seq)))
    mi, ni, i, j = [], [], 0, 0
    for x, y in zip(a, b, strict=True):
        if x != "-" and y != "-" and x == y:
            mi.append(i)
            ni.append(j)
        i += x != "-"
        j += y != "-"
    return mi, ni


def _min_d2(
    xyz_a: np.ndarray, xyz_b: np.ndarray, res_a: list, res_b: list, cutoff: float
) -> np.ndarray:
    """(len(res_a), len(res_b)) squared minimum atom distance per residue pair (``xyz_a``
    holds ``res_a``'s atoms residue after residue, ``xyz_b`` ``res_b``'s), exact up to
    ``cutoff`` Å and infinite beyond. Only atom pairs a k-d tree finds within the cutoff
    are measured: a dense atom-pair matrix of a 15,771 + 4,349-atom reference took 2.2 GB."""
    from scipy.spatial import cKDTree

    owner_a = np.repeat(np.arange(len(res_a)), [len(r) for r in res_a])
    owner_b = np.repeat(np.arange(len(res_b)), [len(r) for r in res_b])
    pairs = cKDTree(xyz_a).query_ball_tree(cKDTree(xyz_b), cutoff + 1e-6)
    i = np.repeat(np.arange(len(xyz_a)), [len(p) for p in pairs])
    j = np.fromiter(itertools.chain.from_iterable(pairs), dtype=np.int64, count=len(i))
    d2 = ((xyz_a[i] - xyz_b[j]) ** 2).sum(axis=1)  # (the dense matrix's arithmetic)
    out = np.full((len(res_a), len(res_b)), np.inf)
    np.minimum.at(out, (owner_a[i], owner_b[j]), d2)
    return out


def _common_backbone(
    model: Atoms, native: Atoms, pairs: list[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the backbone atoms both residues of each pair have (DockQ's order)."""
    mi, ni = [], []
    for m, n in pairs:
        m_names = list(model.atom_name[m].astype(str))
        n_names = list(native.atom_name[n].astype(str))
        for name in BACKBONE:
            if name in m_names and name in n_names:
                mi.append(m[m_names.index(name)])
                ni.append(n[n_names.index(name)])
    return np.array(mi, dtype=np.int64), np.array(ni, dtype=np.int64)


@dataclass(frozen=True)
class QualityReference:
    """A reference complex prepared for :func:`pose_quality` (indices into the setup's
    receptor-then-ligand atoms)."""

    #: every model atom a measure needs (a mask over the complex's atoms)
    select: np.ndarray
    #: fnat: every atom pair of every native contact's two residues (model atoms in
    #: ``select``'s compressed numbering), each contact's first pair, and the count of the
    #: native's contacts (over all its residues, as DockQ counts them)
    pair_rec: np.ndarray
    pair_lig: np.ndarray
    contact_starts: np.ndarray
    n_native_contacts: int
    #: iRMSD: interface backbone atoms (model, compressed numbering) and the native's
    interface_model: np.ndarray
    interface_native: np.ndarray
    #: LRMSD: receptor and ligand backbone atoms (model, compressed) and the native's
    receptor_model: np.ndarray
    receptor_native: np.ndarray
    ligand_model: np.ndarray
    ligand_native: np.ndarray


def quality_reference(setup: DockingSetup, reference: str | os.PathLike[str]) -> QualityReference:
    """Prepare a reference complex (bound structure) for :func:`pose_quality`: the setup's
    receptor and ligand (each of one chain or several) against the reference's chains.

    Raises:
        InputFileError: the reference lacks a partner's chain, or has no interface.
    """
    return reference_of(complex_atoms(setup), len(setup.receptor.atoms), reference)


def _chains(atoms: Atoms) -> list[str]:
    """The chain ids, in order of first appearance."""
    return list(dict.fromkeys(atoms.chain.astype(str).tolist()))


def _native_chains(
    model: Atoms, parts: list[np.ndarray], native: Atoms, reference: str
) -> list[list[tuple[str, str]]]:
    """Per partner, (model chain, native chain) pairs: by id where the reference has the
    model's chain; a chain without one (a ligand chain the models renamed) takes the
    reference chain left over whose sequence it matches best."""
    natives = _chains(native)
    wanted = [_chains(model.select(part)) for part in parts]
    used = {c for chains in wanted for c in chains if c in natives}
    left = [c for c in natives if c not in used]
    out = []
    for chains in wanted:
        pairs = []
        for chain in chains:
            if chain in natives:
                pairs.append((chain, chain))
                continue
            if not left:
                raise InputFileError(f"{reference}: no chain {chain} (a partner's chain)")
            seq = _chain_sequence(model, chain)
            best = max(left, key=lambda c: _identity(seq, _chain_sequence(native, c)))
            left.remove(best)
            pairs.append((chain, best))
        out.append(pairs)
    return out


def _chain_sequence(atoms: Atoms, chain: str) -> str:
    idx = np.flatnonzero(atoms.chain.astype(str) == chain)
    return _sequence(atoms, [idx[r] for r in _residues(atoms.select(idx))])


def _identity(a: str, b: str) -> int:
    """Residues an alignment matches (DockQ's aligner)."""
    return len(_aligned(a, b)[0]) if a and b else 0


def reference_of(model: Atoms, n_rec: int, reference: str | os.PathLike[str]) -> QualityReference:
    """A :class:`QualityReference` for complexes whose atoms are ``model``'s (the receptor's
    ``n_rec`` first, then the ligand's; each partner one chain or several) against a
    reference complex file. Each partner's chains are matched to the
    reference's (:func:`_native_chains`) and their residues by DockQ's alignment, chain by
    chain; a partner of several chains counts as one (its contacts, interface and
    superposition over all its chains), as DockQ does for merged chains."""
    source = str(reference)
    native = read_structure(reference)
    native = native.select(~native.hetero & ~hydrogen_mask(native))
    parts = [np.arange(n_rec), np.arange(n_rec, len(model))]
    mapping = _native_chains(model, parts, native, source)
    groups = []
    for part, pairs in zip(parts, mapping, strict=True):
        m_res_all, n_res_all, n_all = [], [], []
        for model_chain, native_chain in pairs:
            m_part = part[model.chain[part].astype(str) == model_chain]
            native_part = np.flatnonzero(native.chain.astype(str) == native_chain)
            m_res = [m_part[r] for r in _residues(model.select(m_part))]
            n_res = [native_part[r] for r in _residues(native.select(native_part))]
            mi, ni = _aligned(_sequence(model, m_res), _sequence(native, n_res))
            m_res_all += [m_res[i] for i in mi]
            n_res_all += [n_res[i] for i in ni]
            n_all += n_res
        groups.append((m_res_all, n_res_all, n_all))
    (rec_m, rec_n, rec_all), (lig_m, lig_n, lig_all) = groups

    full = _min_d2(
        native.coords[np.concatenate(rec_all)], native.coords[np.concatenate(lig_all)],
        rec_all, lig_all, FNAT_CUTOFF_A,
    )  # fmt: skip
    n_native = int((full < FNAT_CUTOFF_A**2).sum())
    if n_native == 0:
        raise InputFileError(f"{source}: its two partners have no contact within 5 Å")
    d2 = _min_d2(
        native.coords[np.concatenate(rec_n)], native.coords[np.concatenate(lig_n)], rec_n, lig_n,
        max(FNAT_CUTOFF_A, INTERFACE_CUTOFF_A),
    )  # fmt: skip
    contacts = np.argwhere(d2 < FNAT_CUTOFF_A**2)
    near = d2 < INTERFACE_CUTOFF_A**2
    rec_face = sorted(set(np.flatnonzero(near.any(axis=1)).tolist()))
    lig_face = sorted(set(np.flatnonzero(near.any(axis=0)).tolist()))

    face_m, face_n = _common_backbone(
        model, native,
        [(rec_m[i], rec_n[i]) for i in rec_face] + [(lig_m[j], lig_n[j]) for j in lig_face],
    )  # fmt: skip
    r_m, r_n = _common_backbone(model, native, list(zip(rec_m, rec_n, strict=True)))
    l_m, l_n = _common_backbone(model, native, list(zip(lig_m, lig_n, strict=True)))
    if len(rec_all) < len(lig_all):  # DockQ's receptor: the chain with more residues
        r_m, r_n, l_m, l_n = l_m, l_n, r_m, r_n

    pair_rec, pair_lig, starts = [], [], []
    for i, j in contacts:
        starts.append(sum(len(p) for p in pair_rec))
        a, b = np.meshgrid(rec_m[i], lig_m[j], indexing="ij")
        pair_rec.append(a.ravel())
        pair_lig.append(b.ravel())
    pair_rec_idx = np.concatenate(pair_rec) if pair_rec else np.zeros(0, np.int64)
    pair_lig_idx = np.concatenate(pair_lig) if pair_lig else np.zeros(0, np.int64)
    select = np.zeros(len(model), dtype=bool)
    for idx in (pair_rec_idx, pair_lig_idx, face_m, r_m, l_m):
        select[idx] = True
    compressed = np.cumsum(select) - 1
    return QualityReference(
        select=select,
        pair_rec=compressed[pair_rec_idx],
        pair_lig=compressed[pair_lig_idx],
        contact_starts=np.array(starts, dtype=np.int64),
        n_native_contacts=n_native,
        interface_model=compressed[face_m],
        interface_native=native.coords[face_n],
        receptor_model=compressed[r_m],
        receptor_native=native.coords[r_n],
        ligand_model=compressed[l_m],
        ligand_native=native.coords[l_n],
    )


def kabsch(mobile: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per batch item, the rotation R (3, 3) and translation t that best map ``mobile``
    (B, N, 3) onto ``target`` (N, 3) as ``mobile @ R + t`` (least squares, no reflection)."""
    mc = mobile.mean(axis=1, keepdims=True)
    tc = target.mean(axis=0)
    h = np.einsum("bni,nj->bij", mobile - mc, target - tc)
    u, _, vt = np.linalg.svd(h)
    d = np.sign(np.linalg.det(np.einsum("bij,bjk->bik", u, vt)))
    u[:, :, 2] *= d[:, None]
    rot = np.einsum("bij,bjk->bik", u, vt)
    return rot, tc - np.einsum("bni,bij->bnj", mc, rot)[:, 0]


def _rmsd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sqrt(((a - b) ** 2).sum(axis=2).mean(axis=1))


def dockq_score(fnat: np.ndarray, irmsd: np.ndarray, lrmsd: np.ndarray) -> np.ndarray:
    """DockQ's formula."""
    return (fnat + 1 / (1 + (irmsd / 1.5) ** 2) + 1 / (1 + (lrmsd / 8.5) ** 2)) / 3


def pose_quality(
    ref: QualityReference, setup: DockingSetup, poses: np.ndarray
) -> dict[str, np.ndarray]:
    """fnat, iRMSD, LRMSD and DockQ of every pose (arrays of shape (P,)) against the
    reference, in the setup's frame (a model written for a pose scores the same)."""
    poses = setup.layout.validate(poses)
    out = {k: np.empty(len(poses)) for k in ("fnat", "irmsd", "lrmsd", "dockq")}
    for first in range(0, len(poses), CHUNK):
        part = slice(first, first + CHUNK)
        xyz = complex_coordinates(setup, poses[part], select=ref.select)
        for key, values in measures(ref, xyz).items():
            out[key][part] = values
    return out


def measures(ref: QualityReference, xyz: np.ndarray) -> dict[str, np.ndarray]:
    """fnat, iRMSD, LRMSD and DockQ of (B, N, 3) coordinates of ``ref.select``'s atoms."""
    if len(ref.contact_starts):
        d2 = ((xyz[:, ref.pair_rec] - xyz[:, ref.pair_lig]) ** 2).sum(axis=2)
        closest = np.minimum.reduceat(d2, ref.contact_starts, axis=1)
        fnat = (closest < FNAT_CUTOFF_A**2).sum(axis=1) / ref.n_native_contacts
    else:
        fnat = np.zeros(xyz.shape[0])
    face = xyz[:, ref.interface_model]
    rot, t = kabsch(face, ref.interface_native)
    irmsd = _rmsd(np.einsum("bni,bij->bnj", face, rot) + t[:, None], ref.interface_native)
    rot, t = kabsch(xyz[:, ref.receptor_model], ref.receptor_native)
    moved = np.einsum("bni,bij->bnj", xyz[:, ref.ligand_model], rot) + t[:, None]
    lrmsd = _rmsd(moved, ref.ligand_native)
    return {"fnat": fnat, "irmsd": irmsd, "lrmsd": lrmsd, "dockq": dockq_score(fnat, irmsd, lrmsd)}


def file_quality(
    model: str | os.PathLike[str],
    reference: str | os.PathLike[str],
    receptor_chains: Sequence[str] | None = None,
) -> dict[str, float]:
    """fnat, iRMSD, LRMSD and DockQ of a model file against a reference complex file.

    The model's partners: ``receptor_chains`` and the rest, or, for a model of two chains,
    each chain (DockQ's receptor for LRMSD is the partner with more residues). Chains match
    the reference's by id, else by sequence (:func:`reference_of`).

    Raises:
        InputFileError: a file that cannot be read, a model of more than two chains without
            ``receptor_chains``, or partners without contacts in the reference.
    """
    atoms = read_structure(model)
    atoms = atoms.select(~atoms.hetero & ~hydrogen_mask(atoms))
    chains = _chains(atoms)
    if receptor_chains is None:
        if len(chains) != 2:
            raise InputFileError(
                f"{model}: {len(chains)} chains ({', '.join(chains)}); say which are the "
                "receptor's ({0})",
                "receptor_chains",
            )
        receptor_chains = chains[:1]
    missing = [c for c in receptor_chains if c not in chains]
    if missing:
        raise InputFileError(f"{model}: no chain {missing[0]}")
    is_rec = np.isin(atoms.chain.astype(str), receptor_chains)
    if is_rec.all():
        raise InputFileError(f"{model}: every chain is the receptor's; no ligand to evaluate")
    ordered = atoms.select(np.concatenate([np.flatnonzero(is_rec), np.flatnonzero(~is_rec)]))
    ref = reference_of(ordered, int(is_rec.sum()), reference)
    got = measures(ref, ordered.coords[ref.select][None])
    return {k: float(v[0]) for k, v in got.items()}
