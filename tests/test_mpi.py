"""Scale-out: two MPI ranks write byte-identical outputs to one process and resume; the cost
model and longest-first scheduling on known answers. CI installs Open MPI and mpi4py and sets
SPARKLEDOCK_REQUIRE_MPI=1, so there the MPI test cannot be skipped."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import writable_setup
from sparkledock.engine.context import load_run_context
from sparkledock.engine.costs import imbalance, lpt_loads, predicted_costs, swarm_centres
from sparkledock.engine.driver import run_simulation
from sparkledock.io.lightdock import read_gso_output

SWARMS = ["0", "1", "2", "3", "4", "65"]


def mpi_ready() -> bool:
    ready = shutil.which("mpirun") is not None and importlib.util.find_spec("mpi4py") is not None
    if not ready and os.environ.get("SPARKLEDOCK_REQUIRE_MPI") == "1":
        pytest.fail("SPARKLEDOCK_REQUIRE_MPI=1 but mpirun or mpi4py is missing")
    return ready


@pytest.fixture
def setup_copy(tmp_path):
    """2X9A with six starting files (copies of the two shared ones)."""
    target = writable_setup(tmp_path / "setup")
    for s in SWARMS:
        dest = target / "init" / f"initial_positions_{s}.dat"
        if not dest.exists():
            shutil.copy(target / "init" / "initial_positions_0.dat", dest)
    return target


def on_two_ranks(*argv: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """``sparkledock argv`` under ``mpirun -np 2`` (allowed as root, as CI runs it)."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = ["mpirun", "--oversubscribe", "-np", "2", sys.executable, "-m", "sparkledock.cli"]
    return subprocess.run(
        [*command, *argv], env=env, capture_output=True, text=True, timeout=timeout
    )


def outputs(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for pattern in ("swarm_*/gso_*.out", "swarm_*/sparkledock_done.json")
        for p in sorted(root.glob(pattern))
    }


def test_two_ranks_equal_one_process_and_resume(setup_copy, tmp_path):
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    single = tmp_path / "single"
    shutil.copytree(setup_copy, single)
    run_simulation(single, 3, swarms=[int(s) for s in SWARMS], threads=1, quiet=True)
    argv = [
        "run", str(setup_copy), "3",
        "--swarms", *SWARMS, "--threads", "1", "--backend", "numba",
    ]  # fmt: skip
    done = on_two_ranks(*argv)
    assert done.returncode == 0, done.stderr
    assert "on 2 ranks" in done.stderr and "0 swarms already done" in done.stderr
    assert outputs(setup_copy) == outputs(single)
    assert len(outputs(single)) == 3 * len(SWARMS)
    assert (setup_copy / "sparkledock_costs.json").is_file()
    again = on_two_ranks(*argv)
    assert again.returncode == 0, again.stderr
    assert f"{len(SWARMS)} swarms already done" in again.stderr


def test_fast_mode_on_two_ranks_equals_one_process(setup_copy, tmp_path):
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    single = tmp_path / "single_fast"
    shutil.copytree(setup_copy, single)
    swarms = [int(s) for s in SWARMS]
    run_simulation(single, 2, swarms=swarms, threads=1, quiet=True, scoring_mode="fast")
    argv = [
        "run", str(setup_copy), "2",
        "--swarms", *SWARMS, "--threads", "1", "--backend", "numba", "--scoring-mode", "fast",
    ]  # fmt: skip
    done = on_two_ranks(*argv)
    assert done.returncode == 0, done.stderr
    assert outputs(setup_copy) == outputs(single)
    assert b"fast" in outputs(single)["swarm_0/sparkledock_done.json"]


def test_early_stopping_on_two_ranks_equals_one_process(setup_copy, tmp_path):
    """Each swarm's own scores decide when it stops, so ranks change nothing."""
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    single = tmp_path / "single_stop"
    shutil.copytree(setup_copy, single)
    swarms = [int(s) for s in SWARMS]
    run_simulation(
        single, 50, swarms=swarms, threads=1, quiet=True, scoring_mode="fast", stop_tolerance=0.1
    )
    poses = {
        (s, t): read_gso_output(single / f"swarm_{s}" / f"gso_{t}.out").poses
        for s in SWARMS
        for t in (40, 50)
    }
    stopped = [s for s in SWARMS if np.array_equal(poses[s, 40], poses[s, 50])]
    assert 0 < len(stopped) < len(SWARMS)  # some swarms stopped, others ran on
    argv = [
        "run", str(setup_copy), "50",
        "--swarms", *SWARMS, "--threads", "1", "--backend", "numba", "--scoring-mode", "fast",
        "--stop-tolerance", "0.1",
    ]  # fmt: skip
    done = on_two_ranks(*argv)
    assert done.returncode == 0, done.stderr
    assert outputs(setup_copy) == outputs(single)


def test_longest_first_balances_known_loads():
    loads = lpt_loads([7, 5, 4, 3, 3, 2], 2)
    assert sorted(loads.tolist()) == [12.0, 12.0]
    assert imbalance(loads) == 1.0
    assert imbalance(np.array([3.0, 1.0])) == 1.5


def test_cost_model_ranks_buried_centres_above_far_ones(setup_copy):
    context = load_run_context(setup_copy)
    centres = swarm_centres(setup_copy, context.setup.layout, [0, 65])
    rec = context.setup.receptor.atoms.coords
    far = rec.mean(axis=0) + 500.0
    costs = predicted_costs(context, np.vstack([centres, rec.mean(axis=0), far]), 10, 10)
    assert costs[2] > costs[0] > costs[3] and costs[2] > costs[1] > costs[3]
    assert costs[3] == 1.0  # nothing within reach: only the constant


def test_screen_on_two_ranks_equals_one_process(tmp_path):
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    from sparkledock.cli import example_dir, main

    ex = example_dir()
    pairs = tmp_path / "pairs.csv"
    rec, lig = ex / "2X9A_r_u.pdb", ex / "2X9A_l_u.pdb"
    pairs.write_text(
        f"name,receptor,ligand,restraints\na,{rec},{lig},{ex / 'restraints.list'}\nb,{rec},{lig},\n"
    )
    common = ["--steps", "2", "-g", "8", "-s", "3", "--top", "1", "--quiet", "--threads", "1"]
    common += ["--redock-sites", "0"]  # (the screen's search and ranking, without site dockings)
    assert main(["screen", str(pairs), "-o", str(tmp_path / "one"), *common]) == 0
    done = on_two_ranks("screen", str(pairs), "-o", str(tmp_path / "two"), *common)
    assert done.returncode == 0, done.stderr
    one, two = tmp_path / "one", tmp_path / "two"
    assert (two / "summary.csv").read_text() == (one / "summary.csv").read_text()
    assert outputs(two / "a" / "setup") == outputs(one / "a" / "setup")


def test_a_bad_run_under_mpi_fails_once_with_one_line(setup_copy):
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    done = on_two_ranks("run", str(setup_copy), "3", "--swarms", "999", timeout=300)
    assert done.returncode != 0
    lines = (done.stdout + done.stderr).splitlines()
    errors = [line for line in lines if line.startswith("sparkledock: error:")]
    assert errors == [
        f"sparkledock: error: {setup_copy / 'setup.json'}: swarm 999 is not in 0..129"
    ]


def test_dock_on_two_ranks_equals_one_process(tmp_path):
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    from sparkledock.cli import example_dir, main

    ex = example_dir()
    inputs = [str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb"), "-r", str(ex / "restraints.list")]
    small = ["-s", "4", "-g", "10", "--steps", "3", "--top", "2", "--threads", "1", "--quiet"]
    args = [*inputs, *small]
    assert main(["dock", *args, "-o", str(tmp_path / "one")]) == 0
    done = on_two_ranks("dock", *args, "-o", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr
    one, two = tmp_path / "one", tmp_path / "two"
    assert (two / "ranking.csv").read_text() == (one / "ranking.csv").read_text()
    assert (two / "top_1.pdb").read_bytes() == (one / "top_1.pdb").read_bytes()
    assert outputs(two / "setup") == outputs(one / "setup")


def test_blind_sites_are_shared_among_ranks_and_equal_one_process(tmp_path):
    """A blind docking's site dockings under MPI: each rank docks every other site, and the
    ranking, the models and each site docking equal one process's."""
    if not mpi_ready():
        pytest.skip("needs mpirun and mpi4py")
    from sparkledock.cli import example_dir, main

    ex = example_dir()
    inputs = [str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb")]
    small = ["-s", "6", "-g", "10", "--steps", "3", "--top", "3", "--threads", "1", "--quiet"]
    args = [*inputs, *small, "--redock-sites", "3"]
    assert main(["dock", *args, "-o", str(tmp_path / "one")]) == 0
    done = on_two_ranks("dock", *args, "-o", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr
    one, two = tmp_path / "one", tmp_path / "two"
    sites = sorted(p.name for p in (one / "sites").glob("site_*") if p.is_dir())
    assert len(sites) == 3 and sites == sorted(
        p.name for p in (two / "sites").glob("site_*") if p.is_dir()
    )
    for name in sites:
        site_one, site_two = one / "sites" / name, two / "sites" / name
        assert (site_two / "ranking.csv").read_text() == (site_one / "ranking.csv").read_text()
        assert outputs(site_two / "setup") == outputs(site_one / "setup")
    assert (two / "ranking.csv").read_text() == (one / "ranking.csv").read_text()
    assert (two / "top_1.pdb").read_bytes() == (one / "top_1.pdb").read_bytes()
