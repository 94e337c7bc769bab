"""The learned blind ranking's parts (issue 36): its features (the same computed twice, the
re-scores equal across backends) and the shipped model's order equal to LightGBM's on a stored
pool (the training script's own tests: benchmarks/tests)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.analysis.features import (
    CLASH_A,
    CONTACT_A,
    INTERFACE,
    SWARM,
    atom_contacts,
    solution_features,
    swarm_standing,
)
from sparkledock.analysis.learned import (
    BLIND,
    learned_key,
    model_hash,
    shipped_model,
)
from sparkledock.analysis.models import complex_coordinates
from sparkledock.cli import example_dir
from sparkledock.scoring.prepared import score_poses


@pytest.fixture(scope="module")
def example(example_poses):
    setup, poses = example_poses
    swarm = np.repeat(np.arange(4), 6)
    score = score_poses(setup, poses)
    return setup, poses, swarm, score


def test_features_are_the_same_computed_twice(example):
    setup, poses, swarm, score = example
    first = solution_features(setup, poses, swarm, score)
    second = solution_features(setup, poses.copy(), swarm, score)
    # (cluster size and population come from the clustering, given to it by the ranking)
    assert set(first) == {name for name, _ in BLIND} - {"cluster_size", "population"}
    for name in first:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)
        assert np.isfinite(first[name]).all(), name
    assert (first["interface_pairs"] >= first["interface_ligand"]).all()
    assert (first["interface_receptor"] > 0).any()


def test_features_are_computed_only_when_named(example):
    """Named features: a computed one, a scoring function's re-score and one of a group (the
    group's others come with it); known ones are kept as given."""
    from sparkledock.analysis.features import CONTACTS, rescore

    setup, poses, swarm, score = example
    known = {"mj3h": np.arange(len(poses), dtype=float)}
    names = ("clash_pairs", "dna", "mj3h", "interface_pairs")
    got = solution_features(setup, poses, swarm, score, known=known, names=names)
    assert set(got) == {"score", "mj3h", "dna", *INTERFACE, *CONTACTS}
    np.testing.assert_array_equal(got["mj3h"], known["mj3h"])
    np.testing.assert_array_equal(got["clash_pairs"], atom_contacts(setup, poses)["clash_pairs"])
    np.testing.assert_array_equal(got["dna"], rescore(setup, poses, "dna"))


def test_rescores_equal_across_backends(example):
    """The features' re-scores (numba kernels) equal the all-pairs numpy oracle's, and
    torch's where it is installed."""
    setup, poses, swarm, score = example
    features = solution_features(setup, poses, swarm, score)
    backends = ["numpy"]
    try:
        import torch  # noqa: F401

        backends.append("torch")
    except ImportError:
        pass
    for function in ("dfire_soft", "vdw", "pisa"):
        for backend in backends:
            if backend == "torch" and function == "pisa":
                continue  # (numba and numpy only)
            other = score_poses(setup, poses, scoring=function, backend=backend)
            np.testing.assert_allclose(features[function], other, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("reachable_only", [False, True])
def test_atom_contacts_equal_all_pairs_distances(example, monkeypatch, reachable_only):
    """The k-d tree counts (the receptor atoms in the ligand's box; or, as for a large
    receptor, only those that can reach the ligand moved and tested) equal counts over every
    receptor-ligand atom pair's distance, normal-mode extents large and small."""
    from scipy.spatial.distance import cdist

    import sparkledock.analysis.features as features

    setup, poses, _, _ = example
    assert setup.receptor.n_modes > 0
    poses = poses.copy()
    poses[::3, setup.layout.rec_extents] *= 4.0  # (receptor atoms moved far by the modes)
    if reachable_only:
        monkeypatch.setattr(features, "REACHABLE_FROM", 0)
    got = atom_contacts(setup, poses)
    n_rec = len(setup.receptor.atoms)
    for p, xyz in enumerate(complex_coordinates(setup, poses)):
        d = cdist(xyz[:n_rec], xyz[n_rec:])
        close = d <= CONTACT_A
        assert got["clash_pairs"][p] == (d <= CLASH_A).sum()
        assert got["contact_pairs"][p] == (close & (d > CLASH_A)).sum()
        assert got["buried_receptor_atoms"][p] == close.any(axis=1).sum()
        assert got["buried_ligand_atoms"][p] == close.any(axis=0).sum()
    assert got["contact_pairs"].max() > 0


def test_swarm_standing_ranks_within_each_swarm():
    got = swarm_standing(np.array([3, 3, 1, 3, 1]), np.array([1.0, 5.0, 2.0, 3.0, -1.0]))
    np.testing.assert_array_equal(got["rank_in_swarm"], [2, 0, 0, 1, 1])
    np.testing.assert_array_equal(got["swarm_representatives"], [3, 3, 2, 3, 2])
    assert set(SWARM) == set(got) and len(INTERFACE) == 3


def test_the_shipped_blind_model_orders_a_stored_pool_as_lightgbm():
    """The stored rows (representatives of a training pool) are ordered by the shipped trees
    exactly as by LightGBM's own predictions at export, and the model's identity is stable."""
    trees, record = shipped_model("blind")
    check = record["check"]
    got = trees.predict(np.array(check["rows"]))
    np.testing.assert_allclose(got, check["predictions"], rtol=0, atol=1e-9)
    golden = np.argsort(-np.array(check["predictions"]), kind="stable")
    np.testing.assert_array_equal(np.argsort(-got, kind="stable"), golden)
    assert [tuple(f) for f in record["features"]] == list(BLIND)
    twenty = {p.name for p in BENCH.parent.glob("bench*/*") if p.is_dir()}
    assert twenty and twenty.isdisjoint(record["training_complexes"])
    assert len(model_hash("blind")) == 16 and model_hash("blind") != model_hash("restrained")


def test_the_blind_key_depends_on_ranks_and_raw_counts_only():
    rng = np.random.default_rng(4)
    features = {name: rng.normal(size=50) for name, how in BLIND if how == "rank"}
    features |= {name: rng.integers(0, 40, size=50) for name, how in BLIND if how == "raw"}
    key = learned_key(features, "blind")
    scaled = {
        name: (3.0 * v + 1.0 if how == "rank" else v)
        for (name, how), v in zip(BLIND, (features[n] for n, _ in BLIND), strict=True)
    }
    np.testing.assert_array_equal(learned_key(scaled, "blind"), key)


def test_dock_and_rank_use_the_blind_model_and_record_it(tmp_path):
    """``dock --rank-method learned_blind`` (no restraints) ranks by the blind model and
    records its identity in run.json; ``rank --method learned_blind`` on the same setup
    gives the same order (cluster sizes read back from cluster.repr)."""
    from sparkledock.cli import main

    src = example_dir()
    out = tmp_path / "out"
    argv = ["dock", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"), "-o", str(out)]
    argv += ["-s", "3", "-g", "12", "--steps", "10", "--rank-method", "learned_blind"]
    argv += ["--redock-sites", "0"]  # (the blind ranking alone: rank lists no site models)
    assert main([*argv, "--quiet"]) == 0
    record = json.loads((out / "run.json").read_text())
    rank = next(s for s in record["stages"] if s["name"] == "rank")
    assert rank["model"] == model_hash("blind")
    with (out / "ranking.csv").open() as handle:
        rows = [line.split(",") for line in handle.read().splitlines()]
    header, rows = rows[0], rows[1:]
    docked = [(int(r[header.index("swarm")]), int(r[header.index("glowworm")])) for r in rows]
    assert main(["rank", str(out / "setup"), "3", "10", "--method", "learned_blind"]) == 0
    listed = (out / "setup" / "rank_by_learned_blind.list").read_text().splitlines()[1:]
    assert len(listed) == len(docked)


def test_the_blind_model_falls_back_outside_its_training_domain(example):
    """Nucleic acids, membranes and --paratope dockings are ranked as before the model
    (soft_consensus; paratope with CDRs), with the reason; a protein pair keeps the model."""
    from dataclasses import replace

    from sparkledock.analysis.learned import in_domain

    setup = example[0]
    assert in_domain("learned_blind", setup) == ("learned_blind", None)
    assert in_domain("soft_consensus", replace(setup, config={"membrane": True}))[1] is None
    method, why = in_domain("learned_blind", replace(setup, config={"membrane": True}))
    assert method == "soft_consensus" and "membrane" in why
    method, why = in_domain("learned_blind", replace(setup, config={"paratope": ["A.1"]}))
    assert method == "paratope" and "paratope)" in why
    atoms = setup.ligand.atoms
    dna = replace(atoms, res_name=np.full(len(atoms), "DA", dtype=atoms.res_name.dtype))
    method, why = in_domain(
        "learned_blind", replace(setup, ligand=replace(setup.ligand, atoms=dna))
    )
    assert method == "soft_consensus" and why == "the ligand holds nucleic acids"
    # the partial-knowledge model (the blind model's features and more) falls back where the
    # blind one does, to the restrained consensus of score and satisfaction
    assert in_domain("learned_partial", setup) == ("learned_partial", None)
    method, why = in_domain(
        "learned_partial", replace(setup, ligand=replace(setup.ligand, atoms=dna))
    )
    assert method == "restraints" and why == "the ligand holds nucleic acids"


def test_a_model_diversity_step_moves_near_duplicates_back_in_its_head_only(monkeypatch):
    """A model file's ``diversity`` (radius, head) is read by ``learned.diversity`` and
    applied by ``ranking.model_diversity`` to the first ``head`` of the order: within it a
    solution closer than the radius to a better one follows the others; the tail is kept.
    A model without the step leaves the order as it is."""
    from sparkledock.analysis import learned, ranking

    trees, record = shipped_model("blind")
    monkeypatch.setattr(
        learned,
        "shipped_model",
        lambda model="blind": (trees, {**record, "diversity": {"radius_a": 2.0, "head": 4}}),
    )
    assert learned.diversity("blind") == (2.0, 4)
    # one landmark per solution: 0 and 1 coincide, 2 is 1.5 Å from 0, 3 is 3 Å away;
    # 5 (beyond the head) duplicates 4
    marks = np.array([[0, 0, 0], [0, 0, 0.5], [1.5, 0, 0], [3, 0, 0], [9, 0, 0], [9, 0, 0]])
    index = np.arange(6)
    got = ranking.model_diversity(marks.astype(float), index, "blind")
    np.testing.assert_array_equal(got, [0, 3, 1, 2, 4, 5])
    monkeypatch.setattr(learned, "shipped_model", lambda model="blind": (trees, record))
    expected = None if "diversity" not in record else learned.diversity("blind")
    assert learned.diversity("blind") == expected
    if expected is None:
        np.testing.assert_array_equal(ranking.model_diversity(marks, index, "blind"), index)


def test_rerank_applies_the_blind_models_diversity_step(example, monkeypatch):
    """``rerank(..., "learned_blind")`` is the model's order with its diversity step over
    the head (here every representative, radius 25 Å), as ``ranking.diverse`` gives it."""
    from sparkledock.analysis import ranking
    from sparkledock.io.lightdock import GSOOutput

    setup, poses, swarm, score = example
    chosen = {}
    for s in range(4):
        rows = swarm == s
        n = int(rows.sum())
        data = GSOOutput(
            poses=poses[rows], luciferin=np.zeros(n), neighbors=np.zeros(n, dtype=int),
            vision_range=np.zeros(n), scores=score[rows],
        )  # fmt: skip
        chosen[s] = (data, list(range(n)))
    monkeypatch.setattr(ranking, "diversity", lambda model: None)
    plain = ranking.rerank(setup, chosen, "learned_blind")
    monkeypatch.setattr(ranking, "diversity", lambda model: (25.0, 1000))
    stepped = ranking.rerank(setup, chosen, "learned_blind")
    pose_of = np.array([r.pose for r in plain])
    marks = ranking.landmarks(setup, pose_of, ranking.landmark_atoms(setup))
    expected = ranking.diverse(marks, np.arange(len(plain)), 25.0)
    assert [(r.swarm, r.glowworm) for r in stepped] == [
        (plain[i].swarm, plain[i].glowworm) for i in expected
    ]
    assert sorted(expected.tolist()) == list(range(len(plain)))
    assert expected.tolist() != list(range(len(plain)))  # (the step moved some)
