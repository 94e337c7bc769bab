"""Early stopping of converged swarms, judged from kept restrained dockings.

A swarm whose best and mean scores rose by no more than ``tolerance`` x max(1, |best|) over the
last :data:`~sparkledock.engine.spec.SAVE_EVERY` steps (checked at each snapshot from
``--min-steps`` on) is stopped: its glowworms stay as they were. Swarms are independent (own
random stream), so a run with the rule equals, swarm by swarm, the same run without it cut at
each swarm's stopping snapshot. This script cuts the kept dockings of ``restrained_pools.py
--keep`` so (re-scoring the cut snapshots exactly), writes each rule's pool as
``pool_stop_<tolerance>.npz`` beside the others, and prints the share of swarm-steps saved;
``restrained_choice.py --step stop_<tolerance>`` then scores the pools. With ``--best-only``
the rule looks at the best score alone (``pool_stopbest_<tolerance>.npz``): it stops a swarm
no later than the rule on both scores at the same tolerance, so it too is cut exactly from
dockings that ran with the two-score rule at that tolerance or a smaller one.

Usage:
    python benchmarks/early_stop_choice.py pools/train_s6 [--tolerances 0.002 0.005 0.01]
        [--fixed 50 70]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from restrained_pools import SHARED, complex_inputs, pool_arrays
from sparkledock.engine.spec import SAVE_EVERY, stop_steps
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.setupdir import SetupDir


def trajectories(setup, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Per swarm and snapshot (10, 20, ..., steps): the best and mean score, (S, T) each."""
    folder = SetupDir(setup.path)
    n = int(setup.config["swarms"])
    snaps = range(SAVE_EVERY, steps + 1, SAVE_EVERY)
    best, mean = np.empty((n, len(snaps))), np.empty((n, len(snaps)))
    for swarm in range(n):
        for k, step in enumerate(snaps):
            scores = read_gso_output(folder.gso(swarm, step)).scores
            best[swarm, k], mean[swarm, k] = scores.max(), scores.mean()
    return best, mean


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path)
    p.add_argument("--tolerances", type=float, nargs="*", default=[0.002, 0.005, 0.01, 0.02])
    p.add_argument("--min-steps", type=int, default=30)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument(
        "--fixed",
        type=int,
        nargs="*",
        default=[],
        help="also every swarm cut at these steps (pool_at_<step>.npz): a shorter run",
    )
    p.add_argument("--best-only", action="store_true", help="stop on the best score alone")
    args = p.parse_args(argv)
    kind = "stopbest" if args.best_only else "stop"
    print("| complex | swarms | " + " | ".join(f"saved at {t:g}" for t in args.tolerances) + " |")
    print("|---|---|" + "---|" * len(args.tolerances))
    for folder in sorted(f for f in args.pools.iterdir() if (f / "dock" / "setup").is_dir()):
        setup = load_setup(folder / "dock" / "setup")
        sets = ("train", "bench", "bench5")
        source = next(SHARED / s / folder.name for s in sets if (SHARED / s / folder.name).is_dir())
        files = complex_inputs(source)
        best, mean = trajectories(setup, args.steps)
        if args.best_only:  # (a mean that never rises: only the best decides)
            mean = np.zeros_like(mean)
        cells = []
        for step in args.fixed:
            out = folder / f"pool_at_{step}.npz"
            if not out.is_file():
                stops = np.full(len(best), step)
                arrays, _ = pool_arrays(setup, files, stops, rescore_exactly=True, final=args.steps)
                np.savez_compressed(out, **arrays)
        for tol in args.tolerances:
            stops = stop_steps(best, mean, tol, args.min_steps, args.steps)
            cells.append(f"{1 - stops.mean() / args.steps:.0%}")
            out = folder / f"pool_{kind}_{tol:g}.npz"
            if not out.is_file():
                arrays, _ = pool_arrays(setup, files, stops, rescore_exactly=True, final=args.steps)
                np.savez_compressed(out, **arrays)
        print(f"| {folder.name} | {len(best)} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
