"""What a run keeps on disk: which starting file each swarm reads, the gso files of a step,
and the checkpoint (``sparkledock_run.npz``) a killed run resumes from."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import EngineError, InputFileError
from ..fileutil import atomic_write_bytes
from ..io.lightdock import (
    write_gso_output,
)
from ..io.pack import missing_start
from ..io.setupdir import SetupDir
from . import gso
from .spec import RunSpec, StepLog


def starting_files(root: Path, n_swarms: int, ids: Sequence[int], exact: bool) -> dict[int, Path]:
    """The starting file of each swarm in ``ids``: LightDock's pairing in exact mode, else
    ``initial_positions_<swarm>.dat``."""
    folder = SetupDir(root)
    if exact:
        files = folder.lightdock_starts(n_swarms)
        chosen = {s: files[s] for s in ids}
    else:
        chosen = {s: folder.start(s) for s in ids}
    for path in chosen.values():
        if (why := missing_start(path)) is not None:
            raise InputFileError(why)
    return chosen


def swarm_finished(root: Path, swarm: int, spec: RunSpec) -> bool:
    """Whether a swarm's outputs are complete for this run's settings (its marker says so)."""
    marker = SetupDir(root).done_marker(swarm)
    try:
        return marker.read_text().strip() == spec.done_key()
    except OSError:
        return False


def clear_swarm_outputs(root: Path, swarm_ids: Sequence[int]) -> None:
    """Remove what an earlier run left in these swarms' folders (its gso files, done marker,
    clusters and models), so a new run never leaves a mixture of two runs' files."""
    for swarm in swarm_ids:
        for path in SetupDir(root).run_outputs(swarm):
            path.unlink(missing_ok=True)


def save_outputs(root: Path, swarm_ids: Sequence[int], state: gso.SwarmState) -> None:
    """Every swarm's gso file of this step, then one flush to disk for all of them (before
    the checkpoint that refers to them is written). A non-finite score or pose (a scoring
    function overflowing, say) stops the run with one line instead of being written."""
    for values, what in (
        (state.scores, "score"),
        (state.poses, "pose"),
        (state.luciferin, "luciferin"),
    ):
        bad = ~np.isfinite(np.asarray(values)).reshape(len(swarm_ids), -1).all(axis=1)
        if bad.any():
            swarm = swarm_ids[int(np.flatnonzero(bad)[0])]
            raise EngineError(
                f"swarm {swarm}, step {state.step}: a non-finite {what} (the scoring function "
                "overflowed?); nothing of this step is written"
            )
    for row, swarm in enumerate(swarm_ids):
        write_gso_output(
            SetupDir(root).gso(swarm, state.step),
            state.poses[row],
            state.luciferin[row],
            state.neighbors[row],
            state.vision_range[row],
            state.scores[row],
            durable=False,
        )
    os.sync()


def save_checkpoint(
    path: Path,
    spec: RunSpec,
    done: Sequence[int],
    group: Sequence[int],
    state: gso.SwarmState | None,
    rng_state: np.ndarray | None,
    logs: Sequence[StepLog] = (),
    stopping: np.ndarray | None = None,
) -> None:
    """Swarms finished so far, and the state of the group in flight (if any); ``logs`` are the
    per-step logs of the finished groups, then the group in flight's (so a resumed run reports
    every step's history)."""
    buffer = io.BytesIO()
    rows = [(k, *row) for k, log in enumerate(logs) for row in log]
    fields: dict[str, np.ndarray] = {
        "spec": np.array(spec.key()),
        "done": np.asarray(done, dtype=np.int64),
        "group": np.asarray(group if state is not None else [], dtype=np.int64),
        "logs": np.asarray(rows, dtype=np.float64).reshape(-1, 5),
        "n_logs": np.asarray(len(logs)),
    }
    if state is not None and rng_state is not None:
        fields.update(
            step=np.asarray(state.step),
            poses=state.poses,
            luciferin=state.luciferin,
            vision_range=state.vision_range,
            neighbors=state.neighbors,
            scores=state.scores,
            moved=state.moved,
            rng=rng_state,
        )
        if stopping is not None:
            fields["stopping"] = stopping
    np.savez(buffer, **fields)
    atomic_write_bytes(path, buffer.getvalue())


@dataclass
class Resume:
    done: list[int]
    group: tuple[int, ...]
    state: gso.SwarmState | None
    rng: np.ndarray | None
    #: per-step logs of the finished groups, and of the group in flight
    finished_logs: list[StepLog]
    in_flight_log: StepLog
    #: early stopping's record of the group in flight (:class:`_Stopping` rows), if any
    stopping: np.ndarray | None = None


def unpack_logs(rows: np.ndarray, count: int) -> list[StepLog]:
    logs: list[StepLog] = [[] for _ in range(count)]
    for k, step, best, mean, n in rows:
        logs[int(k)].append((int(step), float(best), float(mean), int(n)))
    return logs


def load_checkpoint(path: Path, spec: RunSpec) -> Resume | None:
    if not path.is_file():
        return None
    try:
        with np.load(path) as data:
            if str(data["spec"]) != spec.key():
                raise InputFileError(
                    f"{path}: checkpoint of a different run (steps, swarms, seed or mode "
                    "differ); delete it to start over"
                )
            group = tuple(int(s) for s in data["group"])
            state = rng = None
            if group:
                state = gso.SwarmState(
                    step=int(data["step"]),
                    poses=data["poses"],
                    luciferin=data["luciferin"],
                    vision_range=data["vision_range"],
                    neighbors=data["neighbors"],
                    scores=data["scores"],
                    moved=data["moved"],
                )
                rng = data["rng"]
            has_logs = "logs" in data.files  # (checkpoints of earlier versions have none)
            logs = unpack_logs(data["logs"], int(data["n_logs"])) if has_logs else []
            in_flight = logs.pop() if group and logs else []
            stopping = data["stopping"] if group and "stopping" in data.files else None
            done = [int(s) for s in data["done"]]
            return Resume(done, group, state, rng, logs, in_flight, stopping)
    except (OSError, ValueError, KeyError) as exc:
        raise InputFileError(f"{path}: unreadable checkpoint ({exc}); delete it") from None
