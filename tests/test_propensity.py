"""Interface propensity (issue 36): the residue descriptors, the shipped site model equal to
LightGBM's predictions, the pose features equal to their definition over all residue pairs,
and the site model's training script end to end on two tiny training complexes."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.analysis.features import (
    INTERFACE_A,
    PROPENSITY,
    _residue_atoms,
    interface_propensity,
    interface_sizes,
)
from sparkledock.analysis.learned import read_trees
from sparkledock.analysis.models import complex_coordinates
from sparkledock.analysis.propensity import (
    AMINO_ACIDS,
    FEATURES,
    MODEL_FILE,
    residue_logodds,
    residue_table,
)


@pytest.fixture(scope="module")
def example(example_poses):
    return example_poses


def test_residue_table_describes_every_residue_the_same_way_twice(example):
    setup, _ = example
    atoms = setup.receptor.atoms
    table = residue_table(atoms)
    assert table.shape == (len(atoms.residue_starts()), len(FEATURES))
    assert np.isfinite(table).all()
    np.testing.assert_array_equal(table, residue_table(atoms))
    kinds = atoms.res_name.astype(str)[atoms.residue_starts()]
    one_hot = table[:, : len(AMINO_ACIDS)]
    np.testing.assert_array_equal(one_hot.sum(axis=1), np.isin(kinds, AMINO_ACIDS))
    column = dict(zip(FEATURES, table.T, strict=True))
    assert ((column["relative_area"] >= 0) & (column["relative_area"] < 2)).all()
    assert (column["side_chain_area"] <= column["area"] + 1e-9).all()
    assert (column["neighbours_12"] >= column["neighbours_8"]).all()
    assert (column["neighbours_8"] >= 1).all()  # (itself)
    # the patch counts exposed residues only: a buried residue's patch may still be large,
    # but no patch is larger than the residues within reach
    assert (column["patch_size"] <= column["neighbours_12"]).all()


def test_the_shipped_site_model_equals_lightgbm_on_stored_residues():
    trees, record = read_trees(MODEL_FILE, FEATURES)
    check = record["check"]
    np.testing.assert_allclose(
        trees.predict(np.array(check["rows"])), check["predictions"], rtol=0, atol=1e-9
    )
    assert record["features"] == list(FEATURES)
    twenty = {p.name for p in BENCH.parent.glob("bench*/*") if p.is_dir()}
    assert twenty and twenty.isdisjoint(record["training_complexes"])


def test_interface_propensity_equals_its_definition(example):
    """The mean log-odds over each pose's interface residues (C-alphas within 10 Å across,
    from all pairs' distances), per partner, and their sum."""
    setup, poses = example
    rng = np.random.default_rng(3)
    select = _residue_atoms(setup)
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
