"""The cost model that orders swarms for scheduling, refined by measurement.

A swarm's work is the atom pairs its glowworms examine, predicted as the receptor atoms within
(ligand radius + the scoring function's cutoff) of the swarm centre, times ligand atoms,
glowworms and steps. Measured seconds per swarm are saved (``sparkledock_costs.json``) and
replace the prediction in later runs of the same setup.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from scipy.spatial import cKDTree

from ..fileutil import atomic_write_text
from ..io.lightdock import read_poses
from ..io.setupdir import SetupDir
from ..molecule.pose import PoseLayout

if TYPE_CHECKING:  # (simulation uses this module: no import at run time)
    from .context import RunContext


def swarm_centres(root: Path, layout: PoseLayout, ids: Sequence[int]) -> np.ndarray:
    """Centre of each swarm: the mean translation of its starting poses, (S, 3)."""
    return np.array(
        [
            read_poses(SetupDir(root).start(s), layout)[:, layout.translation].mean(axis=0)
            for s in ids
        ]
    ).reshape(-1, 3)


def predicted_costs(
    context: RunContext, centres: np.ndarray, n_glow: int, steps: int
) -> np.ndarray:
    """Predicted atom pairs examined per swarm over a run (arbitrary units, relative)."""
    rec = context.setup.receptor.atoms.coords
    lig = context.setup.ligand.atoms.coords
    radius = float(np.linalg.norm(lig - lig.mean(axis=0), axis=1).max()) if len(lig) else 0.0
    cutoff = context.prepared.function.cutoff
    counts = cKDTree(rec).query_ball_point(centres, r=radius + cutoff, return_length=True)
    return np.asarray(counts, dtype=float) * max(len(lig), 1) * n_glow * steps + 1.0


def lpt_loads(
    costs: Sequence[float], n_ranks: int, order_by: Sequence[float] | None = None
) -> np.ndarray:
    """Per-rank load when tasks, longest first, go to the least loaded rank (what dynamic
    longest-first scheduling achieves). ``order_by``: the predicted costs that set the order
    when they differ from the true ``costs`` (default: the costs themselves)."""
    costs = np.asarray(costs, dtype=float)
    key = costs if order_by is None else np.asarray(order_by, dtype=float)
    heap = [(0.0, r) for r in range(n_ranks)]
    loads = np.zeros(n_ranks)
    for i in np.argsort(-key, kind="stable"):
        load, r = heapq.heappop(heap)
        loads[r] = load + costs[i]
        heapq.heappush(heap, (loads[r], r))
    return loads


def imbalance(loads: np.ndarray) -> float:
    """Largest rank load over the mean (1.0 is perfect)."""
    return float(loads.max() / loads.mean()) if loads.mean() > 0 else 1.0


def known_costs(root: Path, steps: int, n_glow: int) -> dict[int, float]:
    """Measured seconds per swarm from an earlier run of this setup with the same steps."""
    try:
        data = json.loads(SetupDir(root).costs.read_text())
    except (OSError, ValueError):
        return {}
    if data.get("steps") != steps or data.get("glowworms") != n_glow:
        return {}
    return {int(k): float(v["seconds"]) for k, v in data.get("swarms", {}).items()}


def swarm_costs(context: RunContext, todo: Sequence[int], n_glow: int, steps: int) -> np.ndarray:
    """Each swarm's cost for ordering: measured seconds when an earlier run measured every
    one of them, else the prediction."""
    known = known_costs(context.root, steps, n_glow)
    if todo and all(s in known for s in todo):
        return np.array([known[s] for s in todo])
    return predicted(context, todo, n_glow, steps)


def predicted(context: RunContext, todo: Sequence[int], n_glow: int, steps: int) -> np.ndarray:
    """:func:`predicted_costs` of swarms by id (empty for none)."""
    if not todo:
        return np.zeros(0)
    centres = swarm_centres(context.root, context.setup.layout, todo)
    return predicted_costs(context, centres, n_glow, steps)


def save_costs(
    root: Path, steps: int, n_glow: int, predicted: dict[int, float], measured: dict[int, float]
) -> None:
    """Merge this run's measured seconds per swarm into the setup's costs file."""
    path = SetupDir(root).costs
    try:
        data = json.loads(path.read_text())
        if data.get("steps") != steps or data.get("glowworms") != n_glow:
            data = {}
    except (OSError, ValueError):
        data = {}
    swarms = data.get("swarms", {})
    for s, seconds in measured.items():
        swarms[str(s)] = {"predicted": predicted.get(s), "seconds": seconds}
    payload = {"steps": steps, "glowworms": n_glow, "swarms": swarms}
    atomic_write_text(path, json.dumps(payload, indent=1, sort_keys=True) + "\n")
