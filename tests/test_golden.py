"""DFIRE scores equal LightDock 0.9.4's on every golden pose of the ten benchmark complexes."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH, COMPLEXES, golden
from sparkledock.io.restraints import read_restraints
from sparkledock.scoring import get_scoring


@pytest.mark.parametrize("with_restraints", [False, True], ids=["plain", "restraints"])
@pytest.mark.parametrize("name", COMPLEXES)
def test_scores_match_lightdock(setups, name, with_restraints):
    setup = setups(name)
    poses, expected = golden(name, with_restraints)
    restraints = read_restraints(BENCH / name / "restraints.list") if with_restraints else None
    dfire = get_scoring("dfire")
    model = dfire.prepare(setup.receptor, setup.ligand, restraints)
    got = dfire.score(model, poses)
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=0)
    # Stronger than the 1e-9 contract: conformers and summation order follow LightDock's
    # operations exactly, so every score is bit-identical (exact trajectories rely on it).
    assert np.array_equal(got, expected)
