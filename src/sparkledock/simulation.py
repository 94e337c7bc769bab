"""Running GSO on a setup: starting poses in, ``swarm_<id>/gso_<step>.out`` out, resumable.

Outputs go next to ``setup.json``, as LightDock writes them: ``swarm_<id>/gso_<step>.out`` at
step 0, every 10 steps and at the end. A checkpoint (``sparkledock_run.npz``, written
atomically after every saved step) lets the same command, started again after the run was
killed at any moment, continue from the last checkpoint; recomputed steps are deterministic, so
the outputs end byte-identical to an uninterrupted run. The checkpoint is removed when the run
finishes.

sparkledock pairs swarm ``N`` with ``init/initial_positions_N.dat`` (LightDock 0.9.4 pairs them
by position in a name-sorted list, so beyond ten swarms its ``swarm_10`` does not start from
``initial_positions_10.dat``).
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import gso
from .api import prepare_scoring
from .errors import InputFileError
from .fileutil import atomic_write_bytes
from .geometry import ellipsoid_centre
from .io.lightdock import load_setup, read_poses, write_gso_output

DEFAULT_SEED = 324324
SAVE_EVERY = 10
CHECKPOINT = "sparkledock_run.npz"


@dataclass(frozen=True)
class RunSpec:
    """What identifies a run (a checkpoint resumes only the same run)."""

    steps: int
    swarms: tuple[int, ...]
    scoring: str
    seed: int
    exact: bool

    def key(self) -> str:
        return json.dumps(self.__dict__, sort_keys=True)


def _progress(done: int, total: int, start: float, quiet: bool) -> None:
    tty = sys.stderr.isatty()
    if quiet or not (tty or done == total or done % max(1, total // 10) == 0):
        return
    elapsed = time.perf_counter() - start
    eta = elapsed / done * (total - done) if done else 0.0
    width = 30
    filled = int(width * done / total) if total else width
    bar = "#" * filled + "-" * (width - filled)
    end = "\r" if tty and done < total else "\n"
    print(
        f"sparkledock run [{bar}] step {done}/{total}  {elapsed:6.1f}s elapsed  ETA {eta:6.1f}s",
        end=end,
        file=sys.stderr,
        flush=True,
    )


def _save_outputs(root: Path, swarm_ids: Sequence[int], state: gso.SwarmState) -> None:
    for row, swarm in enumerate(swarm_ids):
        write_gso_output(
            root / f"swarm_{swarm}" / f"gso_{state.step}.out",
            state.poses[row],
            state.luciferin[row],
            state.neighbors[row],
            state.vision_range[row],
            state.scores[row],
        )


def _save_checkpoint(
    path: Path, spec: RunSpec, state: gso.SwarmState, rng_state: np.ndarray
) -> None:
    buffer = io.BytesIO()
    np.savez(
        buffer,
        spec=np.array(spec.key()),
        step=state.step,
        poses=state.poses,
        luciferin=state.luciferin,
        vision_range=state.vision_range,
        neighbors=state.neighbors,
        scores=state.scores,
        moved=state.moved,
        rng=rng_state,
    )
    atomic_write_bytes(path, buffer.getvalue())


def _load_checkpoint(path: Path, spec: RunSpec) -> tuple[gso.SwarmState, np.ndarray] | None:
    if not path.is_file():
        return None
    try:
        with np.load(path) as data:
            if str(data["spec"]) != spec.key():
                raise InputFileError(
                    f"{path}: checkpoint of a different run (steps, swarms, seed or mode "
                    "differ); delete it to start over"
                )
            state = gso.SwarmState(
                step=int(data["step"]),
                poses=data["poses"],
                luciferin=data["luciferin"],
                vision_range=data["vision_range"],
                neighbors=data["neighbors"],
                scores=data["scores"],
                moved=data["moved"],
            )
            return state, data["rng"]
    except (OSError, ValueError, KeyError) as exc:
        raise InputFileError(f"{path}: unreadable checkpoint ({exc}); delete it") from None


def run_simulation(
    setup_json: str | os.PathLike[str],
    steps: int,
    *,
    swarms: Sequence[int] | None = None,
    scoring: str = "dfire",
    seed: int = DEFAULT_SEED,
    exact: bool = False,
    threads: int | None = None,
    quiet: bool = False,
    history: list[tuple[int, float, float]] | None = None,
) -> Path:
    """Run ``steps`` GSO steps on the swarms of a setup; returns the output folder.

    ``history``, when given, receives ``(step, best score, mean score)`` after every step.

    Args:
        setup_json: the setup's ``setup.json`` (or its folder).
        steps: GSO steps (LightDock's default is 100).
        swarms: swarm ids to run (default: all); only their starting files are needed.
        exact: LightDock's random stream (reproduces its trajectories); otherwise the
            counter-based stream, identical for any subset of swarms or thread count.

    Raises:
        SparkledockError: bad setup, missing starting file, bad swarm id (one line each).
    """
    setup_path = Path(setup_json)
    root = setup_path if setup_path.is_dir() else setup_path.parent
    setup = load_setup(root)
    if steps < 1:
        raise InputFileError(f"{root / 'setup.json'}: steps must be at least 1, got {steps}")
    n_swarms = int(setup.config.get("swarms", 0))
    ids = tuple(range(n_swarms)) if swarms is None else tuple(int(s) for s in swarms)
    bad = [s for s in ids if not 0 <= s < n_swarms]
    if bad or not ids:
        which = bad[0] if bad else "(none)"
        raise InputFileError(f"{root / 'setup.json'}: swarm {which} is not in 0..{n_swarms - 1}")
    starts = []
    for swarm in ids:
        poses = read_poses(root / "init" / f"initial_positions_{swarm}.dat", setup.layout)
        if starts and len(poses) != len(starts[0]):
            raise InputFileError(
                f"{root / 'init' / f'initial_positions_{swarm}.dat'}: {len(poses)} glowworms, "
                f"other swarms have {len(starts[0])}"
            )
        starts.append(poses)
    restraints = setup.config.get("restraints")
    prepared = prepare_scoring(
        setup, restraints=root / restraints if restraints else None, scoring=scoring
    )
    centre = ellipsoid_centre(setup.ligand.atoms.coords)
    spec = RunSpec(steps, ids, scoring, int(seed), bool(exact))
    rng = gso.ExactRandom(seed, len(ids)) if exact else gso.CounterRandom(seed, np.array(ids))

    checkpoint = root / CHECKPOINT
    resumed = _load_checkpoint(checkpoint, spec)
    if resumed is None:
        state = gso.initial_state(np.stack(starts))
        _save_outputs(root, ids, state)
    else:
        state, rng_state = resumed
        rng.restore(rng_state)

    def score(poses: np.ndarray) -> np.ndarray:
        return prepared.score(poses, threads=threads)

    start = time.perf_counter()
    first = state.step
    while state.step < steps:
        state = gso.step(state, score, rng, centre, setup.layout)
        if history is not None:
            history.append((state.step, float(state.scores.max()), float(state.scores.mean())))
        if state.step % SAVE_EVERY == 0 or state.step == steps:
            _save_outputs(root, ids, state)
            _save_checkpoint(checkpoint, spec, state, rng.state())
        _progress(state.step - first, steps - first, start, quiet)
    checkpoint.unlink(missing_ok=True)
    return root
