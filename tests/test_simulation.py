"""`sparkledock run`: LightDock-exact outputs, fast-mode determinism, resume after a kill."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import BENCH, writable_setup
from sparkledock.cli import main
from sparkledock.engine.driver import run_simulation
from sparkledock.engine.spec import CHECKPOINT
from sparkledock.errors import InputFileError

REFERENCE = BENCH / "2X9A" / "lightdock_run" / "swarm_0"


@pytest.fixture
def setup_dir(tmp_path):
    """A writable copy of the 2X9A setup (starting files for swarms 0 and 65)."""
    target = writable_setup(tmp_path / "setup")
    return target


def outputs(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.glob("swarm_*/*.out"))}


def test_exact_run_writes_lightdock_files(setup_dir, capsys):
    assert (
        main(["run", str(setup_dir / "setup.json"), "10", "--swarms", "0", "--exact", "--quiet"])
        == 0
    )
    for name in ("gso_0.out", "gso_10.out"):
        assert (setup_dir / "swarm_0" / name).read_text() == (REFERENCE / name).read_text()
    assert not (setup_dir / CHECKPOINT).exists()


def test_fast_mode_is_independent_of_swarm_subsets_and_threads(setup_dir, tmp_path):
    together = outputs(run_simulation(setup_dir, 12, swarms=[0, 65], threads=2, quiet=True).root)
    for swarm in (0, 65):
        alone_dir = tmp_path / f"alone{swarm}"
        shutil.copytree(setup_dir, alone_dir, ignore=shutil.ignore_patterns("swarm_*"))
        alone = outputs(run_simulation(alone_dir, 12, swarms=[swarm], threads=1, quiet=True).root)
        assert alone and all(together[k] == v for k, v in alone.items())
    assert set(together) == {f"swarm_{s}/gso_{t}.out" for s in (0, 65) for t in (0, 10, 12)}
    # and it is not the exact stream
    exact_dir = tmp_path / "exact"
    shutil.copytree(setup_dir, exact_dir, ignore=shutil.ignore_patterns("swarm_*"))
    # (in exact mode swarm 92 of 130 starts from initial_positions_65.dat, as in LightDock)
    exact = outputs(run_simulation(exact_dir, 12, swarms=[0, 92], exact=True, quiet=True).root)
    assert exact["swarm_0/gso_10.out"] != together["swarm_0/gso_10.out"]


@pytest.mark.parametrize("exact", [False, True], ids=["fast", "exact"])
def test_resume_after_kill_is_byte_identical(setup_dir, tmp_path, exact):
    steps = "20"
    reference_dir = tmp_path / "uninterrupted"
    shutil.copytree(setup_dir, reference_dir)
    # exact mode pairs swarms with files as LightDock: swarm 92 starts from file 65
    swarms = [0, 92] if exact else [0, 65]
    flags = ["--swarms", *map(str, swarms), "--quiet", "--threads", "1"]
    flags += ["--exact"] if exact else []
    reference = outputs(
        run_simulation(
            reference_dir, int(steps), swarms=swarms, exact=exact, threads=1, quiet=True
        ).root
    )
    cmd = [
        sys.executable,
        "-m",
        "sparkledock.cli",
        "run",
        str(setup_dir / "setup.json"),
        steps,
        *flags,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while not (setup_dir / CHECKPOINT).exists() and proc.poll() is None:
        assert time.time() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)  # killed right after a checkpoint, mid-run
    proc.wait()
    assert (setup_dir / CHECKPOINT).exists()
    assert subprocess.run(cmd, check=False).returncode == 0
    assert outputs(setup_dir) == reference
    assert not (setup_dir / CHECKPOINT).exists()


def test_run_errors_are_one_line(setup_dir, capsys):
    assert main(["run", str(setup_dir / "setup.json"), "5", "--swarms", "3", "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "initial_positions_3.dat: no such poses file" in err
    assert main(["run", str(setup_dir), "5", "--swarms", "999"]) == 1
    assert "swarm 999 is not in 0..129" in capsys.readouterr().err
    with pytest.raises(InputFileError, match="steps must be at least 1"):
        run_simulation(setup_dir, 0, swarms=[0])


def test_checkpoint_of_another_run_is_refused(setup_dir):
    from sparkledock.engine import gso
    from sparkledock.engine.checkpoint import save_checkpoint
    from sparkledock.engine.spec import RunSpec

    other = RunSpec(50, (0,), "dfire", 1, False)
    state = gso.initial_state(np.zeros((1, 2, 27)))
    rng = gso.CounterRandom(1, [0]).state()
    save_checkpoint(setup_dir / CHECKPOINT, other, [], (0,), state, rng)
    with pytest.raises(InputFileError, match="checkpoint of a different run"):
        run_simulation(setup_dir, 10, swarms=[0], quiet=True)
