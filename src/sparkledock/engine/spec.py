"""What a run is: its specification (steps, swarms, scoring, seed, mode, early stopping),
which also keys its checkpoint, the scoring modes, and the early-stopping rule."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..io.setupdir import CHECKPOINT_FILE
from . import gso

SAVE_EVERY = 10
#: Early stopping's first check (a step): before it, swarms are still gathering.
STOP_MIN_STEPS = 30

#: What exact mode is for, said where it refuses an option that breaks it.
REPRODUCES = "reproduces LightDock's trajectories"


def converged(
    best: np.ndarray, mean: np.ndarray, best_before: np.ndarray, mean_before: np.ndarray,
    tolerance: float,
) -> np.ndarray:  # fmt: skip
    """Which swarms have converged (S,) bool: their best and mean scores rose by no more than
    ``tolerance`` x max(1, |best|) since the previous snapshot (``*_before``). A swarm's own
    scores decide, so the decision never depends on which swarms run with it, on threads or
    on ranks."""
    scale = tolerance * np.maximum(1.0, np.abs(best))
    return (best - best_before <= scale) & (mean - mean_before <= scale)


def stop_steps(
    best: np.ndarray, mean: np.ndarray, tolerance: float, min_steps: int, steps: int
) -> np.ndarray:
    """The step at which each swarm stops (S,), from its best and mean scores at every
    snapshot (S, T; snapshot k at step ``SAVE_EVERY * (k + 1)``): the first snapshot from
    ``min_steps`` on where :func:`converged` holds, else ``steps``. What a run with early
    stopping does, computed from a run without it."""
    out = np.full(len(best), steps, dtype=np.int64)
    open_ = np.ones(len(best), dtype=bool)
    for k in range(1, best.shape[1]):
        step = SAVE_EVERY * (k + 1)
        if step < min_steps or step >= steps:
            continue
        now = open_ & converged(best[:, k], mean[:, k], best[:, k - 1], mean[:, k - 1], tolerance)
        out[now] = step
        open_ &= ~now
    return out


#: Per step of one group: (step, best score, mean score, swarms in the group).
StepLog = list[tuple[int, float, float, int]]
CHECKPOINT = CHECKPOINT_FILE


@dataclass(frozen=True)
class RunSpec:
    """What identifies a run (a checkpoint resumes only the same run)."""

    steps: int
    swarms: tuple[int, ...]
    scoring: str
    seed: int
    exact: bool
    #: ``exact`` (every score exact) or ``fast`` (the search scores with the scoring
    #: function's fast path; the final glowworms are re-scored exactly)
    scoring_mode: str = "exact"
    #: the GSO constants and step sizes (LightDock's ``glowworm.conf``, ``-t``/``-r``/``-ns``)
    gso_params: gso.GSOParameters = field(default_factory=gso.GSOParameters)
    #: early stopping (:func:`converged`): a swarm stops once its best and mean scores rose by
    #: no more than this times max(1, |best|) over a snapshot interval; 0: never
    stop_tolerance: float = 0.0
    #: no swarm stops before this step
    stop_min_steps: int = STOP_MIN_STEPS

    def _settings(self) -> dict[str, Any]:
        settings = dict(self.__dict__)
        if not self.stop_tolerance:  # (keys of runs before early stopping existed)
            del settings["stop_tolerance"], settings["stop_min_steps"]
        if self.scoring_mode == "exact":  # (keys of runs before fast mode existed)
            del settings["scoring_mode"]
        del settings["gso_params"]
        if self.gso_params != gso.GSOParameters():  # (LightDock's defaults: keys as before)
            settings["gso"] = asdict(self.gso_params)
        return settings

    def key(self) -> str:
        return json.dumps(self._settings(), sort_keys=True)

    def done_key(self) -> str:
        """What a finished swarm records: the run's settings without the swarm list."""
        settings = self._settings()
        del settings["swarms"]
        return json.dumps(settings, sort_keys=True)


SCORING_MODES = ("exact", "fast", "fast-flex")
SCORING_MODE_HELP = (
    "exact: every score exact; fast: the search scores with DFIRE's field on a grid (numba or "
    "torch), the final glowworms are re-scored exactly; fast-flex: fast, with the receptor's "
    "normal modes as a local shift of the ligand"
)
STOP_TOLERANCE_HELP = (
    f"stop a swarm once its best and mean scores rose by at most T x max(1, |best|) over "
    f"{SAVE_EVERY} steps (checked from step {STOP_MIN_STEPS}; 0: every swarm runs every step)"
)
#: The modes whose search scores with the fast path (``fast-flex``: with the receptor's
#: normal modes as a local shift, :class:`~sparkledock.scoring.dfire.grid.ReceptorShift`).
FAST_MODES = ("fast", "fast-flex")
