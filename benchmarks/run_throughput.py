"""GSO throughput: seconds per step for one swarm and for all swarms, LightDock side by side.

For each complex a temporary copy of the shared LightDock setup gets a starting file for every
swarm (the shared fixtures keep two; the others are copies of them, which changes nothing about
the cost). sparkledock runs `run_simulation` (fast mode) on swarm 0 and on all swarms, with one
thread and with all threads; the share of step time spent outside scoring (GSO bookkeeping:
selection, movement, output) is measured by timing the scoring calls. With
``--lightdock-python`` LightDock 0.9.4's ``lightdock3.py`` runs swarm 0 in the same setup, one
core, timed at two step counts so that start-up cancels out. With ``--lgd-check``, LightDock's
own post-processing (``lgd_generate_conformations.py``, ``lgd_cluster_bsas.py``,
``lgd_rank.py``) runs on sparkledock's output, and each must write its file.

Usage:
    python benchmarks/run_throughput.py [--complexes 2X9A 2VXT] [--steps 10]
        [--all-swarms-steps 2] [--lightdock-python /path/to/venv/bin/python] [--lgd-check]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numba

from sparkledock.engine.driver import run_simulation
from sparkledock.scoring import prepared as api

HERE = Path(__file__).resolve().parent


def prepare(bench: Path, name: str, dest: Path) -> tuple[Path, int]:
    """A writable setup copy with a starting file for every swarm; returns (dir, swarms)."""
    target = dest / name
    shutil.copytree(bench / name / "lightdock_setup", target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    swarms = json.loads((target / "setup.json").read_text())["swarms"]
    existing = sorted((target / "init").glob("initial_positions_*.dat"))
    for swarm in range(swarms):
        path = target / "init" / f"initial_positions_{swarm}.dat"
        if not path.exists():
            shutil.copy(existing[swarm % len(existing)], path)
    return target, swarms


def clear_outputs(setup: Path) -> None:
    """Remove swarm_<id>/ output folders of an earlier run."""
    for old in setup.glob("swarm_[0-9]*"):
        shutil.rmtree(old)


def timed_run(setup: Path, steps: int, swarms: list[int], threads: int) -> tuple[float, float]:
    """(seconds per step, fraction of step time outside scoring), from the difference of a run
    of ``steps`` and a run of ``steps // 5`` steps so that start-up (reading the setup,
    compiling, the step-0 files) cancels out."""
    scoring_time = [0.0]
    original = api.PreparedScoring.score

    def timed_score(self, poses, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, poses, **kwargs)
        finally:
            scoring_time[0] += time.perf_counter() - start

    api.PreparedScoring.score = timed_score
    results = []
    try:
        clear_outputs(setup)
        run_simulation(setup, 1, swarms=swarms[:1], threads=threads, quiet=True)  # compile
        for n in (max(1, steps // 5), steps):
            clear_outputs(setup)
            scoring_time[0] = 0.0
            start = time.perf_counter()
            run_simulation(setup, n, swarms=swarms, threads=threads, quiet=True)
            results.append((time.perf_counter() - start, scoring_time[0]))
    finally:
        api.PreparedScoring.score = original
    (t0, s0), (t1, s1) = results
    per_step = (t1 - t0) / (steps - max(1, steps // 5))
    return per_step, 1.0 - (s1 - s0) / (t1 - t0)


def lightdock_step(python: str, setup: Path, steps: int) -> float:
    """LightDock's seconds per step on swarm 0, one core (difference of two runs)."""
    script = Path(python).parent / "lightdock3.py"
    times = []
    for n in (max(1, steps // 5), steps):
        clear_outputs(setup)
        (setup / "swarm_0").mkdir()  # LightDock's setup creates the folders; its run needs them
        start = time.perf_counter()
        subprocess.run(
            [python, str(script), "setup.json", str(n), "-s", "fastdfire", "-l", "0", "-c", "1"],
            cwd=setup,
            check=True,
            capture_output=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
        times.append(time.perf_counter() - start)
        if not (setup / "swarm_0" / f"gso_{n}.out").exists():
            raise RuntimeError(f"LightDock wrote no swarm_0/gso_{n}.out in {setup}")
    return (times[1] - times[0]) / (steps - max(1, steps // 5))


def lgd_check(python: str, setup: Path, bench: Path, name: str) -> str:
    """LightDock's own post-processing on sparkledock's swarm 0 output: generate the models,
    cluster them (BSAS) and rank; each must write its file."""
    bin_dir = Path(python).parent
    for suffix in ("r_u.pdb", "l_u.pdb"):
        shutil.copy(bench / name / f"{name}_{suffix}", setup)
    clear_outputs(setup)
    run_simulation(setup, 10, swarms=[0], quiet=True)
    swarm = setup / "swarm_0"
    glowworms = json.loads((setup / "setup.json").read_text())["glowworms"]
    for cmd, cwd in (
        (
            [
                "lgd_generate_conformations.py",
                f"../{name}_r_u.pdb",
                f"../{name}_l_u.pdb",
                "gso_10.out",
                str(glowworms),
            ],
            swarm,
        ),
        (["lgd_cluster_bsas.py", "gso_10.out"], swarm),
        (["lgd_rank.py", "1", "10"], setup),
    ):
        subprocess.run(
            [python, str(bin_dir / cmd[0]), *cmd[1:]], cwd=cwd, check=True, capture_output=True
        )
    models = len(list(swarm.glob("lightdock_*.pdb")))
    clusters = len((swarm / "cluster.repr").read_text().splitlines())  # raises if missing
    ranked = len((setup / "rank_by_scoring.list").read_text().splitlines()) - 1
    return (
        f"LightDock generated {models} models, found {clusters} clusters and ranked "
        f"{ranked} representatives from sparkledock's gso_10.out"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--complexes", nargs="+", default=["2X9A", "2VXT"])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--all-swarms-steps", type=int, default=6)
    parser.add_argument("--lightdock-python")
    parser.add_argument("--lgd-check", action="store_true")
    args = parser.parse_args()
    n_threads = numba.config.NUMBA_NUM_THREADS
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores, numba {numba.__version__}")
    header = [
        "complex",
        "swarms",
        "1 swarm s/step 1T",
        f"1 swarm s/step {n_threads}T",
        "bookkeeping",
        f"all swarms s/step {n_threads}T",
    ]
    if args.lightdock_python:
        header += ["LightDock 1 swarm s/step", "x LightDock/thread"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.complexes:
            setup, swarms = prepare(args.bench, name, Path(tmp))
            one_1, keep = timed_run(setup, args.steps, [0], 1)
            one_n, _ = timed_run(setup, args.steps, [0], n_threads)
            all_n, _ = timed_run(setup, args.all_swarms_steps, list(range(swarms)), n_threads)
            row = [
                name,
                str(swarms),
                f"{one_1:.3f}",
                f"{one_n:.3f}",
                f"{100 * keep:.1f} %",
                f"{all_n:.1f}",
            ]
            if args.lightdock_python:
                ld = lightdock_step(args.lightdock_python, setup, args.steps)
                row += [f"{ld:.3f}", f"{ld / one_1:.1f}"]
            print("| " + " | ".join(row) + " |", flush=True)
            if args.lgd_check and args.lightdock_python:
                print(f"# {name}: {lgd_check(args.lightdock_python, setup, args.bench, name)}")


if __name__ == "__main__":
    main()
