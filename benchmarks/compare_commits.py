"""Speed of two commits side by side: DFIRE scoring and GSO steps, old and new alternating.

Refactors must not cost speed (issue 14: within 3 %). On a shared host one process can be
5 % slower than the next, so each measurement runs in alternating processes, old, new, old,
new, ..., and the table gives every process's figure and the ratio of the best ones.

For each complex: scoring, the 64 golden poses ×16 (±1 Å jitter), one thread, best of 7; GSO,
two swarms of the shared setup (swarm 0 twice) for 10 steps, one thread, best of 3.

Usage:
    python benchmarks/compare_commits.py OLD_REV [--new NEW_REV] [--complexes 2X9A 2VXT]
        [--processes 4]

``NEW_REV`` defaults to the working tree. Each revision is checked out in a temporary git
worktree; both run with this Python and its installed dependencies.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

SNIPPET = r"""
import json, shutil, sys, tempfile, time
from pathlib import Path
import numpy as np
sys.path.insert(0, sys.argv[1])
from sparkledock.io.lightdock import load_setup
from sparkledock.scoring import get_scoring
try:  # (the run driver: in engine/ since issue 33, its own module since issue 14)
    from sparkledock.engine.driver import run_simulation
except ImportError:
    try:
        from sparkledock.driver import run_simulation
    except ImportError:
        from sparkledock.simulation import run_simulation
bench, name, what = Path(sys.argv[2]), sys.argv[3], sys.argv[4]
source = bench / name / "lightdock_setup"
if what == "score":
    setup = load_setup(source)
    data = json.loads((bench / name / "golden_dfire.json").read_text())
    poses = np.repeat(np.array([p for c in data["cases"] for p in c["poses"]]), 16, axis=0)
    poses[:, :3] += np.random.default_rng(7).uniform(-1, 1, (len(poses), 3))
    dfire = get_scoring("dfire")
    model = dfire.prepare(setup.receptor, setup.ligand)
    dfire.score(model, poses[:4], threads=1)
    best = min(
        (lambda t: (dfire.score(model, poses, threads=1), time.perf_counter() - t)[1])(
            time.perf_counter()
        )
        for _ in range(7)
    )
    print(f"{len(poses) / best:.0f}")
else:
    best = float("inf")
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "setup"
            shutil.copytree(source, target)
            for path in [target, *target.rglob("*")]:
                path.chmod(0o755 if path.is_dir() else 0o644)
            init = target / "init"
            shutil.copy(init / "initial_positions_0.dat", init / "initial_positions_1.dat")
            t = time.perf_counter()
            run_simulation(target, 10, swarms=[0, 1], threads=1, quiet=True)
            best = min(best, time.perf_counter() - t)
    glowworms = len((source / "init" / "initial_positions_0.dat").read_text().splitlines())
    print(f"{2 * glowworms * 10 / best:.0f}")
"""


def worktree(rev: str, folder: Path) -> Path:
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), rev],
        check=True,
        capture_output=True,
    )
    return folder / "src"


def measure(src: Path, bench: Path, name: str, what: str) -> int:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SNIPPET, str(src), str(bench), name, what],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("--new", default=None, help="revision (default: the working tree)")
    parser.add_argument("--bench", type=Path, default=REPO.parent / "shared" / "bench")
    parser.add_argument("--complexes", nargs="+", default=["2X9A", "2VXT"])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--measures", nargs="+", default=["score", "gso"], choices=["score", "gso"])
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp())
    try:
        old = worktree(args.old, tmp / "old")
        new = worktree(args.new, tmp / "new") if args.new else REPO / "src"
        print(
            f"# {platform.machine()}, {os.cpu_count()} cores; old {args.old}, new "
            f"{args.new or 'working tree'}; {args.processes} alternating processes each"
        )
        print("| complex | measure | old (per process) | new (per process) | best new / best old |")
        print("|---|---|---|---|---|")
        for name in args.complexes:
            units = {"score": "poses/s", "gso": "glowworm-steps/s"}
            for what, unit in ((w, units[w]) for w in args.measures):
                olds, news = [], []
                for _ in range(args.processes):
                    olds.append(measure(old, args.bench, name, what))
                    news.append(measure(new, args.bench, name, what))
                print(
                    f"| {name} | {what} ({unit}) | {' '.join(f'{v:,}' for v in olds)} | "
                    f"{' '.join(f'{v:,}' for v in news)} | {max(news) / max(olds):.3f} |",
                    flush=True,
                )
    finally:
        for sub in ("old", "new"):
            if (tmp / sub).exists():
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tmp / sub)],
                    capture_output=True,
                )
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
