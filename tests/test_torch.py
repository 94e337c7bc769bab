"""The torch backend (run here on the CPU): LightDock's scores to 1e-9 in fp64 and 1e-4 in
fp32, results independent of batching and memory budget, the GSO step on the device equal to
the NumPy/Numba one, swarm groups equal to one group, and the one place engines are chosen."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from conftest import BENCH, COMPLEXES, golden, writable_setup
from sparkledock.backend import Engine, resolve_engine
from sparkledock.engine.memory import plan_groups, swarm_bytes
from sparkledock.io.restraints import read_restraints
from sparkledock.scoring import get_scoring

torch = pytest.importorskip("torch")

from sparkledock.engine import gso  # noqa: E402
from sparkledock.scoring.dfire import torch_kernel as dfire_torch  # noqa: E402

DFIRE = get_scoring("dfire")
FP64 = Engine("torch", "cpu", "fp64")
FP32 = Engine("torch", "cpu", "fp32")


def relative(a: np.ndarray, b: np.ndarray) -> float:
    return float((np.abs(a - b) / np.abs(b)).max())


@pytest.mark.parametrize("with_restraints", [False, True], ids=["plain", "restraints"])
@pytest.mark.parametrize("name", COMPLEXES)
def test_golden_scores_fp64_and_fp32(setups, name, with_restraints):
    setup = setups(name)
    poses, expected = golden(name, with_restraints)
    restraints = read_restraints(BENCH / name / "restraints.list") if with_restraints else None
    model = DFIRE.prepare(setup.receptor, setup.ligand, restraints)
    fp64 = DFIRE.score(model, poses, engine=FP64)
    assert relative(fp64, expected) < 1e-9
    fp32 = DFIRE.score(model, poses, engine=FP32)
    assert relative(fp32, fp64) < 1e-4


def test_stressed_poses_match_the_oracle(setups):
    """Clashes below 2.5 Å and pairs at the 15 Å edge, with restraints (interface counts)."""
    from test_kernels import stressed_poses

    setup = setups("2X9A")
    poses = stressed_poses(setup, golden("2X9A")[0], 24, seed=7)
    restraints = read_restraints(BENCH / "2X9A" / "restraints.list")
    model = DFIRE.prepare(setup.receptor, setup.ligand, restraints)
    oracle = DFIRE.score(model, poses, backend="numpy")
    assert relative(DFIRE.score(model, poses, engine=FP64), oracle) < 1e-9
    assert relative(DFIRE.score(model, poses, engine=FP32), oracle) < 1e-4


@pytest.mark.parametrize("engine", [FP64, FP32], ids=["fp64", "fp32"])
def test_scores_do_not_depend_on_batch_or_workspace(setups, engine):
    setup = setups("2VXT")
    poses = torch.as_tensor(golden("2VXT")[0][:10])
    model = DFIRE.prepare(setup.receptor, setup.ligand)
    whole = dfire_torch.DeviceDFIRE.from_model(model, engine, 64 * 2**20).score(poses)
    tiny = dfire_torch.DeviceDFIRE.from_model(model, engine, 2**18)  # many small chunks
    assert torch.equal(tiny.score(poses), whole)
    halves = torch.cat([tiny.score(poses[:4]), tiny.score(poses[4:])])
    assert torch.equal(halves, whole)


@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_compiled_blocks_equal_eager_bit_for_bit(setups, precision):
    """torch.compile (the GPU default) fuses the block functions without reordering them."""
    setup = setups("2X9A")
    poses = torch.as_tensor(golden("2X9A", True)[0][:16])
    restraints = read_restraints(BENCH / "2X9A" / "restraints.list")
    model = DFIRE.prepare(setup.receptor, setup.ligand, restraints)
    engine = Engine("torch", "cpu", precision)
    eager = dfire_torch.DeviceDFIRE.from_model(model, engine, 2**22, compiled=False)
    fused = dfire_torch.DeviceDFIRE.from_model(model, engine, 2**26, compiled=True)
    assert fused.compiled and not eager.compiled
    assert fused.chunk_pairs > eager.chunk_pairs  # other chunks and padded shapes, same sums
    assert torch.equal(fused.score(poses), eager.score(poses))
    assert torch.equal(fused.score(poses[:3]), eager.score(poses[:3]))  # a smaller bucket


def test_tree_sum_is_a_fixed_pairwise_order():
    x = torch.tensor([[1e16, 1.0, -1e16, 1.0, 3.0]], dtype=torch.float64)
    # padded to 8 and halved: [1e16 + 3, 1, -1e16, 1] (1e16 + 3 rounds to 1e16 + 4),
    # then [4, 2], then 6; a sequential sum would give 5
    assert dfire_torch.tree_sum(x).item() == 6.0
    assert dfire_torch.tree_sum(torch.zeros((2, 0))).tolist() == [0.0, 0.0]


def test_selection_equals_the_cpu_loop():
    rng = np.random.default_rng(3)
    s, g = 6, 40
    lum = rng.normal(5, 1, (s, g))
    lum[0, :5] = 5.0  # ties: not neighbours of each other
    vision = rng.uniform(0, 5, (s, g))
    refs = rng.normal(0, 2, (s, g, 3))
    draws = rng.uniform(0, 1, (s, g))
    draws[1, :4] = 0.0  # r = 0 picks the last neighbour
    chosen, count = gso.select_loops(lum, vision, refs, draws)
    t = [torch.as_tensor(a) for a in (lum, vision, refs, draws)]
    chosen_t, count_t = gso.select(*t)
    assert np.array_equal(chosen_t.numpy(), chosen)
    assert np.array_equal(count_t.numpy(), count)


@pytest.fixture
def setup_copy(tmp_path):
    return writable_setup(tmp_path / "setup")


def final_poses(root, steps):
    from sparkledock.io.lightdock import read_gso_output

    return {s: read_gso_output(root / f"swarm_{s}" / f"gso_{steps}.out") for s in (0, 65)}


def test_gso_on_the_device_follows_the_cpu_run(setup_copy, tmp_path):
    from sparkledock.engine.driver import run_simulation

    other = tmp_path / "torch"
    shutil.copytree(setup_copy, other)
    grouped = tmp_path / "grouped"
    shutil.copytree(setup_copy, grouped)
    steps = 3
    cpu_hist = run_simulation(setup_copy, steps, swarms=[0, 65], quiet=True).history
    on_device = run_simulation(
        other, steps, swarms=[0, 65], quiet=True, engine=FP64, keep_final=True
    )
    dev_hist = on_device.history
    # a budget that fits one swarm at a time: two groups, the same numbers
    budget = 8 * 2**20 + swarm_bytes(200, 27) + 2**20
    result = run_simulation(
        grouped, steps, swarms=[0, 65], quiet=True, engine=FP64, memory_limit=budget
    )
    assert result.plan.n_groups == 2
    cpu, dev, grp = (final_poses(r, steps) for r in (setup_copy, other, grouped))
    for s in (0, 65):
        np.testing.assert_allclose(dev[s].poses, cpu[s].poses, rtol=0, atol=2e-7)
        np.testing.assert_allclose(dev[s].scores, cpu[s].scores, rtol=1e-9, atol=1e-7)
        assert np.array_equal(dev[s].neighbors, cpu[s].neighbors)
        for field in ("poses", "scores", "luciferin", "vision_range"):
            assert np.array_equal(getattr(grp[s], field), getattr(dev[s], field))
    np.testing.assert_allclose(np.array(dev_hist), np.array(cpu_hist), rtol=1e-9)
    assert len(dev_hist) == steps
    assert not (other / "sparkledock_run.npz").exists()
    # the final glowworms come back as values, equal to what the gso files hold
    for s in (0, 65):
        for field in ("poses", "scores", "luciferin", "vision_range", "neighbors"):
            assert np.array_equal(getattr(on_device.final[s], field), getattr(dev[s], field))


def test_memory_plan_groups_swarms():
    per = swarm_bytes(256, 27)
    plan = plan_groups(
        1000, 256, 27, model_bytes=10, workspace_bytes=90, budget_bytes=100 + 250 * per
    )
    assert (plan.swarms_per_group, plan.n_groups) == (250, 4)
    assert plan.predicted_peak <= plan.budget_bytes
    with pytest.raises(MemoryError, match="one swarm of 256 glowworms needs"):
        plan_groups(10, 256, 27, model_bytes=10, workspace_bytes=90, budget_bytes=per)


def test_engine_resolution():
    assert resolve_engine("numba") == Engine("numba", "cpu", "fp64")
    assert resolve_engine("auto", exact=True).backend == "numba"
    assert resolve_engine("auto", "cpu", "fp32") == FP32
    assert resolve_engine("torch", "cpu") == FP64
    expected_auto = "torch" if torch.cuda.is_available() else "numba"
    assert resolve_engine("auto").backend == expected_auto
    for args, message in [
        (("numba", "cuda"), "runs on the CPU only"),
        (("numba", None, "fp32"), "fp64 only"),
        (("gpu",), "unknown backend"),
        (("torch", "tpu"), "unknown device"),
        (("torch", "cpu", "fp16"), "unknown precision"),
    ]:
        with pytest.raises(ValueError, match=message):
            resolve_engine(*args)
    with pytest.raises(ValueError, match="exact mode"):
        resolve_engine("torch", "cpu", exact=True)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="not available"):
            resolve_engine("torch", "cuda:0")


def test_cli_score_and_run_on_torch(setup_copy, capsys):
    from sparkledock.cli import main

    poses_file = setup_copy / "init" / "initial_positions_0.dat"
    assert main(["score", str(setup_copy), str(poses_file)]) == 0
    numba = np.array(capsys.readouterr().out.split(), float)
    args = ["score", str(setup_copy), str(poses_file), "--backend", "torch", "--precision", "fp32"]
    assert main(args) == 0
    fp32 = np.array(capsys.readouterr().out.split(), float)
    assert relative(fp32, numba) < 1e-4
    assert (
        main(["score", str(setup_copy), str(poses_file), "--backend", "numba", "--device", "cuda"])
        == 1
    )
    assert "runs on the CPU only" in capsys.readouterr().err
    run = ["run", str(setup_copy), "2", "--swarms", "0", "--backend", "torch", "--quiet"]
    assert main(run) == 0
    assert (setup_copy / "swarm_0" / "gso_2.out").is_file()


def test_early_stopping_on_the_device_stops_the_swarms_numba_stops(setup_copy, tmp_path):
    """The same protocol on torch (fast mode, fp64): the same swarms stop at the same
    snapshots as on numba, and a stopped swarm's glowworms stay put."""
    from sparkledock.engine.driver import run_simulation
    from sparkledock.io.lightdock import read_gso_output

    other = tmp_path / "torch_stop"
    shutil.copytree(setup_copy, other)
    swarms = [0, 65]
    common = {"swarms": swarms, "quiet": True, "scoring_mode": "fast", "stop_tolerance": 0.2}
    run_simulation(setup_copy, 50, threads=1, **common)
    run_simulation(other, 50, engine=FP64, **common)

    def stopped_at(root):
        out = {}
        for s in swarms:
            poses = [
                read_gso_output(root / f"swarm_{s}" / f"gso_{t}.out").poses for t in (30, 40, 50)
            ]
            same = [np.array_equal(poses[k], poses[2]) for k in (0, 1)]
            out[s] = 30 if same[0] else 40 if same[1] else 50
        return out

    cpu, dev = stopped_at(setup_copy), stopped_at(other)
    assert cpu == dev
    assert min(cpu.values()) < 50  # (the tolerance stops at least one swarm)
    for s in swarms:
        a = read_gso_output(setup_copy / f"swarm_{s}" / "gso_50.out")
        b = read_gso_output(other / f"swarm_{s}" / "gso_50.out")
        np.testing.assert_allclose(b.poses, a.poses, rtol=0, atol=1e-6)


@pytest.mark.parametrize("driver", [False, True], ids=["no-driver", "driver"])
def test_auto_imports_torch_only_where_a_cuda_driver_is(driver):
    """``auto`` asks PyTorch for GPUs only where an NVIDIA driver's files are (importing it
    costs seconds of every command)."""
    import subprocess
    import sys

    paths = ("/",) if driver else ("/nonexistent/nvidia",)
    code = (
        "import sys, sparkledock.backend as b\n"
        f"b.NVIDIA_DRIVER_PATHS = {paths!r}\n"
        "engine = b.resolve_engine('auto')\n"
        "print(engine.backend, 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    backend, imported = out.stdout.split()
    if not driver and sys.platform.startswith("linux"):
        assert (backend, imported) == ("numba", "False")
    if driver:
        assert imported == "True"
        assert backend == ("torch" if torch.cuda.is_available() else "numba")


def test_a_setup_without_normal_modes_scores_as_numba(tmp_path):
    """Rigid partners (no receptor modes): every pose of a batch finds its receptor tiles
    (the tile boxes were one row for all poses, an IndexError past the first pose)."""
    from sparkledock.io.lightdock import load_setup
    from sparkledock.preparation.prepare import SetupOptions, prepare_setup

    src = BENCH / "2X9A"
    options = SetupOptions(glowworms=6, swarms=2, anm=False)
    setup = load_setup(
        prepare_setup(src / "2X9A_r_u.pdb", src / "2X9A_l_u.pdb", tmp_path / "s", options=options)
    )
    assert setup.layout.size == 7
    poses = np.concatenate(
        [
            np.loadtxt(f).reshape(-1, 7)
            for f in sorted((tmp_path / "s" / "init").glob("initial_positions_*.dat"))
        ]
    )
    model = DFIRE.prepare(setup.receptor, setup.ligand)
    numba = DFIRE.score(model, poses)
    assert relative(DFIRE.score(model, poses, engine=FP64), numba) < 1e-9
