"""Convergence per swarm: each swarm's best score at every saved GSO step.

A run writes every swarm's glowworms each ``SAVE_EVERY`` steps (LightDock's ``gso_<step>.out``
snapshots, kept for resume and for users). Reading the score column of those snapshots gives
each swarm's trajectory without any bookkeeping in the engine: every backend, MPI and resumed
runs alike, and dockings made before this existed. A finished docking that drops its earlier
snapshots (:mod:`sparkledock.io.pack`) keeps this table first (:func:`keep_convergence`), and
it is read from there.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..fileutil import atomic_write_bytes
from ..io.pack import convergence_path
from ..io.setupdir import SetupDir


@dataclass(frozen=True)
class SwarmConvergence:
    """``best[s, t]``: the best score of swarm ``swarms[s]`` at step ``steps[t]`` (NaN where
    that snapshot is missing)."""

    steps: np.ndarray
    swarms: np.ndarray
    best: np.ndarray

    def summary(self) -> dict[str, np.ndarray]:
        """Over all swarms, per step: the median and the 10th and 90th percentiles."""
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (a step no snapshot kept: NaN)
            q = np.nanpercentile(self.best, [10, 50, 90], axis=0)
        return {"10th percentile": q[0], "median": q[1], "90th percentile": q[2]}


def snapshot_best(path) -> float:
    """The best (largest) score in a ``gso_<step>.out`` file: its last column, read without
    parsing the poses (a docking has thousands of snapshots); NaN when unreadable."""
    best = -np.inf
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith("#") or not line.strip():
                    continue
                best = max(best, float(line.rsplit(None, 1)[1]))
    except (OSError, ValueError, IndexError):
        return float("nan")
    return best if np.isfinite(best) else float("nan")


def swarm_convergence(
    folder: SetupDir, swarms: Sequence[int], steps: int, every: int
) -> SwarmConvergence:
    """Each of ``swarms``' best score at steps ``every``, 2·``every``, ..., ``steps`` (the
    last step always), from the setup ``folder``'s snapshots. Step 0 is left out: its
    snapshot holds the starting poses with placeholder scores (0), not scores."""
    saved = sorted({*range(max(every, 1), steps + 1, max(every, 1)), steps})
    ids = np.asarray(list(swarms), dtype=np.int64)
    kept = convergence_path(folder.root)
    if kept.is_file():  # (the snapshots were dropped: the table kept before)
        with np.load(kept) as table:
            rows = {int(s): i for i, s in enumerate(table["swarms"])}
            cols = {int(t): j for j, t in enumerate(table["steps"])}
            best = np.full((len(ids), len(saved)), np.nan)
            for a, s in enumerate(ids):
                for b, t in enumerate(saved):
                    if int(s) in rows and t in cols:
                        best[a, b] = table["best"][rows[int(s)], cols[t]]
        return SwarmConvergence(np.array(saved), ids, best)
    best = np.array(
        [[snapshot_best(folder.gso(int(s), t)) for t in saved] for s in ids], dtype=np.float64
    ).reshape(len(ids), len(saved))
    return SwarmConvergence(np.array(saved), ids, best)


def keep_convergence(folder: SetupDir, swarms: Sequence[int], steps: int, every: int) -> None:
    """Write :func:`swarm_convergence`'s table of every swarm in ``swarms`` to the setup
    folder (once: a table there is kept), before its snapshots are dropped."""
    import io

    if convergence_path(folder.root).is_file():
        return
    table = swarm_convergence(folder, swarms, steps, every)
    buffer = io.BytesIO()
    np.savez(buffer, steps=table.steps, swarms=table.swarms, best=table.best)
    atomic_write_bytes(convergence_path(folder.root), buffer.getvalue())
