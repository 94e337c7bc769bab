"""Analysis speed of a finished docking, the current normal-mode deformation against the
previous one, side by side in one process: the cluster stage over a docking's first swarms,
and (with a reference) DockQ of its first ranked models by ``analysis.quality.pose_quality``.

The previous ``pose.deform`` (one pose-batch-sized temporary per mode) is kept here as the
reference; the current one deforms sixteen poses at a time in reused buffers. Both give
bit-identical coordinates: this script asserts equal clusters and equal DockQ.

Usage:
    python benchmarks/analysis_speed.py DOCKING [DOCKING ...] [--reference REF ...]
        [--swarms 40] [--models 1000] [--steps 100]

``DOCKING``: a ``dock`` output folder (``setup/``, ``ranking.csv``); ``--reference``: one
bound complex per docking, in the same order, for the DockQ rows.
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

from sparkledock.analysis.cluster import cluster_glowworms
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.setupdir import SetupDir
from sparkledock.molecule import pose


def previous_deform(coords, modes, mask, extents):
    """``pose.deform`` before the change: the whole batch at once, a temporary per mode."""
    extents = np.atleast_2d(extents)
    out = np.broadcast_to(coords, (len(extents), *coords.shape)).copy()
    if modes.shape[0] == 0:
        return out
    moved = out[:, mask, :]
    for k in range(modes.shape[0]):
        moved += modes[k][None, :, :] * extents[:, k, None, None]
    out[:, mask, :] = moved
    return out


CURRENT = pose.deform
VARIANTS = (("previous", previous_deform), ("current", CURRENT))


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return time.perf_counter() - start, result


def cluster_all(setup, data) -> list:
    """The cluster stage over some swarms' final glowworms."""
    return [cluster_glowworms(setup, d) for d in data]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dockings", nargs="+", type=Path)
    parser.add_argument("--reference", nargs="*", type=Path, default=[])
    parser.add_argument("--swarms", type=int, default=40)
    parser.add_argument("--models", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    print("| docking | receptor atoms | what | previous | current | speed-up |")
    print("|---|---|---|---|---|---|")
    for n, docking in enumerate(args.dockings):
        setup = load_setup(docking / "setup")
        folder = SetupDir(docking / "setup")
        count = min(args.swarms, int(setup.config["swarms"]))
        data = [read_gso_output(folder.gso(s, args.steps)) for s in range(count)]
        atoms = len(setup.receptor.atoms)
        seconds, results = {}, {}
        for name, fn in VARIANTS:
            pose.deform = fn
            seconds[name], results[name] = timed(cluster_all, setup, data)
        pose.deform = CURRENT
        assert results["previous"] == results["current"], "clusters differ"
        old, new = seconds["previous"], seconds["current"]
        what = f"cluster stage, {count} swarms"
        print(
            f"| {docking.name} | {atoms} | {what} | {old:.2f} s | {new:.2f} s | {old / new:.1f}× |"
        )
        if n < len(args.reference):
            rows = list(csv.DictReader((docking / "ranking.csv").open()))[: args.models]
            poses = np.array([[float(x) for x in r["pose"].split()] for r in rows])
            ref = quality_reference(setup, args.reference[n])
            rate, dockq = {}, {}
            for name, fn in VARIANTS:
                pose.deform = fn
                secs, q = timed(pose_quality, ref, setup, poses)
                rate[name], dockq[name] = len(poses) / secs, q["dockq"]
            pose.deform = CURRENT
            assert np.array_equal(dockq["previous"], dockq["current"]), "DockQ differs"
            old, new = rate["previous"], rate["current"]
            print(
                f"| {docking.name} | {atoms} | DockQ of {len(poses)} models | {old:.0f} /s "
                f"| {new:.0f} /s | {new / old:.1f}× |",
                flush=True,
            )


if __name__ == "__main__":
    main()
