"""How much of the receptor's normal-mode flexibility the fast path recovers (``fast-flex``).

The fast path scores ligand atoms in the undeformed receptor's DFIRE field; ``fast-flex``
carries the receptor's local normal-mode displacement by the ligand's translation
(:class:`sparkledock.scoring.dfire.grid.ReceptorShift`). For each shared complex with a
LightDock setup, LightDock's golden poses (jittered by 1.5 Å, four copies each) get
receptor extents drawn at ``scale`` times a unit normal (0.9.4 starts them at about one);
the table compares, against the exact score of the deformed receptor, the rigid field and
the shifted one (mean absolute error, Spearman's rho), with the size of the exact change
the receptor's motion makes and how well the shift's change follows it (Pearson r).

With ``--docked DIR ...`` (docking folders, e.g. training dockings kept by
``restrained_pools.py --keep``), the poses are instead 256 of each docking's final glowworms
(drawn with a fixed seed), their receptor extents redrawn the same way: the poses a search
meets near its end, for choosing :data:`~sparkledock.scoring.dfire.grid.SHIFT_SIGMA_A` on
training complexes only (``--sigmas``).

Usage:
    python benchmarks/receptor_flex.py [--complexes 2X9A ...] [--scales 1 3]
    python benchmarks/receptor_flex.py --docked pools/train_s6/*/dock --sigmas 2 4 8 12
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.restraints import read_restraints
from sparkledock.io.setupdir import SetupDir
from sparkledock.scoring.dfire import grid, grid_numba
from sparkledock.scoring.prepared import prepare_scoring

BENCH = Path(__file__).resolve().parent.parent.parent / "shared" / "bench"


def poses_of(folder: Path, scale: float, layout) -> np.ndarray:
    """Jittered golden poses with receptor extents of ``scale`` times a unit normal."""
    record = json.loads((folder / "golden_dfire_restraints.json").read_text())
    golden = [pose for case in record["cases"] for pose in case["poses"]]
    poses = np.repeat(np.asarray(golden, dtype=np.float64), 4, axis=0)
    rng = np.random.default_rng(3)
    poses[:, layout.translation] += rng.normal(0.0, 1.5, (len(poses), 3))
    ext = poses[:, layout.rec_extents]
    poses[:, layout.rec_extents] = rng.normal(0.0, scale, ext.shape)
    return poses


def docked_poses(setup, scale: float, count: int = 256) -> np.ndarray:
    """``count`` of a docking's final glowworms with receptor extents redrawn."""
    folder = SetupDir(setup.path)
    snapshots = Path(setup.path).glob("swarm_0/gso_*.out")
    last = max(int(p.stem.split("_")[1]) for p in snapshots)
    swarms = int(setup.config["swarms"])
    poses = np.concatenate([read_gso_output(folder.gso(s, last)).poses for s in range(swarms)])
    rng = np.random.default_rng(3)
    poses = poses[np.sort(rng.choice(len(poses), min(count, len(poses)), replace=False))]
    ext = poses[:, setup.layout.rec_extents]
    poses[:, setup.layout.rec_extents] = rng.normal(0.0, scale, ext.shape)
    return poses


def cases(args: argparse.Namespace):
    """(name, setup, restraints, poses of a scale) of every complex asked."""
    if args.docked:
        for dock in args.docked:
            setup = load_setup(dock / "setup")
            name = dock.parent.name if dock.name == "dock" else dock.name
            yield name, setup, setup_restraints(setup), lambda s, st=setup: docked_poses(st, s)
        return
    folders = sorted(f for f in BENCH.iterdir() if (f / "lightdock_setup").is_dir())
    if args.complexes:
        folders = [f for f in folders if f.name in args.complexes]
    for folder in folders:
        setup = load_setup(folder / "lightdock_setup")
        restraints = read_restraints(folder / "restraints.list")
        yield (
            folder.name,
            setup,
            restraints,
            lambda s, f=folder, st=setup: poses_of(f, s, st.layout),
        )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--complexes", nargs="*")
    p.add_argument("--scales", type=float, nargs="*", default=[1.0, 3.0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--docked", type=Path, nargs="*", help="docking folders instead of golden poses")
    p.add_argument("--sigmas", type=float, nargs="*", default=[grid.SHIFT_SIGMA_A])
    args = p.parse_args(argv)
    print(
        "| complex | sigma Å | receptor extents | poses | exact change | rigid: error, rho | "
        "fast-flex: error, rho | change followed (r) | shift grid s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    mean: dict[tuple[float, float], list[tuple[float, float]]] = {}
    for name, setup, restraints, make_poses in cases(args):
        prepared = prepare_scoring(setup, restraints=restraints)
        model, layout = prepared.model, setup.layout
        field = grid.prepare_field(model)
        for scale, sigma in ((a, b) for a in args.scales for b in args.sigmas):
            poses = make_poses(scale)
            still = poses.copy()
            still[:, layout.rec_extents] = 0.0
            exact = prepared.score(poses, threads=args.threads)
            exact_still = prepared.score(still, threads=args.threads)
            t0 = time.perf_counter()
            shift = grid.receptor_shift(model, poses, sigma)
            built = time.perf_counter() - t0
            rigid = grid_numba.FastDFIRE(field).score(poses, threads=args.threads)
            flex_field = dataclasses.replace(field, shift=shift)
            flex = grid_numba.FastDFIRE(flex_field).score(poses, threads=args.threads)
            follow = np.corrcoef(flex - rigid, exact - exact_still)[0, 1]
            err_rigid, err_flex = np.abs(rigid - exact).mean(), np.abs(flex - exact).mean()
            mean.setdefault((scale, sigma), []).append((err_rigid, err_flex))
            print(
                f"| {name} | {sigma:g} | {scale:g}× | {len(poses)} | "
                f"{np.abs(exact - exact_still).mean():.2f} | "
                f"{np.abs(rigid - exact).mean():.2f}, {spearmanr(rigid, exact)[0]:.4f} | "
                f"{np.abs(flex - exact).mean():.2f}, {spearmanr(flex, exact)[0]:.4f} | "
                f"{follow:.2f} | {built:.2f} |",
                flush=True,
            )
    print("\n| sigma Å | receptor extents | complexes | mean error rigid | mean error fast-flex |")
    print("|---|---|---|---|---|")
    for (scale, sigma), errors in mean.items():
        e = np.array(errors)
        print(
            f"| {sigma:g} | {scale:g}× | {len(e)} | {e[:, 0].mean():.3f} | {e[:, 1].mean():.3f} |"
        )


if __name__ == "__main__":
    main()
