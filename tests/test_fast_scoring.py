"""DFIRE's fast path: the field on a grid, its lookup, and fast-mode runs whose written scores
are exact."""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import warnings

import numpy as np
import pytest
from scipy.stats import spearmanr

from conftest import BENCH, golden, writable_setup
from sparkledock.backend import resolve_engine
from sparkledock.cli import main
from sparkledock.engine.driver import run_simulation
from sparkledock.errors import EngineError, SparkledockWarning
from sparkledock.io.lightdock import read_gso_output
from sparkledock.io.restraints import read_restraints
from sparkledock.scoring.dfire import grid, grid_numba, numba_kernel
from sparkledock.scoring.dfire.model import BINS
from sparkledock.scoring.prepared import prepare_scoring

#: Documented fidelity of the fast score on jittered golden poses
#: (benchmarks/notebook/performance.md).
MIN_SPEARMAN = 0.99
MAX_MEAN_ERROR = 2.0


@pytest.fixture(scope="module")
def prepared(setups):
    setup = setups("2X9A")
    restraints = read_restraints(BENCH / "2X9A" / "restraints.list")
    return prepare_scoring(setup, restraints=restraints)


@pytest.fixture(scope="module")
def fast(prepared):
    return grid.prepare_field(prepared.model)


def jittered(n_copies: int = 4, sigma: float = 1.5) -> np.ndarray:
    poses, _ = golden("2X9A")
    out = np.repeat(poses, n_copies, axis=0)
    out[:, :3] += np.random.default_rng(3).normal(0, sigma, (len(out), 3))
    return out


def test_field_equals_the_factored_sum_at_grid_points(prepared, fast):
    model, spec = prepared.model, fast.spec
    _, basis = grid.table_factors(grid.RANK)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        index = np.array([rng.integers(0, n) for n in spec.shape])
        point = spec.origin + index * spec.spacing
        d2 = ((model.rec_xyz - point) ** 2).sum(axis=1)
        near = d2 <= 225.0
        k = np.maximum((2.0 * np.sqrt(d2[near]) - 1.0).astype(int), 0)
        expect = basis[model.rec_types[near], BINS[k]].sum(axis=0)
        got = fast.field[tuple(index)] * fast.scale  # (int16 steps)
        np.testing.assert_allclose(got, expect, rtol=1e-5, atol=0.5 * fast.scale.max() + 1e-4)
        checked += near.any()
    assert checked > 5  # some points near the receptor, not only empty ones


def test_the_factorisation_at_full_rank_is_the_table(prepared):
    # the truncated factors are the leading part of an exact decomposition of the table
    table = prepared.model.table
    full_w, full_b = grid.table_factors(168)
    np.testing.assert_allclose(np.einsum("br,akr->abk", full_w, full_b), table, atol=1e-9)


def test_lookup_between_grid_points_is_trilinear(prepared, fast):
    # a one-atom ligand: its fast energy is the interpolated field dotted with its weights
    model = prepared.model
    one = dataclasses.replace(
        model,
        lig_xyz=np.zeros((1, 3)),
        lig_types=model.lig_types[:1],
        lig_modes=model.lig_modes[:, :1],
        lig_restraint_group=np.full(1, -1),
        n_lig_restraints=0,
        rec_restraint_group=np.full(len(model.rec_xyz), -1),
        n_rec_restraints=0,
    )
    field = grid.DFIREField(one, fast.spec, fast.field, fast.weights[:1], fast.scale)
    spec = fast.spec
    rng = np.random.default_rng(1)
    centre = np.array(spec.shape) // 2
    for _ in range(10):
        frac = rng.uniform(0, 1, 3)
        point = spec.origin + (centre + frac) * spec.spacing
        pose = np.zeros((1, one.layout.size))
        pose[0, :3], pose[0, 3] = point, 1.0
        energy = grid_numba.score_poses(field, pose).energy[0]
        corners = 0.0
        for c in np.ndindex(2, 2, 2):
            w = np.prod(np.where(np.array(c) == 1, frac, 1 - frac))
            corners += w * fast.field[tuple(centre + np.array(c))].astype(float)
        expect = float(corners @ fast.weights[0].astype(float))
        assert energy == pytest.approx(expect, rel=1e-5, abs=1e-4)


def test_fast_scores_follow_exact_ones(prepared, fast):
    poses = jittered()
    exact = prepared.score(poses, threads=1)
    quick = grid_numba.FastDFIRE(fast).score(poses, threads=1)
    assert spearmanr(quick, exact)[0] > MIN_SPEARMAN
    assert np.abs(quick - exact).mean() < MAX_MEAN_ERROR


#: Documented fidelity of ``fast-flex``, on jittered golden poses whose receptor extents are
#: drawn at three times 0.9.4's spread (benchmarks/notebook/performance.md, "Receptor flexibility
#: in the
#: fast path"): the same bound as the rigid field's, a smaller error than it, and a change
#: of score with the receptor's extents that follows the exact one.
MIN_FLEX_GAIN = 0.05
MIN_FLEX_CORRELATION = 0.4


def flexed(n_copies: int = 4, scale: float = 3.0) -> np.ndarray:
    """Jittered golden poses with receptor extents of ``scale`` times a unit normal."""
    poses = jittered(n_copies)
    rng = np.random.default_rng(5)
    poses[:, 7:17] = rng.normal(0.0, scale, (len(poses), 10))
    return poses


def test_receptor_shift_tracks_exact_scores_of_the_deformed_receptor(prepared):
    model = prepared.model
    poses = flexed()
    still = poses.copy()
    still[:, 7:17] = 0.0  # no receptor motion
    exact = prepared.score(poses, threads=1)  # the receptor deformed by its extents
    exact_still = prepared.score(still, threads=1)
    field = grid.prepare_field(model)
    flex_field = dataclasses.replace(field, shift=grid.receptor_shift(model, poses))
    rigid = grid_numba.FastDFIRE(field).score(poses, threads=1)
    flex = grid_numba.FastDFIRE(flex_field).score(poses, threads=1)
    err_flex, err_rigid = np.abs(flex - exact).mean(), np.abs(rigid - exact).mean()
    assert err_flex < MAX_MEAN_ERROR
    assert err_flex < (1 - MIN_FLEX_GAIN) * err_rigid
    assert spearmanr(flex, exact)[0] > MIN_SPEARMAN
    assert np.corrcoef(flex - rigid, exact - exact_still)[0, 1] > MIN_FLEX_CORRELATION
    # without receptor motion the shift changes nothing
    assert np.array_equal(
        grid_numba.FastDFIRE(flex_field).score(still, threads=1),
        grid_numba.FastDFIRE(field).score(still, threads=1),
    )


def test_receptor_shift_is_exact_for_a_mode_that_translates(prepared):
    """A mode that moves every receptor atom alike is a translation: the shift is exactly
    its displacement, and the exact score of the moved receptor is the exact score of the
    ligand moved back."""
    model = prepared.model
    step = np.array([0.6, -0.8, 0.0])
    modes = np.zeros_like(model.rec_modes)
    modes[0] = step
    modes[1] = -0.5 * step
    uniform = dataclasses.replace(model, rec_modes=modes)
    poses = jittered(1)
    poses[:, 7:17] = np.random.default_rng(2).normal(0.0, 1.0, (len(poses), 10))
    shift = grid.receptor_shift(uniform, poses)
    moved = poses[:, 7] - 0.5 * poses[:, 8]
    expect = moved[:, None] * step
    got = shift.displacement(poses[:, :3], poses[:, 7:17])
    np.testing.assert_allclose(got, expect, rtol=0, atol=1e-12)
    back = poses.copy()
    back[:, :3] -= expect
    back[:, 7:17] = 0.0
    exact_moved = numba_kernel.score_poses(uniform, poses, threads=1)
    exact_back = numba_kernel.score_poses(uniform, back, threads=1)
    np.testing.assert_allclose(exact_moved.energy, exact_back.energy, rtol=0, atol=1e-9)
    field = grid.prepare_field(uniform)
    flex = grid_numba.score_poses(dataclasses.replace(field, shift=shift), poses, threads=1)
    rigid_back = grid_numba.score_poses(field, back, threads=1)
    np.testing.assert_allclose(flex.energy, rigid_back.energy, rtol=0, atol=1e-9)


def regrouped(model, n_groups: int, n_beads: int):
    """``model`` with its receptor restraints replaced by ``n_groups`` groups (atoms near the
    interface, round robin) and ``n_beads`` membrane beads (single atoms): more groups than a
    contact-grid mask holds takes the kernel's searching path."""
    rec = model.rec_xyz
    lig_centre = model.lig_xyz.mean(axis=0)
    near = np.argsort(np.linalg.norm(rec - lig_centre, axis=1))
    groups = np.full(len(rec), -1, dtype=model.rec_restraint_group.dtype)
    groups[near[: n_groups * 3]] = np.arange(n_groups * 3) % n_groups
    beads = np.full(len(rec), -1, dtype=model.membrane_group.dtype)
    beads[near[n_groups * 3 : n_groups * 3 + n_beads]] = np.arange(n_beads)
    return dataclasses.replace(
        model,
        rec_restraint_group=groups,
        n_rec_restraints=n_groups,
        membrane_group=beads,
        n_membrane=n_beads,
    )


@pytest.mark.parametrize("groups", [None, (20, 6), (70, 4)], ids=["bench", "membrane", "many"])
def test_restraint_terms_are_the_exact_kernels_for_the_undeformed_receptor(prepared, groups):
    model = prepared.model if groups is None else regrouped(prepared.model, *groups)
    field = grid.prepare_field(model)
    poses = jittered(8, 3.0)
    poses[:, model.layout.rec_extents] = 0.0
    exact = numba_kernel.score_poses(model, poses, threads=1)
    quick = grid_numba.score_poses(field, poses, threads=1)
    assert np.array_equal(quick.p_receptor, exact.p_receptor)
    assert np.array_equal(quick.p_ligand, exact.p_ligand)
    assert np.array_equal(quick.p_membrane, exact.p_membrane)
    # every term varies over the poses, so equality says something
    for term in (exact.p_receptor, exact.p_ligand) + ((exact.p_membrane,) if groups else ()):
        assert len(np.unique(term)) > 2


def test_fast_scores_do_not_depend_on_threads_or_batches(fast):
    scorer = grid_numba.FastDFIRE(fast)
    poses = jittered()
    one = scorer.score(poses, threads=1)
    assert np.array_equal(one, scorer.score(poses, threads=2))
    assert np.array_equal(one[:7], scorer.score(poses[:7], threads=2))


def test_a_fast_run_writes_exact_final_scores_and_ignores_threads(tmp_path, prepared):
    roots = []
    for threads in (1, 2):
        root = writable_setup(tmp_path / f"t{threads}")
        run_simulation(root, 3, swarms=[0], scoring_mode="fast", threads=threads, quiet=True)
        roots.append(root)
    files = [(r / "swarm_0" / "gso_3.out").read_text() for r in roots]
    assert files[0] == files[1]
    final = read_gso_output(roots[0] / "swarm_0" / "gso_3.out")
    setup_exact = prepare_scoring(roots[0])  # the setup docks without restraints
    rescored = setup_exact.score(final.poses, threads=1)
    np.testing.assert_allclose(final.scores, rescored, rtol=0, atol=1e-8)  # (8 decimals)
    # and the search was not the exact one
    exact_root = writable_setup(tmp_path / "exact")
    run_simulation(exact_root, 3, swarms=[0], quiet=True)
    assert (exact_root / "swarm_0" / "gso_3.out").read_text() != files[0]
    assert "fast" in (roots[0] / "swarm_0" / "sparkledock_done.json").read_text()


def test_a_fast_flex_run_is_its_own_run_with_exact_final_scores(tmp_path):
    roots = {}
    for mode in ("fast", "fast-flex"):
        roots[mode] = writable_setup(tmp_path / mode)
        run_simulation(roots[mode], 20, swarms=[0], scoring_mode=mode, threads=2, quiet=True)
    flex_root = roots["fast-flex"]
    final = read_gso_output(flex_root / "swarm_0" / "gso_20.out")
    rescored = prepare_scoring(flex_root).score(final.poses, threads=1)
    np.testing.assert_allclose(final.scores, rescored, rtol=0, atol=1e-8)
    # the receptor's extents steer the search: its glowworms are not the rigid field's
    last = [read_gso_output(roots[m] / "swarm_0" / "gso_20.out").poses for m in roots]
    assert not np.array_equal(last[0], last[1])
    assert "fast-flex" in (flex_root / "swarm_0" / "sparkledock_done.json").read_text()


def test_a_field_over_budget_falls_back_to_exact_with_a_warning(tmp_path):
    fast_root = writable_setup(tmp_path / "fast")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_simulation(fast_root, 2, swarms=[0], scoring_mode="fast", memory_limit=1000, quiet=True)
    assert any(
        issubclass(w.category, SparkledockWarning) and "scoring exactly instead" in str(w.message)
        for w in caught
    )
    exact_root = writable_setup(tmp_path / "exact")
    run_simulation(exact_root, 2, swarms=[0], quiet=True)
    name = "swarm_0/gso_2.out"  # the same trajectory as an exact run
    assert (fast_root / name).read_text() == (exact_root / name).read_text()


def test_fast_mode_is_refused_with_exact_trajectories(tmp_path):
    root = writable_setup(tmp_path / "s")
    with pytest.raises(EngineError, match="scores exactly"):
        run_simulation(root, 2, swarms=[0], exact=True, scoring_mode="fast", quiet=True)
    assert not list(root.glob("swarm_*/gso_*.out"))  # refused before any work


@pytest.mark.parametrize(
    "groups", [None, (20, 6), (70, 4), "flex"], ids=["bench", "membrane", "many", "flex"]
)
def test_the_torch_fast_path_agrees_with_numba(prepared, groups):
    torch = pytest.importorskip("torch")
    poses = jittered(8, 3.0)
    if groups == "flex":
        poses[:, 7:17] = np.random.default_rng(4).normal(0.0, 2.0, (len(poses), 10))
    model = prepared.model if groups in (None, "flex") else regrouped(prepared.model, *groups)
    field = grid.prepare_field(model)
    if groups == "flex":
        field = dataclasses.replace(field, shift=grid.receptor_shift(model, poses))
    scorer = grid_numba.FastDFIRE(field).device_scorer(
        resolve_engine("torch", "cpu", "fp64"), 2**26
    )
    on_torch = scorer.terms(torch.as_tensor(poses))
    on_numba = grid_numba.score_poses(field, poses, threads=1)
    for term in ("p_receptor", "p_ligand", "p_membrane"):  # counts: equal
        assert np.array_equal(getattr(on_torch, term).numpy(), getattr(on_numba, term))
    np.testing.assert_allclose(on_torch.energy.numpy(), on_numba.energy, rtol=2e-6, atol=1e-3)
    whole = scorer.score(torch.as_tensor(poses))
    scorer.chunk = 7  # chunking and batch change nothing
    assert torch.equal(whole, scorer.score(torch.as_tensor(poses)))
    assert torch.equal(whole[:5], scorer.score(torch.as_tensor(poses[:5])))


def test_a_fast_run_on_torch_writes_exact_final_scores(tmp_path, prepared):
    pytest.importorskip("torch")
    root = writable_setup(tmp_path / "t")
    torch_cpu = resolve_engine("torch", "cpu", "fp64")
    run_simulation(root, 3, swarms=[0], scoring_mode="fast", engine=torch_cpu, quiet=True)
    final = read_gso_output(root / "swarm_0" / "gso_3.out")
    rescored = prepare_scoring(root).score(final.poses, threads=1)
    np.testing.assert_allclose(final.scores, rescored, rtol=0, atol=1e-8)
    assert "fast" in (root / "swarm_0" / "sparkledock_done.json").read_text()
    shutil.rmtree(root)


def test_dock_and_screen_in_fast_mode_report_exact_scores(tmp_path, capsys):
    src = BENCH / "2X9A"
    out = tmp_path / "dock"
    args = ["dock", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"),
            "-r", str(src / "restraints.list"), "-o", str(out), "--steps", "3", "-g", "12",
            "-s", "3", "--top", "3", "--quiet", "--threads", "1",
            "--scoring-mode", "fast"]  # fmt: skip
    assert main(args) == 0
    record = json.loads((out / "sparkledock_dock.json").read_text())
    assert record["scoring_mode"] == "fast"
    setup = out / "setup"
    exact = prepare_scoring(setup, restraints=src / "restraints.list")
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    for row in rows[:3]:  # each ranked score is the exact score of its written pose
        final = read_gso_output(setup / f"swarm_{row['swarm']}" / "gso_3.out")
        pose = final.poses[int(row["glowworm"])]
        assert float(row["score"]) == pytest.approx(exact.score(pose[None])[0], abs=1e-3)
    pairs = tmp_path / "pairs.csv"
    pairs.write_text(f"name,receptor,ligand\nfree,{src / '2X9A_r_u.pdb'},{src / '2X9A_l_u.pdb'}\n")
    screen = tmp_path / "screen"
    args = ["screen", str(pairs), "-o", str(screen), "--steps", "2", "-g", "8", "-s", "2",
            "--top", "2", "--quiet", "--threads", "1", "--scoring-mode", "fast",
            "--redock-sites", "0"]  # fmt: skip
    assert main(args) == 0
    marker = screen / "free" / "setup" / "swarm_0" / "sparkledock_done.json"
    assert "fast" in marker.read_text()
