"""Running GSO on a setup: starting poses in, ``swarm_<id>/gso_<step>.out`` out, resumable.

Outputs go next to ``setup.json``, as LightDock writes them: ``swarm_<id>/gso_<step>.out`` at
step 0, every 10 steps and at the end. A checkpoint (``sparkledock_run.npz``, written
atomically after every saved step) lets the same command, started again after the run was
killed at any moment, continue from the last checkpoint; recomputed steps are deterministic, so
the outputs end byte-identical to an uninterrupted run. The checkpoint is removed when the run
finishes.

sparkledock pairs swarm ``N`` with ``init/initial_positions_N.dat``. LightDock 0.9.4 pairs them
by position in a name-sorted list, so beyond ten swarms its ``swarm_10`` does not start from
``initial_positions_10.dat``; exact mode pairs them as LightDock does (see
:func:`starting_files`), so that every swarm's trajectory is LightDock's.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ..backend import USABLE_FRACTION, Engine, default_workspace
from ..errors import EngineError, InputFileError, OptionError
from ..fileutil import atomic_write_text
from ..io.lightdock import (
    GSOOutput,
    as_written,
    poses_as_written,
    read_poses,
)
from ..io.setupdir import SetupDir
from ..molecule.pose import PoseLayout
from ..scoring.prepared import PreparedScoring
from . import gso
from .checkpoint import (
    clear_swarm_outputs,
    load_checkpoint,
    save_checkpoint,
    save_outputs,
    starting_files,
)
from .context import RunContext
from .costs import imbalance
from .memory import MemoryPlan, free_bytes, plan_groups
from .spec import CHECKPOINT, FAST_MODES, REPRODUCES, SAVE_EVERY, RunSpec, StepLog, converged


class _Progress:
    """A progress bar over swarm-steps on stderr (a line per tenth when not a terminal).

    The first update (the first step: kernels compiled on a first run, caches filled) is
    reported as its own line, and the ETA counts only the steps after it, so it is honest
    from the first bar."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.total, self.quiet, self.done = total, quiet, 0
        self.start = time.perf_counter()
        self.shown = -1
        self.warm: tuple[float, int] | None = None  # (time, swarm-steps) after the first step

    def advance(self, count: int) -> None:
        self.done += count
        done, total = self.done, self.total
        now = time.perf_counter()
        elapsed = now - self.start
        if self.warm is None:
            self.warm = (now, done)
            if not self.quiet and done < total:
                print(
                    f"sparkledock run: first step in {elapsed:.1f} s (compiles the kernels on "
                    "a first run); the ETA counts from here",
                    file=sys.stderr,
                    flush=True,
                )
        tty = sys.stderr.isatty()
        tenth = 10 * done // max(total, 1)
        if self.quiet or not (tty or done == total or tenth != self.shown):
            return
        self.shown = tenth
        since, before = self.warm
        rate = (done - before) / (now - since) if done > before and now > since else 0.0
        eta = f"{(total - done) / rate:6.1f}s" if rate else "   ...."
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        end = "\r" if tty and done < total else "\n"
        print(
            f"sparkledock run [{bar}] {100 * done / max(total, 1):5.1f}%  {elapsed:6.1f}s "
            f"elapsed  ETA {eta}",
            end=end,
            file=sys.stderr,
            flush=True,
        )


def _plan(
    engine: Engine,
    prepared: PreparedScoring,
    n_swarms: int,
    n_glow: int,
    limit: int | None,
    fast: Any = None,
) -> tuple[MemoryPlan | None, Any]:
    """Swarms per group (from the memory model) and the device scorer, for torch engines
    (the fast scorer's device form in fast mode)."""
    if not engine.on_torch:
        return None, None
    budget = int(limit if limit is not None else free_bytes(engine) * USABLE_FRACTION)
    if engine.device == "cpu":
        workspace = min(default_workspace(engine), max(budget // 8, 2**20))
    else:  # a quarter of the budget (1–16 GiB): big chunks keep a GPU busy
        workspace = min(max(budget // 4, default_workspace(engine)), 16 * 2**30, budget // 2)
    if fast is not None:
        scorer = fast.device_scorer(engine, workspace)
    else:
        scorer = prepared.function.device_scorer(prepared.model, engine, workspace)
    plan = plan_groups(
        n_swarms,
        n_glow,
        prepared.setup.layout.size,
        model_bytes=scorer.model_bytes(),
        workspace_bytes=workspace,
        budget_bytes=budget,
    )
    return plan, scorer


@dataclass
class RunResult:
    """What a run did, as values: the final state of each swarm it ran, its score history,
    timings and, on torch, its memory plan and peak. A run over several tasks or MPI ranks
    merges its tasks' results (:func:`merge_results`)."""

    root: Path
    steps: int
    #: per step: (step, best score, mean score) over every swarm that ran the step
    history: list[tuple[int, float, float]]
    #: the last step's glowworms of each swarm run here (empty unless asked for)
    final: dict[int, GSOOutput]
    #: measured seconds per swarm (a task's time shared among its swarms)
    seconds: dict[int, float]
    plan: MemoryPlan | None = None
    peak_bytes: int | None = None
    #: per group of swarms, its per-step log (merged into ``history``)
    logs: list[StepLog] = field(default_factory=list)
    ranks: int = 1
    tasks: int = 1
    #: swarms skipped because an earlier run finished them
    skipped: int = 0
    wall_seconds: float = 0.0
    #: per rank, seconds spent running tasks
    busy_seconds: list[float] = field(default_factory=list)

    @property
    def imbalance(self) -> float:
        """Busiest rank's time over the mean (1.0 is perfect)."""
        return imbalance(np.array(self.busy_seconds)) if self.busy_seconds else 1.0


def merge_results(parts: Sequence[RunResult], **fields: Any) -> RunResult:
    """One result for tasks of one setup (``fields`` override the merged values)."""
    logs = [log for part in parts for log in part.logs]
    peaks = [p.peak_bytes for p in parts if p.peak_bytes is not None]
    merged = RunResult(
        root=parts[0].root,
        steps=parts[0].steps,
        history=combine_logs(logs),
        final={k: v for part in parts for k, v in part.final.items()},
        seconds={k: v for part in parts for k, v in part.seconds.items()},
        plan=parts[0].plan,
        peak_bytes=max(peaks) if peaks else None,
        logs=logs,
        tasks=len(parts),
    )
    return replace(merged, **fields)


def check_swarms(context: RunContext, swarms: Sequence[int] | None) -> tuple[int, ...]:
    """The swarm ids to run (default: all), or a one-line error naming the setup."""
    n_swarms = context.setup.n_swarms
    ids = tuple(range(n_swarms)) if swarms is None else tuple(int(s) for s in swarms)
    bad = [s for s in ids if not 0 <= s < n_swarms]
    if bad or not ids:
        which = bad[0] if bad else "(none)"
        raise InputFileError(
            f"{SetupDir(context.root).setup_json}: swarm {which} is not in 0..{n_swarms - 1}"
        )
    return ids


def check_steps(context: RunContext, steps: int) -> None:
    if steps < 1:
        raise InputFileError(
            f"{SetupDir(context.root).setup_json}: steps must be at least 1, got {steps}"
        )


def read_starts(context: RunContext, ids: Sequence[int], exact: bool) -> dict[int, np.ndarray]:
    """Each swarm's starting poses; every swarm must have as many glowworms as the first."""
    n_swarms = context.setup.n_swarms
    starts: dict[int, np.ndarray] = {}
    for swarm, path in starting_files(context.root, n_swarms, ids, exact).items():
        poses = context.parsed.get(Path(path).resolve())
        if poses is None:
            poses = read_poses(path, context.setup.layout)
        if starts and len(poses) != len(next(iter(starts.values()))):
            raise InputFileError(
                f"{path}: {len(poses)} glowworms, "
                f"other swarms have {len(next(iter(starts.values())))}"
            )
        starts[swarm] = poses
    return starts


def run_swarms(
    context: RunContext,
    spec: RunSpec,
    *,
    engine: Engine,
    threads: int | None = None,
    quiet: bool = False,
    memory_limit: int | None = None,
    checkpoint_name: str = CHECKPOINT,
    keep_final: bool = False,
) -> RunResult:
    """Run ``spec.steps`` GSO steps on the swarms ``spec.swarms`` of a loaded setup, in
    groups (one group on numba; as many as the device memory needs on torch), writing gso
    files and a checkpoint as it goes and resuming from a checkpoint of the same run.

    This is one task of a run; :func:`sparkledock.engine.driver.run_simulation` is the entry point,
    serial or over MPI ranks.
    """
    if spec.exact and engine.on_torch:
        raise EngineError("exact mode runs on the numba backend only")
    if spec.gso_params.local_minimization and hasattr(context.prepared.function, "n_functions"):
        raise EngineError(
            "local minimisation (-min) with a combination of scoring functions is not built "
            "(LightDock minimises each function's pose apart)"
        )
    if spec.exact and spec.scoring_mode in FAST_MODES:
        raise OptionError("exact", f"{{0}} {REPRODUCES}: it scores exactly")
    if spec.exact and spec.stop_tolerance:
        raise OptionError("exact", f"{{0}} {REPRODUCES}: no swarm stops early")
    root, setup, prepared, centre = context.root, context.setup, context.prepared, context.centre
    check_steps(context, spec.steps)
    ids = spec.swarms
    starts = read_starts(context, ids, spec.exact)
    n_glow = len(starts[ids[0]])
    checkpoint = root / checkpoint_name
    resumed = load_checkpoint(checkpoint, spec)
    done = list(resumed.done) if resumed else []
    todo = [s for s in ids if s not in set(done)]
    fast = context.fast if spec.scoring_mode in FAST_MODES else None
    plan, scorer = _plan(engine, prepared, len(todo), n_glow, memory_limit, fast)
    size = plan.swarms_per_group if plan else max(1, len(todo))
    groups = [tuple(todo[i : i + size]) for i in range(0, len(todo), size)]
    if plan is not None and not quiet:
        print(f"sparkledock run: {plan.describe()}", file=sys.stderr)
    if engine.device.startswith("cuda"):
        import torch

        torch.cuda.reset_peak_memory_stats(torch.device(engine.device))

    def score(poses: np.ndarray) -> np.ndarray:
        if fast is not None:
            return fast.score(poses, threads=threads)
        return prepared.score(poses, threads=threads, engine=engine)

    def finish(state: gso.SwarmState) -> gso.SwarmState:
        """The last step's state as it is written: fast scores replaced by the exact scores
        of the poses as the file keeps them (so re-scoring a written pose gives the written
        score)."""
        if fast is None:
            return state
        poses = poses_as_written(state.poses)
        flat = poses.reshape(-1, poses.shape[-1])
        if not quiet:  # (after the bar's 100 %: a few seconds the ETA did not count)
            print(
                f"sparkledock run: re-scoring the last step's {len(flat)} glowworms exactly",
                file=sys.stderr,
                flush=True,
            )
        exact_scores = prepared.score(flat, threads=threads, engine=engine)
        return replace(state, poses=poses, scores=exact_scores.reshape(state.scores.shape))

    progress = _Progress(spec.steps * len(todo), quiet)
    per_group: list[StepLog] = []
    in_flight: StepLog = []
    if resumed is not None:
        per_group, in_flight = resumed.finished_logs, resumed.in_flight_log
    final: dict[int, GSOOutput] = {}
    seconds: dict[int, float] = {}
    for group in groups:
        t0 = time.perf_counter()
        rng = (
            gso.ExactRandom(spec.seed, len(group), getattr(prepared.function, "n_functions", 1))
            if spec.exact
            else gso.CounterRandom(spec.seed, np.array(group))
        )
        log: StepLog = []
        if resumed is not None and resumed.group == group and resumed.state is not None:
            state = resumed.state
            rng.restore(resumed.rng)
            log = list(in_flight)  # the steps up to the checkpoint
        else:
            state = gso.initial_state(np.stack([starts[s] for s in group]), spec.gso_params)
            clear_swarm_outputs(root, group)
            save_outputs(root, group, state)
        run = _GroupRun(checkpoint, spec, done, group, rng, log, progress, per_group, finish)
        if spec.stop_tolerance:
            saved = resumed.stopping if resumed is not None and resumed.group == group else None
            run.stopping = _Stopping.start(len(group), saved)
        if engine.on_torch:
            state = _run_group_torch(run, state, scorer, centre, setup.layout)
        else:
            state = _run_group_host(run, state, score, centre, setup.layout)
        done.extend(group)
        for row, swarm in enumerate(group):
            marker = SetupDir(root).done_marker(swarm)
            atomic_write_text(marker, spec.done_key() + "\n", durable=False)
            seconds[swarm] = (time.perf_counter() - t0) / len(group)
            if keep_final:
                final[swarm] = _swarm_output(state, row)
        per_group.append(log)
        os.sync()  # (the done markers, before the checkpoint that counts them done)
        save_checkpoint(checkpoint, spec, done, (), None, None, per_group)
    peak = None
    if engine.device.startswith("cuda"):
        import torch

        peak = int(torch.cuda.max_memory_allocated(torch.device(engine.device)))
    checkpoint.unlink(missing_ok=True)
    return RunResult(
        root=root,
        steps=spec.steps,
        history=combine_logs(per_group),
        final=final,
        seconds=seconds,
        plan=plan,
        peak_bytes=peak,
        logs=per_group,
    )


def _swarm_output(state: gso.SwarmState, row: int) -> GSOOutput:
    """One swarm's glowworms of a host state, as its gso file records them."""
    return as_written(
        state.poses[row],
        state.luciferin[row],
        state.neighbors[row],
        state.vision_range[row],
        state.scores[row],
    )


@dataclass
class _GroupRun:
    """Where one group of swarms writes, and what it reports to."""

    checkpoint: Path
    spec: RunSpec
    done: list[int]
    group: tuple[int, ...]
    rng: gso.ExactRandom | gso.CounterRandom
    log: StepLog
    progress: _Progress
    finished_logs: list[StepLog]
    #: applied to the last step's state before it is written (exact re-scoring)
    finish: Any = None
    #: early stopping's record (None without it)
    stopping: _Stopping | None = None

    def save(self, state: gso.SwarmState) -> gso.SwarmState:
        """Write the group's gso files for this step and the checkpoint; returns the state
        as written (the last step's re-scored by ``finish``)."""
        if state.step == self.spec.steps and self.finish is not None:
            state = self.finish(state)
        save_outputs(self.checkpoint.parent, self.group, state)
        save_checkpoint(
            self.checkpoint,
            self.spec,
            self.done,
            self.group,
            state,
            self.rng.state(),
            [*self.finished_logs, self.log],
            None if self.stopping is None else self.stopping.rows(),
        )
        return state


@dataclass
class _Stopping:
    """Early stopping of one group: which swarms still run, and each one's best and mean
    score at the previous snapshot."""

    active: np.ndarray
    best: np.ndarray
    mean: np.ndarray

    @classmethod
    def start(cls, n: int, saved: np.ndarray | None) -> _Stopping:
        if saved is not None:
            return cls(saved[:, 0] > 0, saved[:, 1].copy(), saved[:, 2].copy())
        return cls(np.ones(n, dtype=bool), np.full(n, -np.inf), np.full(n, -np.inf))

    def rows(self) -> np.ndarray:
        return np.stack([self.active.astype(np.float64), self.best, self.mean], axis=1)

    def check(self, state: gso.SwarmState, spec: RunSpec) -> None:
        """At a snapshot: stop the running swarms that have converged (:func:`converged`)."""
        best, mean = state.scores.max(axis=1), state.scores.mean(axis=1)
        if spec.stop_min_steps <= state.step < spec.steps:
            done = converged(best, mean, self.best, self.mean, spec.stop_tolerance)
            self.active &= ~done
        self.best = np.where(self.active, best, self.best)
        self.mean = np.where(self.active, mean, self.mean)


def _log_row(state: gso.SwarmState, n: int) -> tuple[int, float, float, int]:
    return (state.step, float(state.scores.max()), float(state.scores.mean()), n)


def _finish_stopped(run: _GroupRun, state: gso.SwarmState) -> gso.SwarmState:
    """Every swarm of the group has stopped before the last step: the remaining steps would
    change nothing, so the last step's files are written now (each later snapshot too, as a
    run that stepped through would leave them)."""
    for step in range(state.step + 1, run.spec.steps + 1):
        state = replace(state, step=step, moved=np.zeros_like(state.moved))
        run.log.append(_log_row(state, len(run.group)))
        if step % SAVE_EVERY == 0 or step == run.spec.steps:
            state = run.save(state)
    return state


def _rows(state: gso.SwarmState, rows: np.ndarray) -> gso.SwarmState:
    """The state of some swarms (rows) only."""
    return replace(
        state,
        poses=state.poses[rows],
        luciferin=state.luciferin[rows],
        vision_range=state.vision_range[rows],
        neighbors=state.neighbors[rows],
        scores=state.scores[rows],
        moved=state.moved[rows],
    )


def _merged(state: gso.SwarmState, rows: np.ndarray, part: gso.SwarmState) -> gso.SwarmState:
    """``state`` one step on: ``rows`` from ``part`` (their step), the other swarms as they
    were (stopped: nothing moved)."""
    out = replace(
        state,
        step=part.step,
        poses=state.poses.copy(),
        luciferin=state.luciferin.copy(),
        vision_range=state.vision_range.copy(),
        neighbors=state.neighbors.copy(),
        scores=state.scores.copy(),
        moved=np.zeros_like(state.moved),
    )
    for name in ("poses", "luciferin", "vision_range", "neighbors", "scores", "moved"):
        getattr(out, name)[rows] = getattr(part, name)
    return out


def _run_group_host(
    run: _GroupRun, state: gso.SwarmState, score: Any, centre: np.ndarray, layout: PoseLayout
) -> gso.SwarmState:
    """One group's steps on the host; returns the last step's state."""
    steps, group = run.spec.steps, run.group
    stopping = run.stopping
    while state.step < steps:
        if stopping is None or stopping.active.all():
            state = gso.step(state, score, run.rng, centre, layout, run.spec.gso_params)
        else:  # only the running swarms step (each with its own draws, as in any group)
            rows = np.flatnonzero(stopping.active)
            rng = gso.CounterRandom(run.spec.seed, np.asarray(group)[rows])
            part = gso.step(_rows(state, rows), score, rng, centre, layout, run.spec.gso_params)
            state = _merged(state, rows, part)
        if stopping is not None and state.step % SAVE_EVERY == 0:
            stopping.check(state, run.spec)
            if not stopping.active.any() and state.step < steps:
                run.log.append(_log_row(state, len(group)))
                state = run.save(state)  # this snapshot, then the last step's files at once
                run.progress.advance(len(group) * (steps - state.step + 1))
                return _finish_stopped(run, state)
        run.log.append(_log_row(state, len(group)))
        if state.step % SAVE_EVERY == 0 or state.step == steps:
            state = run.save(state)
        run.progress.advance(len(group))
    return state


def _run_group_torch(
    run: _GroupRun, state: gso.SwarmState, scorer: Any, centre: np.ndarray, layout: PoseLayout
) -> gso.SwarmState:
    """One group's steps on the device: draws sent once per checkpoint interval, state
    fetched once per checkpoint; returns the last step's state (on the host)."""
    import torch

    from .gso_torch import DeviceSwarms

    steps, group = run.spec.steps, run.group
    stopping = run.stopping
    rows = np.arange(len(group))  # the swarms on the device (those still running)
    swarms = DeviceSwarms(state, scorer, centre, layout, run.spec.gso_params)
    n_glow = state.poses.shape[1]
    host = state
    while swarms.step_no < steps:
        first = swarms.step_no
        stop = min(steps, (first // SAVE_EVERY + 1) * SAVE_EVERY)
        rng = run.rng
        if len(rows) < len(group):  # the running swarms' own draws, as in any group
            rng = gso.CounterRandom(run.spec.seed, np.asarray(group)[rows])
        draws = np.stack([rng.selection_draws(t + 1, n_glow) for t in range(first, stop)])
        draws_dev = torch.as_tensor(draws, device=swarms.device)
        for i in range(stop - first):
            swarms.step(draws_dev[i])
        part = swarms.to_host()
        host = part if len(rows) == len(group) else _merged(host, rows, part)
        for i, (best, mean) in enumerate(swarms.take_history()):
            run.log.append((first + i + 1, best, mean, len(group)))
        if stopping is not None and host.step % SAVE_EVERY == 0:
            stopping.check(host, run.spec)
        host = run.save(host)
        run.progress.advance(len(group) * (stop - first))
        if stopping is not None and host.step < steps and stopping.active.sum() < len(rows):
            rows = np.flatnonzero(stopping.active)
            if len(rows) == 0:  # every swarm has stopped: the last step's files remain
                run.progress.advance(len(group) * (steps - host.step))
                host = _finish_stopped(run, host)
                break
            swarms = DeviceSwarms(_rows(host, rows), scorer, centre, layout, run.spec.gso_params)
    return host


def combine_logs(
    per_group: list[list[tuple[int, float, float, int]]],
) -> list[tuple[int, float, float]]:
    """Per step, best and mean score over every group that ran that step."""
    best: dict[int, float] = {}
    total: dict[int, tuple[float, int]] = {}
    for log in per_group:
        for step, b, m, n in log:
            best[step] = max(best.get(step, -np.inf), b)
            t, c = total.get(step, (0.0, 0))
            total[step] = (t + m * n, c + n)
    return [(s, best[s], total[s][0] / total[s][1]) for s in sorted(best)]
