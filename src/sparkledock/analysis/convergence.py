"""Convergence per swarm: each swarm's best score at every saved GSO step.

A run writes every swarm's glowworms each ``SAVE_EVERY`` steps (LightDock's ``gso_<step>.out``
snapshots, kept for resume and for users). Reading the score column of those snapshots gives
each swarm's trajectory without any bookkeeping in the engine: every backend, MPI and resumed
runs alike, and dockings made before this existed.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

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
    best = np.array(
        [[snapshot_best(folder.gso(int(s), t)) for t in saved] for s in ids], dtype=np.float64
    ).reshape(len(ids), len(saved))
    return SwarmConvergence(np.array(saved), ids, best)
