"""Docking accuracy: restrained `sparkledock dock` on the shared complexes, CAPRI successes.

Protocol (LightDock's default): true-interface restraints from each complex's
restraints.list, 200 glowworms, 100 steps, 10+10 normal modes; models evaluated with DockQ
against the bound reference. Prints, per complex, the best CAPRI class within the top 1, 5
and 10, and the wall time; then the success rates (acceptable or better).

Usage:
    python benchmarks/dock_accuracy.py [--complexes 2X9A ...] [--steps 100] [-g 200]
        [--swarms 0] [--out /tmp/dock_accuracy]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import time
from pathlib import Path

from sparkledock.docking import DockOptions, dock

HERE = Path(__file__).resolve().parent
COMPLEXES = ["2X9A", "1RKE", "2A1A", "2GTP", "2VXT", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]
ORDER = {"incorrect": 0, "acceptable": 1, "medium": 2, "high": 3}


def best_class(rows: list[dict], n: int) -> str:
    classes = [r["CAPRI"] for r in rows[:n] if r["CAPRI"]]
    return max(classes, key=ORDER.__getitem__) if classes else "incorrect"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--complexes", nargs="+", default=COMPLEXES)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("-g", "--glowworms", type=int, default=200)
    parser.add_argument("--swarms", type=int, default=0, help="0: LightDock's rule")
    parser.add_argument("--out", type=Path, default=Path("dock_accuracy"))
    args = parser.parse_args()
    print("| complex | swarms | top 1 | top 5 | top 10 | wall s |")
    print("|---|---|---|---|---|---|")
    hits = {1: 0, 5: 0, 10: 0}
    for name in args.complexes:
        src = args.bench / name
        out = args.out / name
        shutil.rmtree(out, ignore_errors=True)
        start = time.perf_counter()
        dock(
            src / f"{name}_r_u.pdb",
            src / f"{name}_l_u.pdb",
            out,
            restraints=src / "restraints.list",
            reference=src / f"{name}_target.pdb",
            options=DockOptions(
                steps=args.steps, glowworms=args.glowworms, swarms=args.swarms, top=10, quiet=True
            ),
        )
        wall = time.perf_counter() - start
        rows = list(csv.DictReader((out / "ranking.csv").open()))
        classes = {n: best_class(rows, n) for n in (1, 5, 10)}
        for n, c in classes.items():
            hits[n] += ORDER[c] >= 1
        swarms = json.loads((out / "setup" / "setup.json").read_text())["swarms"]
        print(
            f"| {name} | {swarms} | {classes[1]} | {classes[5]} | {classes[10]} | {wall:.0f} |",
            flush=True,
        )
    total = len(args.complexes)
    print(
        f"\nacceptable or better: top 1 {hits[1]}/{total}, top 5 {hits[5]}/{total}, "
        f"top 10 {hits[10]}/{total}"
    )


if __name__ == "__main__":
    main()
