"""Scale-out: predicted makespan, efficiency and imbalance from 1 to 512 ranks, from measured
per-swarm costs; and a measured 1-rank against 2-rank run.

1. Per complex, every swarm's cost is measured: the numba kernel (one thread) scores a sample
   of the swarm's starting glowworms (``--sample``, scaled to all 256) and the time is
   multiplied by the steps (scoring is ~97 % of a step: benchmarks/notebook/performance.md). The
   cost model
   (:func:`sparkledock.engine.costs.predicted_costs`) orders the swarms; ranks take them longest
   first as they free up (what ``run_parallel`` does), with the measured costs as the truth.
   Printed per complex and for all ten docked together (a screen): makespan, efficiency
   (total work / (ranks × makespan)) and imbalance (largest rank load / mean) at each count,
   and the rank correlation between predicted and measured costs.
2. Measured: ``mpirun -np 1`` and ``-np 2`` of ``sparkledock run`` on one complex (every swarm,
   ``--measure-steps`` steps, one thread per rank): wall time and speed-up.

Usage:
    python benchmarks/scaling.py [--complexes ...] [--sample 64] [--steps 100]
        [--measure-complex 2X9A] [--measure-steps 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np
from scipy.stats import spearmanr

from sparkledock.engine.context import load_run_context
from sparkledock.engine.costs import imbalance, lpt_loads, predicted_costs, swarm_centres
from sparkledock.io.lightdock import read_poses

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, COMPLEXES, full_setup

RANKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def measure_costs(
    root: Path, swarms: int, sample: int, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """(predicted, measured seconds) per swarm for a full run of ``steps`` steps."""
    context = load_run_context(root)
    layout = context.setup.layout
    poses = [
        read_poses(root / "init" / f"initial_positions_{s}.dat", layout) for s in range(swarms)
    ]
    n_glow = len(poses[0])
    centres = swarm_centres(root, layout, range(swarms))
    predicted = predicted_costs(context, centres, n_glow, steps)
    context.prepared.score(poses[0][:4], threads=1)  # compile
    measured = np.empty(swarms)
    for s, p in enumerate(poses):
        t0 = time.perf_counter()
        context.prepared.score(p[:sample], threads=1)
        measured[s] = (time.perf_counter() - t0) * n_glow / min(sample, n_glow) * steps
    return predicted, measured


def makespan(order_costs: np.ndarray, true_costs: np.ndarray, ranks: int) -> tuple[float, float]:
    """Makespan and imbalance when ranks take tasks in ``order_costs`` order (longest first)
    as they free up, each task taking its true cost."""
    loads = lpt_loads(true_costs, ranks, order_by=order_costs)
    return float(loads.max()), imbalance(loads)


def table(pred: np.ndarray, meas: np.ndarray) -> dict[int, dict[str, float]]:
    """Makespan, efficiency and imbalance at every rank count."""
    rows = {}
    for n in RANKS:
        span, imb = makespan(pred, meas, n)
        rows[n] = {"makespan_s": span, "efficiency": meas.sum() / (n * span), "imbalance": imb}
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bench", type=Path, default=BENCH)
    ap.add_argument("--complexes", nargs="+", default=COMPLEXES)
    ap.add_argument("--sample", type=int, default=64)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--measure-complex", default="2X9A")
    ap.add_argument("--measure-steps", type=int, default=3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--skip-model", action="store_true", help="only the measured 1 vs 2 ranks")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sparkledock_scaling_"))
    result: dict = {"cpu_threads": numba.config.NUMBA_NUM_THREADS, "complexes": {}}
    try:
        everything_pred, everything_meas = [], []
        if args.skip_model:
            args.complexes = []
        print("| complex | swarms | Spearman(pred, measured) | serial s |", end="")
        print("".join(f" eff/imb @{n} |" for n in (8, 64, 512)), "imb @64, costs known |")
        print("|---|---|---|---|---|---|---|---|")
        for cx in args.complexes:
            root, swarms, _ = full_setup(args.bench, cx, tmp)
            pred, meas = measure_costs(root, swarms, args.sample, args.steps)
            everything_pred.append(pred / pred.sum() * meas.sum())  # per-complex units
            everything_meas.append(meas)
            rho = float(spearmanr(pred, meas).statistic)
            rows = table(pred, meas)
            known = makespan(meas, meas, 64)[1]  # the refined model: measured costs as order
            result["complexes"][cx] = {
                "swarms": swarms,
                "spearman": rho,
                "ranks": rows,
                "imbalance_64_known_costs": known,
            }
            cells = "".join(
                f" {rows[n]['efficiency']:.2f}/{rows[n]['imbalance']:.3f} |" for n in (8, 64, 512)
            )
            print(
                f"| {cx} | {swarms} | {rho:.2f} | {meas.sum():.0f} |{cells} {known:.3f} |",
                flush=True,
            )
            shutil.rmtree(root)
        pred = np.concatenate(everything_pred) if everything_pred else np.zeros(0)
        meas = np.concatenate(everything_meas) if everything_meas else np.zeros(0)
        if len(meas):
            print("\nAll the complexes as one screen (every pair's swarms scheduled together):")
            print("| ranks | makespan s | efficiency | imbalance |")
            print("|---|---|---|---|")
            screen = table(pred, meas)
            for n, row in screen.items():
                print(
                    f"| {n} | {row['makespan_s']:.1f} | {row['efficiency']:.3f} "
                    f"| {row['imbalance']:.3f} |"
                )
            result["screen"] = screen

        root, swarms, _ = full_setup(args.bench, args.measure_complex, tmp / "measured")
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        walls = {}
        for n in (1, 2):
            for old in root.glob("swarm_[0-9]*"):
                shutil.rmtree(old)
            (root / "sparkledock_costs.json").unlink(missing_ok=True)
            command = ["mpirun", "--oversubscribe", "-np", str(n), sys.executable, "-m",
                       "sparkledock.cli", "run", str(root), str(args.measure_steps),
                       "--threads", "1", "--backend", "numba", "--quiet"]  # fmt: skip
            if n == 1:  # one rank: the plain single-process path
                command = command[4:]
            t0 = time.perf_counter()
            subprocess.run(command, env=env, check=True)
            walls[n] = time.perf_counter() - t0
        print(
            f"\nMeasured, {args.measure_complex} ({swarms} swarms × {args.measure_steps} steps, "
            f"one thread per rank): 1 rank {walls[1]:.1f} s, 2 ranks {walls[2]:.1f} s, "
            f"speed-up {walls[1] / walls[2]:.2f}"
        )
        result["measured"] = {"complex": args.measure_complex, "walls": walls}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
