"""Our ANM against LightDock 0.9.4's (ProDy) modes of the shared setups."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH, COMPLEXES
from sparkledock.molecule.anm import anm_hessian, normal_modes
from sparkledock.molecule.structure import clean, read_structure


def subspace_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Mean squared cosine of the principal angles between two mode sets (M, N, 3)."""
    qa, _ = np.linalg.qr(a.reshape(len(a), -1).T)
    qb, _ = np.linalg.qr(b.reshape(len(b), -1).T)
    return float((np.linalg.svd(qa.T @ qb, compute_uv=False) ** 2).mean())


CASES = [
    (c, side) for c in COMPLEXES for side in ("rec", "lig") if (c, side) != ("4GAM", "rec")
]  # 17,307 atoms: 13 s of dense eigh, left to benchmarks


@pytest.mark.parametrize(("name", "side"), CASES)
def test_modes_match_lightdock(name, side):
    stem = f"{name}_{'r' if side == 'rec' else 'l'}_u"
    setup = BENCH / name / "lightdock_setup"
    atoms = clean(read_structure(setup / f"lightdock_{stem}.pdb"))
    modes, mask = normal_modes(atoms, n_modes=10, rmsd=0.5, seed=324324)
    reference = np.load(setup / f"lightdock_{side}.nm.npy")
    assert np.array_equal(mask, np.load(setup / f"lightdock_{stem}_mask.npy"))
    assert modes.shape == reference.shape
    assert subspace_overlap(modes, reference) >= 0.999  # the issue asks for 0.95
    for ours, theirs in zip(modes, reference, strict=True):
        cosine = abs((ours * theirs).sum()) / np.linalg.norm(ours) / np.linalg.norm(theirs)
        assert cosine > 0.9999
        assert np.linalg.norm(ours) == pytest.approx(np.linalg.norm(theirs), rel=1e-6)


def test_hessian_of_two_nodes_by_hand():
    h = anm_hessian(np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]))
    expected_block = np.diag([1.0, 0.0, 0.0])  # gamma·r rᵀ/|r|²: the unit x direction
    np.testing.assert_allclose(h[:3, :3], expected_block)
    np.testing.assert_allclose(h[:3, 3:], -expected_block)
    assert np.allclose(h, h.T)
    far = anm_hessian(np.array([[0.0, 0.0, 0.0], [16.0, 0.0, 0.0]]))
    assert not far.any()  # beyond 15 Å: no spring


def test_residue_without_calpha_is_a_clear_error():
    from sparkledock.errors import UnsupportedAtomError

    atoms = clean(read_structure(BENCH / "2X9A" / "2X9A_l_u.pdb"))
    no_ca = atoms.select(~((atoms.res_seq == atoms.res_seq[40]) & (atoms.atom_name == "CA")))
    with pytest.raises(
        UnsupportedAtomError,
        match=rf"lig.pdb: residue chain B \w+ "
        rf"{atoms.res_seq[40]} has 0 CA atoms",
    ):
        normal_modes(no_ca, source="lig.pdb")


def test_sparse_solver_gives_the_dense_modes(monkeypatch):
    import sparkledock.molecule.anm as anm

    atoms = clean(read_structure(BENCH / "2VXT" / "2VXT_r_u.pdb"))
    dense, mask = normal_modes(atoms, n_modes=10)
    monkeypatch.setattr(anm, "DENSE_NODES", 0)
    sparse, sparse_mask = normal_modes(atoms, n_modes=10)
    assert np.array_equal(mask, sparse_mask)
    for a, b in zip(dense, sparse, strict=True):
        cosine = abs((a * b).sum()) / np.linalg.norm(a) / np.linalg.norm(b)
        assert cosine > 1 - 1e-9
        assert np.linalg.norm(a) == pytest.approx(np.linalg.norm(b), rel=1e-9)
        flat = b.ravel()
        assert flat[np.abs(flat).argmax()] > 0  # the sparse solver's fixed sign


def test_a_network_in_two_parts_has_its_non_rigid_modes():
    from sparkledock.molecule.structure import Atoms

    ligand = clean(read_structure(BENCH / "2X9A" / "2X9A_l_u.pdb"))
    far = ligand.with_coords(ligand.coords + np.array([100.0, 0.0, 0.0]))
    both = Atoms.concatenate([ligand, far])
    modes, _ = normal_modes(both, n_modes=10)
    assert modes.shape == (10, len(both), 3)
    single, _ = normal_modes(ligand, n_modes=10)
    # the two copies move independently: the lowest modes are each copy's lowest, twice
    moving = np.linalg.norm(modes[:, : len(ligand)], axis=(1, 2)) > 1e-6
    assert moving.any() and (~moving).any()
    assert np.isfinite(modes).all() and np.linalg.norm(single[0]) > 0
