"""DFIRE scoring throughput: sparkledock per thread and on all threads, LightDock side by side.

For each shared complex, poses are the 64 golden poses (swarm 0 and a middle swarm, LightDock's
own starting poses) jittered with a fixed seed into ``--poses`` distinct poses. sparkledock
scores them on one thread and on all threads; with ``--lightdock-python`` (the python of a
virtual environment holding LightDock 0.9.4) the first ``--lightdock-poses`` of them are scored
by LightDock in a subprocess, timed the way its GSO evaluates a glowworm, and the scores are
compared with sparkledock's.

With ``--fast``, DFIRE's fast path (the receptor's field on a grid) is timed on the same
poses next to the exact kernel: field size and build time, evaluations per second on one
thread, speed-up over exact, and its fidelity (Spearman correlation with the exact scores and
mean absolute error).

Usage:
    python benchmarks/score_throughput.py [--bench ../shared/bench] [--complexes 2X9A 4GAM]
        [--poses 1024] [--lightdock-python /path/to/venv/bin/python] [--restraints] [--fast]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from sparkledock.io.lightdock import load_setup
from sparkledock.io.restraints import read_restraints
from sparkledock.scoring import get_scoring

HERE = Path(__file__).resolve().parent
COMPLEXES = ["2X9A", "1RKE", "2A1A", "2GTP", "2VXT", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]


def jittered_poses(golden: np.ndarray, count: int, seed: int = 7) -> np.ndarray:
    """``count`` poses near the golden ones: ±1 Å, small rotations, ±0.3 extents."""
    rng = np.random.default_rng(seed)
    base = golden[np.arange(count) % len(golden)].copy()
    base[:, :3] += rng.uniform(-1.0, 1.0, (count, 3))
    base[:, 3:7] += rng.normal(0.0, 0.05, (count, 4))
    base[:, 3:7] /= np.linalg.norm(base[:, 3:7], axis=1, keepdims=True)
    base[:, 7:] += rng.uniform(-0.3, 0.3, (count, base.shape[1] - 7))
    keep = min(count, len(golden))
    base[:keep] = golden[:keep]  # the golden poses themselves come first
    return base


def best_rate(fn, poses: np.ndarray, repeats: int) -> float:
    """Best-of-``repeats`` evaluations per second."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn(poses)
        best = min(best, time.perf_counter() - start)
    return len(poses) / best


def lightdock_rate(
    python: str, setup_dir: Path, poses: np.ndarray, restraints: Path | None
) -> tuple[float, np.ndarray]:
    with tempfile.TemporaryDirectory() as tmp:
        pose_file = Path(tmp) / "poses.npy"
        np.save(pose_file, poses)
        cmd = [python, str(HERE / "lightdock_eval.py"), str(setup_dir), str(pose_file)]
        if restraints:
            cmd.append(str(restraints))
        out = subprocess.run(
            cmd,
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return 1.0 / result["seconds_per_eval"], np.array(result["scores"])


def fast_columns(dfire, model, poses: np.ndarray, exact_rate: float, repeats: int) -> list[str]:
    """Field size and build time, fast rate on one thread, speed-up, Spearman, MAE."""
    from scipy.stats import spearmanr

    start = time.perf_counter()
    scorer = dfire.fast_scorer(model, None, None)
    build = time.perf_counter() - start
    scorer.score(poses[:4], threads=1)  # compile / warm up
    rate = best_rate(lambda p: scorer.score(p, threads=1), poses, repeats)
    exact = dfire.score(model, poses, threads=1)
    quick = scorer.score(poses, threads=1)
    return [
        f"{scorer.nbytes / 2**20:,.0f}",
        f"{build:.1f}",
        f"{rate:,.0f}",
        f"{rate / exact_rate:.1f}x",
        f"{spearmanr(quick, exact)[0]:.4f}",
        f"{np.abs(quick - exact).mean():.2f}",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--complexes", nargs="+", default=COMPLEXES)
    parser.add_argument("--poses", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lightdock-python", help="python of a LightDock 0.9.4 venv")
    parser.add_argument("--lightdock-poses", type=int, default=32)
    parser.add_argument("--restraints", action="store_true", help="score with restraints.list")
    parser.add_argument("--fast", action="store_true", help="also time the fast scoring path")
    args = parser.parse_args()

    n_threads = numba.config.NUMBA_NUM_THREADS
    print(
        f"# machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, numba {numba.__version__}, "
        f"numba threads {n_threads}"
    )
    print(f"# poses per complex: {args.poses}; restraints: {args.restraints}")
    header = ["complex", "rec", "lig", "evals/s 1T", f"evals/s {n_threads}T"]
    if args.lightdock_python:
        header += ["LightDock evals/s", "x LightDock/thread", "max |rel diff|"]
    if args.fast:
        header += ["field MiB", "build s", "fast evals/s 1T", "x exact", "Spearman", "MAE"]
        if args.lightdock_python:
            header += ["fast x LightDock/thread"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    ratios: list[float] = []
    fast_ratios: list[float] = []
    fast_ld_ratios: list[float] = []
    dfire = get_scoring("dfire")
    for name in args.complexes:
        cdir = args.bench / name
        setup = load_setup(cdir / "lightdock_setup")
        golden = json.loads((cdir / "golden_dfire.json").read_text())
        gposes = np.array([p for case in golden["cases"] for p in case["poses"]])
        poses = setup.layout.validate(jittered_poses(gposes, args.poses))
        restraints_path = cdir / "restraints.list" if args.restraints else None
        restraints = read_restraints(restraints_path) if restraints_path else None
        model = dfire.prepare(setup.receptor, setup.ligand, restraints)
        dfire.score(model, poses[:4], threads=1)  # compile / warm up
        r1 = best_rate(lambda p, m=model: dfire.score(m, p, threads=1), poses, args.repeats)
        rn = best_rate(lambda p, m=model: dfire.score(m, p, threads=n_threads), poses, args.repeats)
        row = [
            name,
            str(len(setup.receptor.atoms)),
            str(len(setup.ligand.atoms)),
            f"{r1:,.0f}",
            f"{rn:,.0f}",
        ]
        if args.lightdock_python:
            sub = poses[: args.lightdock_poses]
            ld_rate, ld_scores = lightdock_rate(
                args.lightdock_python, cdir / "lightdock_setup", sub, restraints_path
            )
            ours = dfire.score(model, sub)
            diff = np.max(np.abs(ours - ld_scores) / np.maximum(np.abs(ld_scores), 1e-12))
            ratios.append(r1 / ld_rate)
            row += [f"{ld_rate:,.1f}", f"{r1 / ld_rate:,.1f}", f"{diff:.1e}"]
        if args.fast:
            row += fast_columns(dfire, model, poses, r1, args.repeats)
            fast_ratios.append(float(row[-3].rstrip("x")))
            if args.lightdock_python:
                fast_rate = float(row[-4].replace(",", ""))
                fast_ld_ratios.append(fast_rate / ld_rate)
                row.append(f"{fast_rate / ld_rate:,.0f}")
        print("| " + " | ".join(row) + " |", flush=True)
    if fast_ratios:
        gm = math.exp(sum(math.log(r) for r in fast_ratios) / len(fast_ratios))
        print(f"\ngeometric mean speed-up per thread of fast over exact scoring: {gm:.1f}x")
    if fast_ld_ratios:
        gm = math.exp(sum(math.log(r) for r in fast_ld_ratios) / len(fast_ld_ratios))
        print(f"geometric mean speed-up per thread of fast scoring over LightDock: {gm:.0f}x")
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"\ngeometric mean speed-up per thread over LightDock 0.9.4: {gm:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
