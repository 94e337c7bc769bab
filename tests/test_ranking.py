"""DockQ of many poses at once (equal to the DockQ package on written models) and the ranking
methods on synthetic data."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH, golden
from sparkledock.analysis import ranking
from sparkledock.analysis.evaluate import evaluate
from sparkledock.analysis.models import write_models
from sparkledock.analysis.quality import dockq_score, kabsch, pose_quality, quality_reference


def test_pose_quality_equals_dockq_on_written_models(setups, tmp_path):
    """fnat, iRMSD, LRMSD and DockQ of 2X9A poses, batched, equal DockQ 2.1's values on the
    models written for them (its coordinates are float32: 1e-3 on the RMSDs)."""
    setup = setups("2X9A")
    reference = BENCH / "2X9A" / "2X9A_target.pdb"
    poses, _ = golden("2X9A")
    rng = np.random.default_rng(5)
    picked = poses[rng.choice(len(poses), 5, replace=False)]
    got = pose_quality(quality_reference(setup, reference), setup, picked)
    paths = [tmp_path / f"m{i}.pdb" for i in range(len(picked))]
    write_models(setup, picked, paths)
    for i, path in enumerate(paths):
        q = evaluate(path, reference)
        assert got["fnat"][i] == pytest.approx(q.fnat, abs=1e-9)
        assert got["irmsd"][i] == pytest.approx(q.irmsd, abs=1e-3)
        assert got["lrmsd"][i] == pytest.approx(q.lrmsd, abs=1e-3)
        assert got["dockq"][i] == pytest.approx(q.dockq, abs=1e-4)


def test_the_reference_scores_itself_one(tmp_path):
    """A setup made from the bound complex's own chains: the identity pose has DockQ 1."""
    from sparkledock.io.lightdock import load_setup
    from sparkledock.setup.prepare import SetupOptions, prepare_setup
    from sparkledock.structure import read_structure, write_structure

    target = read_structure(BENCH / "2X9A" / "2X9A_target.pdb")
    for chain in ("A", "B"):
        write_structure(target.select(target.chain == chain), tmp_path / f"{chain}.pdb")
    out = prepare_setup(
        tmp_path / "A.pdb",
        tmp_path / "B.pdb",
        tmp_path / "setup",
        options=SetupOptions(glowworms=1, swarms=1),
    )
    setup = load_setup(out)
    centre = setup.config["sparkledock"]
    identity = np.zeros((1, setup.layout.size))
    identity[0, :3] = np.array(centre["ligand_centre"]) - np.array(centre["receptor_centre"])
    identity[0, 3] = 1.0
    q = pose_quality(quality_reference(setup, BENCH / "2X9A" / "2X9A_target.pdb"), setup, identity)
    assert q["fnat"][0] == 1.0
    assert q["irmsd"][0] < 1e-6 and q["lrmsd"][0] < 1e-6
    assert q["dockq"][0] == pytest.approx(1.0)


def test_kabsch_recovers_a_rotation():
    rng = np.random.default_rng(1)
    target = rng.normal(size=(20, 3))
    angle = 0.7
    rot = np.array(
        [[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0], [0, 0, 1]]
    )
    mobile = (target @ rot.T + [1.0, -2.0, 3.0])[None]
    r, t = kabsch(mobile, target)
    np.testing.assert_allclose(mobile[0] @ r[0] + t[0], target, atol=1e-12)
    assert dockq_score(np.array([1.0]), np.array([0.0]), np.array([0.0]))[0] == 1.0


def test_population_counts_neighbours_within_the_radius():
    """Landmark RMSD is the Euclidean distance over sqrt(K): a pose 3 Å away (all landmarks
    shifted by 3 Å) is within 4 Å, one 5 Å away is not."""
    k = 4
    base = np.zeros((1, 3 * k))
    shifted = [base + np.tile([d, 0, 0], k) for d in (0.0, 3.0, 5.0, 3.9)]
    everyone = np.concatenate(shifted)
    counts = ranking.population(everyone, everyone, radius=4.0)
    # from 0: itself, 3 and 3.9; from 3: 0, itself, 5 and 3.9; from 5: 3, itself, 3.9;
    # from 3.9: all four
    assert counts.tolist() == [3, 4, 3, 4]


def test_ranking_orders_are_documented_and_deterministic():
    scores = np.array([5.0, 9.0, 7.0, 9.0])
    counts = np.array([10, 2, 10, 2])
    assert ranking.order("dfire", scores).tolist() == [1, 3, 2, 0]
    assert ranking.order("population", scores, counts).tolist() == [2, 0, 1, 3]
    with pytest.raises(ValueError, match="unknown ranking method"):
        ranking.order("nosuch", scores)


def test_landmarks_move_with_the_ligand(setups):
    setup = setups("2X9A")
    atoms = ranking.landmark_atoms(setup)
    assert len(atoms) == ranking.LANDMARKS and len(set(atoms.tolist())) == len(atoms)
    pose = np.zeros((2, setup.layout.size))
    pose[:, 3] = 1.0
    pose[1, 0] = 2.0  # 2 Å along x
    marks = ranking.landmarks(setup, pose, atoms).reshape(2, -1, 3)
    np.testing.assert_allclose(marks[1] - marks[0], np.tile([2.0, 0, 0], (len(atoms), 1)))
