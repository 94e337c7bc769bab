"""Interface propensity (issue 36): the residue descriptors, the shipped site model equal to
LightGBM's predictions, the pose features equal to their definition over all residue pairs,
and the site model's training script end to end on two tiny training complexes."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.analysis.learned import read_trees
from sparkledock.analysis.propensity import (
    AMINO_ACIDS,
    FEATURES,
    MODEL_FILE,
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
