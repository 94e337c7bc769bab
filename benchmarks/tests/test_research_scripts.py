"""Tests of the research scripts (benchmarks/): the training pipelines of the learned models
end to end on tiny training complexes, and the archives they keep. They test the research
side, not the package; ``python -m pytest`` runs them beside the package's tests."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from sparkledock.analysis.learned import BLIND, BLIND_BASE, Trees, feature_matrix

BENCHMARKS = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SPARKLEDOCK_SHARED", BENCHMARKS.parent.parent / "shared"))
sys.path.insert(0, str(BENCHMARKS))  # (the scripts import each other, as when they run)
if not (SHARED / "train").is_dir() and os.environ.get("SPARKLEDOCK_REQUIRE_SHARED") == "1":
    raise RuntimeError(f"training data not found at {SHARED}")
pytestmark = pytest.mark.skipif(
    not (SHARED / "train").is_dir(), reason=f"needs the training complexes in {SHARED}"
)


def test_training_script_runs_end_to_end_on_two_tiny_training_complexes(
    tmp_path, monkeypatch, capsys
):
    """Blind pools of two small training complexes (a tiny docking each), their features,
    a fit and an export that the package's trees reproduce."""
    assert (SHARED / "train" / "2OOB").is_dir()
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    for name in ("restrained_pools", "blind_learned"):
        sys.modules.pop(name, None)
    import blind_learned
    import restrained_pools

    pools = tmp_path / "pools"
    restrained_pools.main(
        ["--set", "train", "--complexes", "2OOB", "1EFN", "--blind", "--keep-setup",
         "--early-steps", "--steps", "10", "-g", "10", "-s", "3", "--threads", "1",
         "--out", str(pools)]
    )  # fmt: skip
    assert {p.parent.name for p in pools.glob("*/pool.npz")} == {"2OOB", "1EFN"}
    out = tmp_path / "model.json"
    params = {
        "objective": "rank_xendcg",
        "n_estimators": 5,
        "num_leaves": 3,
        "min_child_samples": 1,
    }

    def export(
        source: Path, out: Path, features: str = "shipped", extra: tuple = (), **more
    ) -> dict:
        """The model fitted by the script on ``source``'s pools, as it wrote it to ``out``."""
        blind_learned.main(
            [str(source), "--params", json.dumps({**params, **more}), "--seeds", "1",
             "--features", features, "--export", str(out), *extra]
        )  # fmt: skip
        return json.loads(out.read_text())

    record = export(pools, out)
    assert record["training_complexes"] == ["1EFN", "2OOB"]
    arrays = {k: np.asarray(v) for k, v in record["trees"].items()}
    trees = Trees(**arrays)
    got = trees.predict(np.array(record["check"]["rows"]))
    np.testing.assert_allclose(got, record["check"]["predictions"], rtol=0, atol=1e-9)
    assert (pools / "2OOB" / "features.npz").is_file() and "diversity" not in record
    # another feature set: its extra re-score (pyDock electrostatics) cached and exported
    other = tmp_path / "elec.json"
    record = export(pools, other, "electrostatics")
    assert [tuple(f) for f in record["features"]] == list(
        blind_learned.FEATURE_SETS["electrostatics"]
    )
    assert "dna" in np.load(pools / "2OOB" / "features.npz")
    assert len(record["check"]["rows"][0]) == len(BLIND_BASE) + 1
    # the compact archives: the same fit, the same baselines, without the dockings' files
    archived = tmp_path / "archived"
    blind_learned.main([str(pools), "--archive", str(archived)])
    assert sorted(p.name for p in archived.glob("*.npz")) == ["1EFN.npz", "2OOB.npz"]
    # (another machine goes on where the archives stop: nothing archived is docked again)
    restrained_pools.main(
        ["--set", "train", "--complexes", "2OOB", "1EFN", "--blind", "--out",
         str(tmp_path / "again"), "--skip-archived", str(archived)]
    )  # fmt: skip
    assert not (tmp_path / "again").exists()
    again = tmp_path / "again.json"
    redone = export(archived, again, "electrostatics")
    assert (redone["trees"], redone["check"]) == (record["trees"], record["check"])
    from_pools, from_archives = blind_learned.load(pools), blind_learned.load(archived)
    # the diversity step's landmarks: exact from the pool folders; rebuilt from an archive's
    # rigid part (the ligand's normal modes left out), equal to the exact ones of the same
    # poses without the ligand's deformation, to half precision
    from sparkledock.analysis.ranking import landmark_atoms, landmarks
    from sparkledock.io.lightdock import load_setup

    for name, pool in from_pools.items():
        setup = load_setup(pools / name / "dock" / "setup")
        poses = np.load(pools / name / "pool.npz")["pose"]
        atoms = landmark_atoms(setup)
        exact = landmarks(setup, poses, atoms)
        np.testing.assert_array_equal(blind_learned.pool_marks(pool), exact)
        rigid = poses.copy()
        rigid[:, setup.layout.lig_extents] = 0.0
        kept = blind_learned.pool_marks(from_archives[name])
        np.testing.assert_allclose(kept, landmarks(setup, rigid, atoms), rtol=0, atol=0.05)
        assert np.abs(kept - pool["marks"]).max() > 0.05  # (the modes moved the ligand)
    # a diversity step exported with the model, as the package reads it
    stepped = export(archived, tmp_path / "stepped.json", extra=("--diversity", "10"))
    assert stepped["diversity"] == {"radius_a": 10.0, "head": blind_learned.HEAD}
    assert stepped["trees"] == export(archived, tmp_path / "plain.json")["trees"]
    for name, pool in from_pools.items():
        kept = from_archives[name]
        np.testing.assert_array_equal(kept["label"], pool["label"])
        for method in ("dfire", "soft_consensus"):
            assert blind_learned.baseline(kept, method) == blind_learned.baseline(pool, method)
        for spec in blind_learned.FEATURE_SETS.values():
            np.testing.assert_array_equal(feature_matrix(kept, spec), feature_matrix(pool, spec))
    # each feature alone, from the archives (blind_features.py)
    sys.modules.pop("blind_features", None)
    import blind_features

    blind_features.main([str(archived)])
    table = capsys.readouterr().out
    assert "| formal_coulomb | +1 |" in table and "| soft_consensus |" in table
    # every feature as a rank, the score features' effects held monotone (MONOTONE)
    mono = tmp_path / "mono.json"
    record = export(archived, mono, "ranked", monotone=True)
    trees = Trees(**{k: np.asarray(v) for k, v in record["trees"].items()})
    rows = np.array(record["check"]["rows"])
    np.testing.assert_allclose(trees.predict(rows), record["check"]["predictions"], atol=1e-9)
    held = 0
    for j, (name, how) in enumerate(blind_learned.FEATURE_SETS["ranked"]):
        assert how == "rank"
        sign = blind_learned.MONOTONE.get(name, 0)
        for value in (0.0, 1.0) if sign else ():
            moved = rows.copy()
            moved[:, j] = value
            change = trees.predict(moved) - trees.predict(rows)
            assert (sign * change * (value - rows[:, j]) >= -1e-12).all(), name
            held += 1
    assert held == 2 * len(blind_learned.MONOTONE)
    # a learning curve that draws every complex of the other folds is the cross-validation
    # (labels set by rule: the tiny dockings hold no acceptable model)
    relabelled = blind_learned.load(archived)
    for pool in relabelled.values():
        pool["label"] = (np.arange(len(pool["label"])) % 7 == 3).astype(np.int64)
    capsys.readouterr()
    blind_learned.cross_validate(relabelled, 2, 1, grid=[params])
    cv = capsys.readouterr().out.splitlines()
    cv = [r for r in cv if r.startswith("| learned (shipped") and "cross-validated" not in r]
    blind_learned.learning_curve(relabelled, [1], 1, params, blind_learned.FEATURE_SETS["shipped"])
    curve = [r for r in capsys.readouterr().out.splitlines() if r.startswith("| 1 |")]
    assert len(cv) == len(curve) == 1 and "| 0 / 0 / 0 / 0 |" not in curve[0]
    assert curve[0].split(" | ", 1)[1] == cv[0].split(" | ", 1)[1]


@pytest.mark.parametrize("n", [300, 2**15 + 7])
def test_an_archive_keeps_ranks_and_counts_of_any_pool_size(tmp_path, monkeypatch, n):
    """Archived features give the model the inputs the pool's own features give, for a
    small pool (ranks as uint16) and one too large for uint16 ranks (4GAM's blind pool)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    sys.modules.pop("blind_learned", None)
    import blind_learned

    rng = np.random.default_rng(n)
    features = {name: rng.normal(size=n) for name, how in BLIND if how == "rank"}
    features.update({name: rng.integers(0, 70_000, n) for name, how in BLIND if how == "raw"})
    features["score"][:50] = 1.5  # (ties share their average rank)
    spec = blind_learned.FEATURE_SETS["propensity"]
    # propensity: float values (float32, as the package rounds them), used raw and as ranks
    features.update({name: rng.normal(size=n).astype(np.float32).astype(float)
                     for name in blind_learned.FLOATS})  # fmt: skip
    dockq = rng.uniform(0, 1, n)
    features.update(label=(dockq >= 0.23).astype(int), dockq_label=np.floor(dockq * 10),
                    dockq=dockq)  # fmt: skip
    path = tmp_path / "BIG.npz"
    blind_learned.archive(features, path)
    kept = blind_learned.read_archive(path)
    np.testing.assert_array_equal(feature_matrix(kept, BLIND), feature_matrix(features, BLIND))
    np.testing.assert_array_equal(feature_matrix(kept, spec), feature_matrix(features, spec))
    np.testing.assert_array_equal(kept["label"], features["label"])
    assert np.load(path)["score"].dtype == (np.uint16 if n < 2**15 else np.uint32)
    # archived again unchanged: the file is not written again; changed: it is rewritten
    written = path.stat()
    blind_learned.archive(features, path)
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    features["label"] = 1 - features["label"]
    blind_learned.archive(features, path)
    np.testing.assert_array_equal(blind_learned.read_archive(path)["label"], features["label"])


def test_a_pool_too_large_for_one_query_is_split_into_samples(monkeypatch):
    """LightGBM takes at most 10,000 rows a query: a larger pool becomes near-equal random
    parts that cover every row once, the same parts every time; a smaller one stays whole."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    sys.modules.pop("blind_learned", None)
    import blind_learned

    np.testing.assert_array_equal(blind_learned.queries(9_999)[0], np.arange(9_999))
    parts = blind_learned.queries(25_001)
    assert len(parts) == 3 and max(map(len, parts)) <= blind_learned.QUERY_ROWS
    np.testing.assert_array_equal(np.sort(np.concatenate(parts)), np.arange(25_001))
    again = blind_learned.queries(25_001)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again, strict=True))


def test_site_training_script_runs_end_to_end_on_two_tiny_training_complexes(tmp_path, monkeypatch):
    """Residue tables and labels of two training complexes, a fit, its export (reproduced
    by the package's trees) and every complex's out-of-fold log-odds."""
    assert (SHARED / "train" / "2OOB").is_dir()
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    sys.modules.pop("site_propensity", None)
    import site_propensity

    out, oof = tmp_path / "site.json", tmp_path / "oof.npz"
    params = {"n_estimators": 5, "num_leaves": 3, "min_child_samples": 5}
    site_propensity.main(
        [str(SHARED / "train"), "--complexes", "2OOB", "1EFN", "--folds", "2", "--params",
         json.dumps(params), "--export", str(out), "--oof", str(oof), "--cache",
         str(tmp_path / "cache"), "--threads", "1"]
    )  # fmt: skip
    record = json.loads(out.read_text())
    assert record["training_complexes"] == ["1EFN", "2OOB"]
    trees = Trees(**{k: np.asarray(v) for k, v in record["trees"].items()})
    np.testing.assert_allclose(
        trees.predict(np.array(record["check"]["rows"])), record["check"]["predictions"],
        atol=1e-9,
    )  # fmt: skip
    data = site_propensity.load(SHARED / "train", tmp_path / "cache", ["2OOB", "1EFN"])
    with np.load(oof) as got:
        assert sorted(got) == ["1EFN_ligand", "1EFN_receptor", "2OOB_ligand", "2OOB_receptor"]
        for name, tables in data.items():
            assert len(got[f"{name}_receptor"]) == len(tables["x_receptor"])
            assert np.isfinite(got[f"{name}_receptor"]).all()
            # each interface has residues of both partners, and most residues are not in it
            assert 0 < tables["y_receptor"].sum() < tables["known_receptor"].sum() / 2


def test_restrained_pools_are_archived_without_poses_and_read_back(tmp_path, monkeypatch):
    """A restrained training pool (a tiny docking of 1EFN with its true-interface
    restraints) archived without its poses: ``restrained_choice.load`` reads the archive as
    it reads the pool folder, less the poses; archiving again writes nothing; an archived
    complex is not docked again."""
    assert (SHARED / "train" / "1EFN").is_dir()
    for name in ("restrained_pools", "restrained_choice"):
        sys.modules.pop(name, None)
    import restrained_choice
    import restrained_pools

    out, kept = tmp_path / "pools", tmp_path / "archive"
    argv = ["--set", "train", "--complexes", "1EFN", "--early-steps", "--steps", "10"]
    argv += ["-g", "10", "-s", "3", "--threads", "1"]
    restrained_pools.main([*argv, "--out", str(out)])
    restrained_pools.main(["--out", str(out), "--archive", str(kept)])
    pools, archived = restrained_choice.load(out), restrained_choice.load(kept)
    assert list(archived) == ["1EFN"] and "pose" not in archived["1EFN"]
    assert set(pools["1EFN"]) - set(archived["1EFN"]) == {"pose"}
    for key, values in archived["1EFN"].items():
        np.testing.assert_array_equal(values, pools["1EFN"][key], err_msg=key)
    assert {"satisfaction", "satisfaction_all", "fnat", "dockq"} <= set(archived["1EFN"])
    assert (kept / "1EFN" / "pool.json").is_file()
    assert restrained_pools.archive_pools(out, kept) == []  # (unchanged: not rewritten)
    restrained_pools.main([*argv, "--out", str(tmp_path / "again"), "--skip-archived", str(kept)])
    assert not (tmp_path / "again").exists()
