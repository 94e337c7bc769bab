"""The research features (``benchmarks/lab_features.py``): interface propensity, shape
complementarity and formal Coulomb, each equal to its definition computed over every pair,
and found by name through the package's feature table once registered. Research side, not
the package."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from sparkledock.analysis.features import (
    CONTACT_A,
    INTERFACE_A,
    interface_sizes,
    residue_atoms,
    solution_features,
)
from sparkledock.analysis.models import complex_coordinates
from sparkledock.analysis.propensity import residue_logodds
from sparkledock.cli import example_dir
from sparkledock.io.lightdock import load_setup, read_poses

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # (benchmarks/, as they run)
from lab_features import NORMAL_A, PROPENSITY, interface_propensity


@pytest.fixture(scope="module")
def example():
    """The packaged example's setup and its first 24 poses (a small docking's solutions)."""
    setup = load_setup(example_dir())
    poses = read_poses(example_dir() / "poses.dat", setup.layout)[:24]
    return setup, poses, None, None


def test_registered_features_are_found_by_name(example):
    setup, poses, _, _ = example
    names = ("formal_coulomb", "propensity", "shape_complementarity")
    got = solution_features(setup, poses, np.zeros(len(poses), int), np.zeros(len(poses)),
                            names=names)  # fmt: skip
    assert set(got) == {"score", "formal_coulomb", "shape_complementarity", *PROPENSITY}
    assert all(np.isfinite(got[name]).all() for name in names)


def test_interface_propensity_equals_its_definition(example):
    """The mean log-odds over each pose's interface residues (C-alphas within 10 Å across,
    from all pairs' distances), per partner, and their sum."""
    setup, poses, _, _ = example
    rng = np.random.default_rng(3)
    select = residue_atoms(setup)
    n_rec = int(select[: len(setup.receptor.atoms)].sum())
    rec, lig = rng.normal(size=n_rec), rng.normal(size=int(select.sum()) - n_rec)
    got = interface_propensity(setup, poses, (rec, lig))
    xyz = complex_coordinates(setup, poses, select)
    sizes = interface_sizes(setup, poses)
    for p in range(len(poses)):
        d = np.linalg.norm(xyz[p, :n_rec, None] - xyz[p, None, n_rec:], axis=2)
        near = d <= INTERFACE_A
        r_in, l_in = near.any(axis=1), near.any(axis=0)
        assert r_in.sum() == sizes["interface_receptor"][p]
        want_r = rec[r_in].mean() if r_in.any() else rec.mean()
        want_l = lig[l_in].mean() if l_in.any() else lig.mean()
        assert got["propensity_receptor"][p] == np.float32(want_r)
        assert got["propensity_ligand"][p] == np.float32(want_l)
    np.testing.assert_allclose(
        got["propensity"], got["propensity_receptor"] + got["propensity_ligand"], atol=1e-6
    )
    # the shipped model's values by default, the same computed twice
    default = interface_propensity(setup, poses)
    again = interface_propensity(setup, poses.copy())
    for name in PROPENSITY:
        assert np.isfinite(default[name]).all()
        np.testing.assert_array_equal(default[name], again[name])
    mine = (residue_logodds(setup.receptor.atoms), residue_logodds(setup.ligand.atoms))
    np.testing.assert_array_equal(interface_propensity(setup, poses, mine)["propensity"],
                                  default["propensity"])  # fmt: skip


@pytest.mark.parametrize("reachable_only", [False, True])
def test_shape_complementarity_equals_its_definition_over_all_atoms(
    example, monkeypatch, reachable_only
):
    """Each buried atom's facing (minus its outward normal's dot product with its nearest
    partner atom's), the two partners' medians averaged, as computed over every atom pair;
    on both receptor paths; 0 for a pose without contact."""
    from scipy.spatial.distance import cdist

    import sparkledock.analysis.features as features
    from lab_features import shape_complementarity

    setup, poses, _, _ = example
    poses = poses.copy()
    poses[::3, setup.layout.rec_extents] *= 4.0
    poses[5, :3] += 500.0  # (no contact)
    if reachable_only:
        monkeypatch.setattr(features, "REACHABLE_FROM", 0)
    got = shape_complementarity(setup, poses)
    n_rec = len(setup.receptor.atoms)
    rest = setup.receptor.atoms.coords

    def normals(coords):
        d = cdist(coords, coords)
        centres = np.array([coords[row <= NORMAL_A].mean(axis=0) for row in d])
        away = coords - centres
        return away / np.linalg.norm(away, axis=1)[:, None]

    rec_normals = normals(rest)
    for p, xyz in enumerate(complex_coordinates(setup, poses)):
        lig = xyz[n_rec:]
        d = cdist(xyz[:n_rec], lig)
        if not (d <= CONTACT_A).any():
            assert got[p] == 0.0
            continue
        lig_normals = normals(lig)
        rec_b = np.flatnonzero(d.min(axis=1) <= CONTACT_A)
        lig_b = np.flatnonzero(d.min(axis=0) <= CONTACT_A)
        facing_rec = -(rec_normals[rec_b] * lig_normals[d[rec_b].argmin(axis=1)]).sum(axis=1)
        facing_lig = -(lig_normals[lig_b] * rec_normals[d[:, lig_b].argmin(axis=0)]).sum(axis=1)
        expected = 0.5 * (np.median(facing_rec) + np.median(facing_lig))
        assert got[p] == pytest.approx(expected, abs=1e-9)
    assert got[5] == 0.0 and (np.abs(got) <= 1.0).all() and (got != 0).sum() >= 10


@pytest.mark.parametrize("budget", [None, 1])
def test_formal_coulomb_equals_its_definition(example, monkeypatch, budget):
    """Minus the Coulomb energy of the formal charges (one atom per charged group, 4r
    dielectric, 12 Å cutoff, 3 Å floor) over every charged pair across the interface; 0
    with the partners apart; the charges are whole and sit on the groups' named atoms."""
    from scipy.spatial.distance import cdist

    import lab_features
    from lab_features import formal_charges, formal_coulomb

    setup, poses, _, _ = example
    poses = poses.copy()
    poses[3, :3] += 500.0
    if budget is not None:  # (one pose per batch, as for a large receptor and ligand)
        monkeypatch.setattr(lab_features, "PAIR_BUDGET", budget)
    got = formal_coulomb(setup, poses)
    q_rec = formal_charges(setup.receptor.atoms)
    q_lig = formal_charges(setup.ligand.atoms)
    names = setup.receptor.atoms.res_name.astype(str)[q_rec != 0]
    assert set(names) <= {"LYS", "ARG", "ASP", "GLU"} and len(names) > 5
    n_rec = len(q_rec)
    for p, xyz in enumerate(complex_coordinates(setup, poses)):
        d = cdist(xyz[:n_rec], xyz[n_rec:])
        qq = q_rec[:, None] * q_lig[None, :]
        r = np.maximum(d, 3.0)
        energy = np.where((d <= 12.0) & (qq != 0), 332.0 * qq / (4.0 * r * r), 0.0).sum()
        assert got[p] == pytest.approx(-energy, abs=1e-9)
    assert got[3] == 0.0 and (got != 0).sum() >= 10
