"""The restrained protocol: the restraint-focused swarm rule, protocols and their resume keys."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import numpy as np
import pytest

from sparkledock.cli import example_dir
from sparkledock.docking import (
    RESTRAINED_SPACING_A,
    RESTRAINED_STOP_TOLERANCE,
    DockOptions,
    dock,
    dock_key,
    with_defaults,
)
from sparkledock.engine import simulation
from sparkledock.engine.driver import run_simulation
from sparkledock.engine.spec import STOP_MIN_STEPS, stop_steps
from sparkledock.errors import SparkledockError
from sparkledock.io.lightdock import read_gso_output
from sparkledock.io.setupdir import CHECKPOINT_FILE
from sparkledock.preparation.prepare import SetupOptions, prepare_setup
from sparkledock.preparation.swarms import covering_count

EXAMPLE = {
    "receptor": example_dir() / "2X9A_r_u.pdb",
    "ligand": example_dir() / "2X9A_l_u.pdb",
    "restraints": example_dir() / "restraints.list",
}


def test_covering_count_of_points_on_a_line():
    # 0..10 Å: the covering starts at 5 (nearest the mean), adds 0 and 10; then no point
    # is farther than 2 Å from one of them
    points = np.stack([np.arange(11.0), np.zeros(11), np.zeros(11)], axis=1)
    assert covering_count(points, 2.0) == 3
    assert covering_count(points, 5.0) == 1
    assert covering_count(points, 0.5) == 11
    assert covering_count(points[:0], 2.0) == 0


def test_covering_count_grows_with_area_not_with_density():
    rng = np.random.default_rng(7)
    patch = rng.uniform(0, 20, size=(400, 3)) * [1, 1, 0]
    denser = rng.uniform(0, 20, size=(4000, 3)) * [1, 1, 0]
    larger = rng.uniform(0, 40, size=(400, 3)) * [1, 1, 0]
    n, n_dense, n_large = (covering_count(p, 6.0) for p in (patch, denser, larger))
    assert abs(n_dense - n) <= 0.3 * n  # ten times the points, about the same swarms
    assert n_large >= 2 * n  # four times the area, more than twice the swarms


def test_restraint_focused_centres_of_the_example(tmp_path):
    """Golden centres of the bundled 2X9A example at an 8 Å spacing (LightDock 0.9.4's rule
    places 320 swarms there)."""
    options = SetupOptions(swarm_spacing=8.0, noh=True, now=True)
    out = prepare_setup(
        EXAMPLE["receptor"], EXAMPLE["ligand"], tmp_path, restraints=EXAMPLE["restraints"],
        options=options,
    )  # fmt: skip
    config = json.loads((out / "setup.json").read_text())
    assert config["swarms"] == 56 and config["swarm_spacing"] == 8.0
    lines = [x for x in (out / "init" / "swarm_centers.pdb").read_text().splitlines()]
    centres = np.array([[float(x[30:38]), float(x[38:46]), float(x[46:54])] for x in lines])
    assert len(centres) == 56
    np.testing.assert_allclose(centres[0], [-14.498, 12.885, -5.942])
    np.testing.assert_allclose(centres[-1], [10.003, 2.041, -13.390])
    # no two swarms over the same spot: nearest neighbours well apart
    d = np.sqrt(((centres[:, None] - centres[None]) ** 2).sum(axis=2))
    np.fill_diagonal(d, np.inf)
    assert d.min(axis=1).min() > 2.0


def test_spacing_is_refused_when_not_finite(tmp_path):
    for bad in (float("nan"), float("inf"), -1.0):
        with pytest.raises(SparkledockError, match="swarm spacing"):
            prepare_setup(
                EXAMPLE["receptor"], EXAMPLE["ligand"], tmp_path / "x",
                restraints=EXAMPLE["restraints"], options=SetupOptions(swarm_spacing=bad),
            )  # fmt: skip
        assert not (tmp_path / "x").exists()


def test_protocol_defaults():
    ours = with_defaults(DockOptions(), restrained=True)
    assert ours.swarm_spacing == RESTRAINED_SPACING_A
    assert (ours.scoring_mode, ours.rank_method) == ("fast", "learned")
    assert ours.stop_tolerance == RESTRAINED_STOP_TOLERANCE > 0
    blind = with_defaults(DockOptions(), restrained=False)
    assert (blind.swarm_spacing, blind.stop_tolerance) == (0.0, 0.0)
    assert (blind.scoring_mode, blind.rank_method) == ("fast", "learned_blind")
    lightdock = with_defaults(DockOptions(protocol="lightdock"), restrained=True)
    assert (lightdock.swarm_spacing, lightdock.scoring_mode, lightdock.rank_method) == (
        0.0,
        "exact",
        "dfire",
    )
    assert lightdock.stop_tolerance == 0.0
    membrane = with_defaults(DockOptions(membrane=True), restrained=True)
    assert membrane.scoring_mode == "exact"  # (fast mode was not measured with membranes)
    # what the user asks for wins over the protocol's default
    asked = with_defaults(DockOptions(protocol="lightdock", scoring_mode="fast"), True)
    assert asked.scoring_mode == "fast"
    paratope = with_defaults(DockOptions(paratope=True), restrained=False)
    assert paratope.swarm_spacing == 0.0


def test_protocol_is_part_of_the_resume_key():
    files = (EXAMPLE["receptor"], EXAMPLE["ligand"], EXAMPLE["restraints"])
    ours = with_defaults(DockOptions(), True)
    lightdock = with_defaults(DockOptions(protocol="lightdock"), True)
    assert dock_key(*files, ours) != dock_key(*files, lightdock)
    assert dock_key(*files, ours) != dock_key(*files, replace(ours, swarm_spacing=6.0))


def _legacy_key(receptor, ligand, restraints, options: DockOptions) -> str:
    """The resume key of a docking made before protocols existed (no protocol in it)."""
    digest = hashlib.sha256()
    for path in (receptor, ligand, restraints):
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    protocol = {
        "steps": options.steps,
        "glowworms": options.glowworms,
        "swarms": options.swarms,
        "anm": options.anm,
        "seed": options.seed,
        "map_modified": options.map_modified,
        "scoring": options.scoring,
        "engine": None,
    }
    digest.update(json.dumps(protocol, sort_keys=True).encode())
    return digest.hexdigest()


def test_a_folder_made_before_protocols_is_refused_not_resumed(tmp_path):
    options = DockOptions(steps=2, glowworms=4, swarms=3, quiet=True, threads=1)
    files = (EXAMPLE["receptor"], EXAMPLE["ligand"], EXAMPLE["restraints"])
    out = tmp_path / "dock"
    dock(*files[:2], out, restraints=files[2], options=options)
    record = json.loads((out / "sparkledock_dock.json").read_text())
    assert json.loads((out / "run.json").read_text())["options"]["protocol"] == "sparkledock"
    # the same folder as the previous release left it: its key had no protocol
    record["key"] = _legacy_key(*files, options)
    (out / "sparkledock_dock.json").write_text(json.dumps(record))
    with pytest.raises(SparkledockError, match="not empty"):
        dock(*files[:2], out, restraints=files[2], options=options)
    assert json.loads((out / "sparkledock_dock.json").read_text())["key"] == record["key"]


#: Digest of the setup's starting poses, the gso files, LightDock's rank lists and
#: ranking.csv of a restrained 3-step docking of the example (8 glowworms) made by the
#: release before protocols existed (its default: LightDock 0.9.4's rule, exact search,
#: ranking by score).
LIGHTDOCK_PROTOCOL_DIGEST = "cfca23b40bbaf27e029400eb922a05b08c2d210714cdf34ce5488c93dc6fb7af"


def test_lightdock_protocol_reproduces_the_previous_default_byte_for_byte(tmp_path):
    out = tmp_path / "dock"
    options = DockOptions(steps=3, glowworms=8, threads=1, quiet=True, protocol="lightdock")
    dock(EXAMPLE["receptor"], EXAMPLE["ligand"], out, restraints=EXAMPLE["restraints"],
         options=options)  # fmt: skip
    named = ("ranking.csv", "setup/rank_by_scoring.list", "setup/rank_filtered.list")
    files = sorted(
        p
        for p in out.rglob("*")
        if p.is_file()
        and (p.name.endswith((".dat", "gso_3.out")) or str(p.relative_to(out)) in named)
    )
    assert len(files) == 643  # 320 swarms' starts and last gso files, and the three lists
    hashes = {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    digest = hashlib.sha256("".join(hashes[k] for k in sorted(hashes)).encode()).hexdigest()
    assert digest == LIGHTDOCK_PROTOCOL_DIGEST


def _six_swarms(root):
    prepare_setup(
        EXAMPLE["receptor"], EXAMPLE["ligand"], root, restraints=EXAMPLE["restraints"],
        options=SetupOptions(swarms=6, glowworms=20, anm=True, noh=True, now=True),
    )  # fmt: skip
    return root


def _last_files(root, steps=60):
    return [(root / f"swarm_{s}" / f"gso_{steps}.out").read_text() for s in range(6)]


def test_early_stopping_equals_the_full_run_cut_where_each_swarm_converged(tmp_path):
    """A swarm that stops keeps its glowworms: its last file holds the poses of the full
    run's snapshot where :func:`stop_steps` says it converged (swarms are independent), and
    the decision does not depend on the thread count."""
    full, one, two = (_six_swarms(tmp_path / n) for n in ("full", "one", "two"))
    tolerance = 0.5  # large, so that swarms of this short run stop at different steps
    run_simulation(full, 60, scoring_mode="fast", threads=1, quiet=True)
    run_simulation(one, 60, scoring_mode="fast", threads=1, quiet=True, stop_tolerance=tolerance)
    run_simulation(two, 60, scoring_mode="fast", threads=2, quiet=True, stop_tolerance=tolerance)
    assert _last_files(one) == _last_files(two)
    snaps = range(10, 61, 10)
    scores = np.array(
        [[read_gso_output(full / f"swarm_{s}" / f"gso_{t}.out").scores for t in snaps]
         for s in range(6)]
    )  # fmt: skip
    stops = stop_steps(scores.max(axis=2), scores.mean(axis=2), tolerance, STOP_MIN_STEPS, 60)
    assert stops.min() == STOP_MIN_STEPS and stops.max() == 60  # some stop, some run on
    assert len(set(stops.tolist())) >= 3
    for swarm, stop in enumerate(stops):
        cut = read_gso_output(full / f"swarm_{swarm}" / f"gso_{stop}.out")
        ended = read_gso_output(one / f"swarm_{swarm}" / "gso_60.out")
        np.testing.assert_array_equal(cut.poses, ended.poses)
        if stop < 60:  # a stopped swarm's later snapshots hold the same glowworms
            later = read_gso_output(one / f"swarm_{swarm}" / "gso_50.out")
            np.testing.assert_array_equal(later.poses, ended.poses)


class _KilledError(Exception):
    pass


def test_early_stopping_resumes_from_a_checkpoint_to_the_same_files(tmp_path, monkeypatch):
    whole, resumed = _six_swarms(tmp_path / "whole"), _six_swarms(tmp_path / "resumed")
    run_simulation(whole, 60, scoring_mode="fast", threads=1, quiet=True, stop_tolerance=0.5)
    # a run killed right after its step-40 checkpoint (which records the stopped swarms)
    original = simulation.save_checkpoint

    def killed_after_40(path, spec, done, group, state, *rest, **kw):
        original(path, spec, done, group, state, *rest, **kw)
        if state is not None and state.step == 40:
            raise _KilledError

    monkeypatch.setattr(simulation, "save_checkpoint", killed_after_40)
    with pytest.raises(_KilledError):
        run_simulation(resumed, 60, scoring_mode="fast", threads=1, quiet=True, stop_tolerance=0.5)
    monkeypatch.setattr(simulation, "save_checkpoint", original)
    assert (resumed / CHECKPOINT_FILE).is_file()
    run_simulation(resumed, 60, scoring_mode="fast", threads=1, quiet=True, stop_tolerance=0.5)
    assert _last_files(resumed) == _last_files(whole)
    for step in (40, 50):
        assert [(whole / f"swarm_{s}" / f"gso_{step}.out").read_text() for s in range(6)] == [
            (resumed / f"swarm_{s}" / f"gso_{step}.out").read_text() for s in range(6)
        ]


def test_early_stopping_is_refused_with_lightdocks_random_stream_or_a_bad_tolerance(tmp_path):
    root = _six_swarms(tmp_path / "x")
    with pytest.raises(SparkledockError, match="no swarm stops early"):
        run_simulation(root, 40, exact=True, threads=1, quiet=True, stop_tolerance=0.5)
    for bad in (float("nan"), float("inf"), -0.1):
        with pytest.raises(SparkledockError, match=r"^stop_tolerance must be 0 or a positive"):
            run_simulation(root, 40, threads=1, quiet=True, stop_tolerance=bad)
        with pytest.raises(SparkledockError, match=r"^stop_tolerance must be 0 or a positive"):
            dock(EXAMPLE["receptor"], EXAMPLE["ligand"], tmp_path / "d", options=DockOptions(
                stop_tolerance=bad))  # fmt: skip
        assert not (tmp_path / "d").exists() and not list((root / "swarm_0").glob("gso_*"))


def test_restraints_ranking_is_the_mean_of_score_and_satisfaction_ranks():
    from sparkledock.analysis.ranking import order

    score = np.array([30.0, 25.0, 20.0, 10.0])
    share = np.array([0.2, 0.9, 0.9, 1.0])
    # ranks by score 0 1 2 3; by share (ties share their mean) 3 1.5 1.5 0: sums 3 2.5 3.5 3
    # -> 1 first, then 0 and 3 tied (3.0; the score decides: 0), then 2
    got = order("restraints", {"score": score, "satisfaction": share})
    assert got.tolist() == [1, 0, 3, 2]
    with pytest.raises(ValueError, match="needs satisfaction"):
        order("restraints", {"score": score})


def test_average_ranks_equal_scipys():
    from scipy.stats import rankdata

    from sparkledock.analysis.ranks import average_ranks

    rng = np.random.default_rng(3)
    for values in (rng.integers(0, 5, 50).astype(float), rng.random(30), np.ones(4), []):
        np.testing.assert_array_equal(average_ranks(values), rankdata(values, method="average"))


def test_when_every_swarm_has_stopped_the_run_writes_the_remaining_files_at_once(tmp_path):
    root = _six_swarms(tmp_path / "all")
    result = run_simulation(root, 60, scoring_mode="fast", threads=1, quiet=True,
                            stop_tolerance=1e6)  # fmt: skip
    assert [h[0] for h in result.history] == list(range(1, 61))
    for swarm in range(6):
        at = {t: read_gso_output(root / f"swarm_{swarm}" / f"gso_{t}.out") for t in (30, 40, 60)}
        np.testing.assert_array_equal(at[30].poses, at[60].poses)  # all stopped at step 30
        np.testing.assert_array_equal(at[30].scores, at[40].scores)  # (fast scores)
    # the last file's scores are exact, as in any fast run
    from sparkledock.engine.context import setup_restraints
    from sparkledock.io.lightdock import load_setup
    from sparkledock.scoring.prepared import prepare_scoring

    setup = load_setup(root)
    exact = prepare_scoring(setup, restraints=setup_restraints(setup))
    last = read_gso_output(root / "swarm_0" / "gso_60.out")
    np.testing.assert_allclose(last.scores, exact.score(last.poses), rtol=1e-6, atol=1e-6)


def test_satisfaction_equals_every_pair_checked(setups):
    """The filter's restraint satisfaction (trees over the ligand and the receptor atoms in
    contact) equals checking every receptor–ligand pair: active and passive residues, a
    duplicate listed twice, a residue that does not exist, protein-only atoms."""
    from conftest import BENCH, golden
    from sparkledock.analysis.filter import molecule_mask, satisfaction
    from sparkledock.analysis.models import complex_coordinates
    from sparkledock.io.restraints import read_restraints
    from sparkledock.molecule.restraints import Restraints, SideRestraints

    setup = setups("2X9A")
    poses, _ = golden("2X9A", restraints=True)
    listed = read_restraints(BENCH / "2X9A" / "restraints.list")
    rec = list(listed.receptor.active)
    lig = list(listed.ligand.active)
    restraints = Restraints(
        SideRestraints(active=rec[:6] + rec[:1], passive=[*rec[6:], "A.GLY.9999"]),
        SideRestraints(active=lig[::2], passive=lig[1::2]),
    )
    n_rec = len(setup.receptor.atoms)
    rec_ids = setup.receptor.atoms.residue_ids()
    lig_ids = setup.ligand.atoms.residue_ids()
    xyz = complex_coordinates(setup, poses)
    for passive in (False, True):
        rec_want = restraints.receptor.active + (restraints.receptor.passive if passive else [])
        lig_want = restraints.ligand.active + (restraints.ligand.passive if passive else [])
        use = molecule_mask(setup.receptor.atoms, "protein")
        expected = []
        for pose in xyz:
            d = np.linalg.norm(pose[:n_rec][:, None] - pose[n_rec:][None], axis=2) <= 5.0
            hit = set(rec_ids[use & d.any(axis=1)]) & set(rec_want)
            hit |= set(lig_ids[(d & use[:, None]).any(axis=0)]) & set(lig_want)
            expected.append(len(hit) / (len(rec_want) + len(lig_want)))
        got = satisfaction(setup, poses, restraints, 5.0, passive, ("protein", "all"))
        assert got.max() > 0.0 and got.min() < got.max()
        assert np.array_equal(got, np.array(expected))
