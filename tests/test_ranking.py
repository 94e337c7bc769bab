"""DockQ of many poses at once (equal to the DockQ package on written models) and the ranking
methods on synthetic data."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH, golden
from sparkledock.analysis import ranking
from sparkledock.analysis.evaluate import dockq_package, evaluate
from sparkledock.analysis.features import rescore
from sparkledock.analysis.models import write_models
from sparkledock.analysis.quality import dockq_score, kabsch, pose_quality, quality_reference
from sparkledock.errors import SparkledockError


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
    pytest.importorskip("DockQ")  # the package itself, as the cross-check
    for i, path in enumerate(paths):
        assert evaluate(path, reference).dockq == pytest.approx(got["dockq"][i], abs=1e-4)
        q = dockq_package(path, reference)
        assert got["fnat"][i] == pytest.approx(q.fnat, abs=1e-9)
        assert got["irmsd"][i] == pytest.approx(q.irmsd, abs=1e-3)
        assert got["lrmsd"][i] == pytest.approx(q.lrmsd, abs=1e-3)
        assert got["dockq"][i] == pytest.approx(q.dockq, abs=1e-4)


def test_residue_distances_are_the_dense_ones_within_the_cutoff():
    """The reference's residue-pair distances, found by a k-d tree, equal the dense atom-pair
    matrix's (same arithmetic) up to the cutoff, and are infinite beyond it."""
    from sparkledock.analysis.quality import _min_d2

    rng = np.random.default_rng(3)
    xyz_a, xyz_b = rng.uniform(0, 30, (120, 3)), rng.uniform(10, 40, (90, 3))
    res_a = np.split(np.arange(120), [7, 20, 33, 50, 71, 90, 104])
    res_b = np.split(np.arange(90), [5, 18, 40, 61, 77])
    d2 = ((xyz_a[:, None, :] - xyz_b[None, :, :]) ** 2).sum(axis=2)
    dense = np.array([[d2[np.ix_(a, b)].min() for b in res_b] for a in res_a])
    got = _min_d2(xyz_a, xyz_b, res_a, res_b, 6.0)
    near = dense <= 36.0
    assert near.any() and (~near).any()
    assert np.array_equal(got[near], dense[near]) and np.isinf(got[~near]).all()


def test_the_reference_scores_itself_one(tmp_path):
    """A setup made from the bound complex's own chains: the identity pose has DockQ 1."""
    from sparkledock.io.lightdock import load_setup
    from sparkledock.molecule.structure import read_structure, write_structure
    from sparkledock.preparation.prepare import SetupOptions, prepare_setup

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
    features = {
        "score": np.array([5.0, 9.0, 7.0, 9.0]),
        "satisfaction": np.array([1.0, 0.5, 1.0, 0.0]),
    }
    assert ranking.order("dfire", features).tolist() == [1, 3, 2, 0]
    # score ranks 3, 0, 2, 1 (ties by position), satisfaction ranks (ties as their mean)
    # 0.5, 2, 0.5, 3: sums 3.5, 2, 2.5, 4 -> 1, 2, 0, 3
    assert ranking.order("restraints", features).tolist() == [1, 2, 0, 3]
    with pytest.raises(ValueError, match="unknown ranking method"):
        ranking.order("nosuch", features)
    with pytest.raises(ValueError, match="needs dfire_soft, mj3h"):
        ranking.order("soft_consensus", {"score": features["score"]})


def test_landmarks_move_with_the_ligand(setups):
    setup = setups("2X9A")
    atoms = ranking.landmark_atoms(setup)
    assert len(atoms) == ranking.LANDMARKS and len(set(atoms.tolist())) == len(atoms)
    pose = np.zeros((2, setup.layout.size))
    pose[:, 3] = 1.0
    pose[1, 0] = 2.0  # 2 Å along x
    marks = ranking.landmarks(setup, pose, atoms).reshape(2, -1, 3)
    np.testing.assert_allclose(marks[1] - marks[0], np.tile([2.0, 0, 0], (len(atoms), 1)))


def _blind_dock(tmp_path, *extra: str):
    from sparkledock.cli import main

    out = tmp_path / "out"
    src = BENCH / "2X9A"
    argv = ["dock", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"), "-o", str(out)]
    argv += ["--steps", "4", "-g", "12", "-s", "6", "--top", "3", "--quiet", *extra]
    assert main(argv) == 0
    return out


def test_blind_dock_with_a_chosen_ranking_and_the_rank_stage(tmp_path):
    """``dock`` without restraints, ranked by soft_consensus with --diverse: ranking.csv
    holds the same solutions as rank_by_scoring.list (by score), in the documented order;
    ``rank --method`` on the same folder reproduces the order in rank_by_<method>.list."""
    import csv

    from sparkledock.analysis.rank import chosen_glowworms, read_ranking
    from sparkledock.cli import main
    from sparkledock.io.lightdock import load_setup

    argv = ("--rank-method", "soft_consensus", "--diverse", "--redock-sites", "0")
    out = _blind_dock(tmp_path, *argv)
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    by_score = read_ranking(out / "setup" / "rank_by_scoring.list")
    key = [(int(r["swarm"]), int(r["glowworm"])) for r in rows]
    assert sorted(key) == sorted((r.swarm, r.glowworm) for r in by_score)
    setup = load_setup(out / "setup")
    chosen = chosen_glowworms(out / "setup", list(range(6)), 4)
    expected = ranking.rerank(setup, chosen, "soft_consensus", diversify=True)
    assert key == [(r.swarm, r.glowworm) for r in expected]
    # the documented order: the mean of the ranks by score, dfire_soft and MJ3h
    ranked = ranking.rerank(setup, chosen, "soft_consensus")
    reps = ranking.rank_glowworms(chosen)
    features, _ = ranking.ranking_features(setup, reps, ranking.NEEDS["soft_consensus"])
    order = ranking.order("soft_consensus", features)
    assert [(r.swarm, r.glowworm) for r in ranked] == [
        (reps[i].swarm, reps[i].glowworm) for i in order
    ]
    assert main(["rank", str(out / "setup"), "6", "4", "--method", "soft_consensus"]) == 0
    listed = read_ranking(out / "setup" / "rank_by_soft_consensus.list")
    assert [(r.swarm, r.glowworm) for r in listed] == [(r.swarm, r.glowworm) for r in ranked]


def test_an_unknown_ranking_method_is_a_one_line_error(tmp_path, capsys):
    from sparkledock.cli import main

    src = BENCH / "2X9A"
    argv = ["dock", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"), "-o", str(tmp_path)]
    assert main([*argv, "--rank-method", "nosuch"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--rank-method 'nosuch': no such ranking" in err


def test_an_unknown_scoring_mode_is_refused_before_any_work(tmp_path):
    from sparkledock.docking import DockOptions, dock
    from sparkledock.errors import SparkledockError

    src = BENCH / "2X9A"
    out = tmp_path / "out"
    with pytest.raises(SparkledockError, match=r"^scoring_mode 'fastest': no such scoring mode"):
        dock(
            src / "2X9A_r_u.pdb",
            src / "2X9A_l_u.pdb",
            out,
            options=DockOptions(scoring_mode="fastest"),
        )
    assert not out.exists() or not any(out.iterdir())  # nothing written


def test_soft_consensus_order_is_documented():
    """``soft_consensus`` by the sum of the ranks by DFIRE, dfire_soft and MJ3h, ties by the
    DFIRE score, then by position."""
    features = {
        "score": np.array([5.0, 9.0, 7.0, 8.0]),
        "dfire_soft": np.array([6.0, 9.0, 12.0, 10.0]),
        "mj3h": np.array([-1.0, 4.0, -2.0, 2.0]),
    }
    # DFIRE ranks 3, 0, 2, 1, dfire_soft 3, 2, 0, 1 and MJ3h 2, 0, 3, 1: sums 8, 2, 5, 3
    assert ranking.order("soft_consensus", features).tolist() == [1, 3, 2, 0]
    with pytest.raises(ValueError, match="needs mj3h"):
        ranking.order(
            "soft_consensus", {"score": features["score"], "dfire_soft": features["mj3h"]}
        )


def test_the_default_ranking_follows_restraints_and_the_search_function():
    assert ranking.default_method(restrained=False) == ranking.BLIND_DEFAULT == "learned_blind"
    assert ranking.default_method(restrained=False, scoring="fastdfire") == "learned_blind"
    assert ranking.default_method(restrained=False, paratope=True) == "paratope"
    assert ranking.default_method(restrained=True) == ranking.RESTRAINED_DFIRE_DEFAULT == "learned"
    assert ranking.default_method(restrained=True, scoring="vdw") == "dfire"  # by its score
    assert ranking.default_method(restrained=False, scoring="pisa") == "dfire"


def test_the_default_scoring_mode_is_fast_for_a_dfire_docking_under_sparkledocks_protocol():
    from sparkledock.docking import DockOptions, default_scoring_mode, with_defaults

    blind = DockOptions()
    assert default_scoring_mode(blind, restrained=False) == "fast"
    assert default_scoring_mode(DockOptions(paratope=True), restrained=False) == "fast"
    assert default_scoring_mode(DockOptions(scoring="fastdfire"), restrained=False) == "fast"
    assert default_scoring_mode(blind, restrained=True) == "fast"
    assert default_scoring_mode(DockOptions(protocol="lightdock"), restrained=True) == "exact"
    assert default_scoring_mode(DockOptions(protocol="lightdock"), restrained=False) == "exact"
    assert default_scoring_mode(DockOptions(membrane=True), restrained=False) == "exact"
    assert default_scoring_mode(DockOptions(scoring="pisa"), restrained=False) == "exact"
    # what the user asks for is kept; both defaults are decided together
    chosen = with_defaults(DockOptions(scoring_mode="exact"), restrained=False)
    assert (chosen.scoring_mode, chosen.rank_method) == ("exact", "learned_blind")
    chosen = with_defaults(DockOptions(), restrained=True)
    assert (chosen.scoring_mode, chosen.rank_method) == ("fast", "learned")
    chosen = with_defaults(DockOptions(protocol="lightdock"), restrained=True)
    assert (chosen.scoring_mode, chosen.rank_method) == ("exact", "dfire")


def test_clash_tolerant_table_forgives_side_chain_clashes_only():
    from sparkledock.scoring.dfire.model import (
        ATOM_TYPE,
        CLASH_CAP,
        clash_tolerant_table,
        padded_table,
    )

    table = padded_table()
    soft = clash_tolerant_table(table)
    changed = soft != table
    assert (table[changed] == CLASH_CAP).all() and (soft[changed] == 0.0).all()
    ca, o = ATOM_TYPE[("ALA", "CA")], ATOM_TYPE[("GLY", "O")]
    cb, nz = ATOM_TYPE[("ALA", "CB")], ATOM_TYPE[("LYS", "NZ")]
    assert table[ca, o, 0] == CLASH_CAP and soft[ca, o, 0] == CLASH_CAP  # backbone pair kept
    for a, b in ((cb, nz), (ca, nz), (nz, o)):  # any pair with a side-chain atom forgiven
        assert table[a, b, 0] == CLASH_CAP and soft[a, b, 0] == 0.0
    assert changed.sum() > 0.5 * (table == CLASH_CAP).sum()


def test_dfire_soft_adds_back_what_each_forgiven_clash_cost(setups):
    """dfire_soft − dfire = 0.157 per forgiven pair (10 energy units × 0.0157), counted here
    with the NumPy oracle over the clash-tolerant and the original table; numba equals it."""
    from sparkledock.scoring import get_scoring
    from sparkledock.scoring.dfire.model import ENERGY_SCALE

    setup = setups("2X9A")
    poses = golden("2X9A")[0][:24]
    hard, soft = get_scoring("dfire"), get_scoring("dfire_soft")
    model = soft.prepare(setup.receptor, setup.ligand)
    s_numba = soft.score(model, poses)
    s_numpy = soft.score(model, poses, backend="numpy")
    np.testing.assert_array_equal(s_numba, s_numpy)
    d = hard.score(hard.prepare(setup.receptor, setup.ligand), poses)
    gained = (s_numba - d) / (10.0 * ENERGY_SCALE)
    assert (gained >= -1e-9).all() and gained.max() > 0.5
    np.testing.assert_allclose(gained, np.round(gained), atol=1e-6)  # whole pairs


def test_rigid_only_rescoring_drops_the_normal_mode_extents(setups):
    """TOBI has no normal-mode support (as in LightDock): the ranking re-scores the rigid-body
    part of each pose on the partners as given."""
    from sparkledock.scoring import get_scoring

    setup = setups("2X9A")
    assert setup.receptor.n_modes and setup.ligand.n_modes
    poses = golden("2X9A")[0][:8]
    tobi = get_scoring("tobi")
    rigid = tobi.prepare(setup.receptor.without_modes(), setup.ligand.without_modes())
    expected = tobi.score(rigid, np.ascontiguousarray(poses[:, :7]))
    np.testing.assert_array_equal(rescore(setup, poses, "tobi"), expected)
    moved = poses.copy()
    moved[:, 7:] += 1.0  # extents do not count
    np.testing.assert_array_equal(rescore(setup, moved, "tobi"), expected)


def test_blind_dock_ranks_by_the_blind_default_and_says_so(tmp_path):
    """Without restraints and without --rank-method, ``dock`` ranks by the blind default
    (the learned model) behind the default site stage's models (``SITE_DEFAULT`` sites
    docked again, at most one per swarm the user asked for, in the sites' order):
    ranking.csv is the site models, then rerank(..., "learned_blind") of the same
    representatives, unlike soft_consensus's order, and run.json records both."""
    import csv
    import json

    from sparkledock.analysis.rank import chosen_glowworms
    from sparkledock.docking.options import SITE_DEFAULT
    from sparkledock.docking.sites import site_leaders
    from sparkledock.io.lightdock import load_setup

    out = _blind_dock(tmp_path)
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    setup = load_setup(out / "setup")
    chosen = chosen_glowworms(out / "setup", list(range(6)), 4)
    expected = ranking.rerank(setup, chosen, "learned_blind")
    sites = len(site_leaders(setup, expected, min(SITE_DEFAULT, 6)))  # -s 6 bounds the stage
    assert sites == len(list(out.glob("sites/site_*.restraints"))) > 1
    assert [r["site"] for r in rows[:sites]] == [f"sites/site_{n}" for n in range(1, sites + 1)]
    assert [(int(r["swarm"]), int(r["glowworm"])) for r in rows[sites:]] == [
        (r.swarm, r.glowworm) for r in expected
    ]
    for other in ("dfire", "soft_consensus"):
        assert [(r.swarm, r.glowworm) for r in expected] != [
            (r.swarm, r.glowworm) for r in ranking.rerank(setup, chosen, other)
        ]
    record = json.loads((out / "run.json").read_text())
    assert record["options"]["rank_method"] == "learned_blind"
    stage = next(s for s in record["stages"] if s["name"] == "sites")
    assert stage["summary"] == f"{sites} site models ranked first"
    ranked = json.loads((out / "sparkledock_dock.json").read_text())["ranking"]
    assert ranked["redock_sites"] == "the protocol's"
    # and searched in fast mode, the blind default, as both records say
    assert record["options"]["scoring_mode"] == "fast"
    assert json.loads((out / "sparkledock_dock.json").read_text())["scoring_mode"] == "fast"


def test_a_partner_of_several_chains_is_evaluated_as_one(tmp_path):
    """Splitting the receptor into two chains (as an antibody's heavy and light chains) in
    the model and the reference changes no measure; chains renamed in the model are matched
    by sequence; the model's own chains may be named; no DockQ package is needed."""
    from sparkledock.analysis.quality import file_quality

    target = BENCH / "2X9A" / "2X9A_target.pdb"
    lines = target.read_text().splitlines()

    def split(text_lines, shift=0.0, rename=None):
        out = []
        for ln in text_lines:
            if ln.startswith(("ATOM", "HETATM")):
                chain = ln[21]
                if chain == "A" and int(ln[22:26]) >= 60:
                    chain = "C"
                if chain == "B" and shift:
                    x = float(ln[30:38]) + shift
                    ln = f"{ln[:30]}{x:8.3f}{ln[38:]}"
                chain = (rename or {}).get(chain, chain)
                ln = ln[:21] + chain + ln[22:]
            out.append(ln)
        return "\n".join(out) + "\n"

    (tmp_path / "ref.pdb").write_text(split(lines))
    (tmp_path / "moved.pdb").write_text(split(lines, shift=3.0))
    (tmp_path / "moved2.pdb").write_text(
        "\n".join(
            f"{ln[:30]}{float(ln[30:38]) + 3.0:8.3f}{ln[38:]}"
            if ln.startswith(("ATOM", "HETATM")) and ln[21] == "B"
            else ln
            for ln in lines
        )
        + "\n"
    )
    self_q = file_quality(tmp_path / "ref.pdb", tmp_path / "ref.pdb", ["A", "C"])
    assert self_q["dockq"] == pytest.approx(1.0) and self_q["fnat"] == 1.0
    merged = file_quality(tmp_path / "moved.pdb", tmp_path / "ref.pdb", ["A", "C"])
    whole = file_quality(tmp_path / "moved2.pdb", target)
    for key in ("fnat", "irmsd", "lrmsd", "dockq"):
        assert merged[key] == pytest.approx(whole[key], abs=1e-9), key
    (tmp_path / "renamed.pdb").write_text(split(lines, shift=3.0, rename={"B": "L"}))
    renamed = file_quality(tmp_path / "renamed.pdb", tmp_path / "ref.pdb", ["A", "C"])
    assert renamed == pytest.approx(merged)
    with pytest.raises(SparkledockError, match="say which are the receptor's"):
        file_quality(tmp_path / "moved.pdb", tmp_path / "ref.pdb")


def test_evaluate_takes_receptor_chains_on_the_command_line(tmp_path, capsys):
    from sparkledock.cli import main

    target = BENCH / "2X9A" / "2X9A_target.pdb"
    lines = [
        ln[:21] + "C" + ln[22:]
        if ln.startswith("ATOM") and ln[21] == "A" and int(ln[22:26]) >= 60
        else ln
        for ln in target.read_text().splitlines()
    ]
    (tmp_path / "three.pdb").write_text("\n".join(lines) + "\n")
    argv = ["evaluate", str(tmp_path / "three.pdb"), str(tmp_path / "three.pdb")]
    assert main(argv) == 1 and "--receptor-chains" in capsys.readouterr().err
    assert main([*argv, "--receptor-chains", "A,C"]) == 0
    assert capsys.readouterr().out.splitlines()[1].endswith(",1.0000,1.0000,0.000,0.000,high")
