"""Swarms over MPI ranks: a cost model, longest-first dynamic scheduling, identical outputs.

Swarms never interact and each has its own random stream, so a swarm's trajectory is the same
whichever rank runs it and whatever runs beside it: outputs are byte-identical to a
single-process run for any number of ranks.

* Cost model: a swarm's work is the atom pairs its glowworms examine, predicted as the
  receptor atoms within (ligand radius + 15 Å) of the swarm centre, times ligand atoms,
  glowworms and steps. Measured seconds per swarm are saved (``sparkledock_costs.json``) and
  replace the prediction in later runs of the same setup (the model refined by measurement).
* Scheduling: tasks (one swarm, or a few on a GPU) sorted longest first; ranks take the next
  task from a shared counter (one MPI one-sided fetch-and-add on rank 0), so a rank that
  finishes early takes remaining work. With GPUs, each rank on a node uses its own device.
* The setup is loaded once on rank 0 and broadcast; swarms already finished (their
  ``sparkledock_done.json`` matches the run) are skipped, so a killed run resumes.
"""

from __future__ import annotations

import heapq
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from .backend import Engine
from .errors import InputFileError, SparkledockError
from .fileutil import atomic_write_text
from .io.lightdock import read_poses
from .io.setupdir import SetupDir
from .seeds import DEFAULT_SEED
from .simulation import (
    RunContext,
    RunSpec,
    combine_logs,
    load_run_context,
    run_simulation,
    swarm_finished,
)


def mpi_world() -> Any | None:
    """``MPI.COMM_WORLD`` when this process was started by an MPI launcher with more than one
    rank (and mpi4py is installed); otherwise None (a plain single-process run)."""
    launched = any(
        int(os.environ.get(v, "1")) > 1
        for v in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS")
    )
    if not launched:
        return None
    try:
        from mpi4py import MPI
    except ImportError:
        raise SparkledockError(
            "started under MPI but mpi4py is missing: pip install 'sparkledock[mpi]'"
        ) from None
    return MPI.COMM_WORLD if MPI.COMM_WORLD.Get_size() > 1 else None


def swarm_centres(root: Path, layout, ids: Sequence[int]) -> np.ndarray:
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


def _known_costs(root: Path, spec: RunSpec, n_glow: int) -> dict[int, float]:
    """Measured seconds per swarm from an earlier run of this setup with the same steps."""
    try:
        data = json.loads(SetupDir(root).costs.read_text())
    except (OSError, ValueError):
        return {}
    if data.get("steps") != spec.steps or data.get("glowworms") != n_glow:
        return {}
    return {int(k): float(v["seconds"]) for k, v in data.get("swarms", {}).items()}


def share_error(value: Any, comm: Any) -> Any:
    """Broadcast rank 0's result; if it is an error, raise it on every rank, marked
    ``shared`` (every rank stops by itself, no abort needed) and, except on rank 0, ``echo``
    (so that the line is printed once)."""
    value = comm.bcast(value, root=0)
    if isinstance(value, SparkledockError):
        value.shared = True
        value.echo = comm.Get_rank() != 0
        raise value
    return value


class _Counter:
    """A task counter on rank 0 that every rank increments atomically (MPI one-sided)."""

    def __init__(self, comm: Any) -> None:
        from mpi4py import MPI

        self.MPI = MPI
        itemsize = MPI.INT64_T.Get_size()
        self.win = MPI.Win.Allocate(itemsize if comm.Get_rank() == 0 else 0, itemsize, comm=comm)
        if comm.Get_rank() == 0:
            self.win.Lock(0)
            np.frombuffer(self.win.tomemory(), dtype=np.int64)[0] = 0
            self.win.Unlock(0)
        comm.Barrier()

    def next(self) -> int:
        one = np.ones(1, dtype=np.int64)
        got = np.zeros(1, dtype=np.int64)
        self.win.Lock(0)
        self.win.Fetch_and_op(one, got, 0, 0, self.MPI.SUM)
        self.win.Unlock(0)
        return int(got[0])

    def free(self) -> None:
        self.win.Free()


@dataclass
class ParallelReport:
    """What rank 0 learns about a distributed run."""

    ranks: int
    tasks: int
    skipped: int
    wall_seconds: float
    busy_seconds: list[float]
    history: list[tuple[int, float, float]]

    @property
    def imbalance(self) -> float:
        return imbalance(np.array(self.busy_seconds)) if self.busy_seconds else 1.0


def rank_engine(engine: Engine, comm: Any) -> Engine:
    """On CUDA, ranks on one node take devices round-robin by their node-local rank."""
    if not engine.device.startswith("cuda"):
        return engine
    import torch
    from mpi4py import MPI

    local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    count = max(torch.cuda.device_count(), 1)
    return replace(engine, device=f"cuda:{local % count}")


@dataclass
class _TaskRun:
    """What one rank did: (setup index, swarms, seconds) per task, step logs, busy time."""

    timings: list[tuple[int, list[int], float]]
    logs: list[tuple[int, list[tuple[int, float, float, int]]]]
    busy: float


def _take_tasks(
    comm: Any,
    tasks: list[tuple[int, list[int]]],
    roots: Sequence[Path],
    contexts: dict[int, RunContext],
    steps: int,
    quiet: bool,
    **run_options: Any,
) -> _TaskRun:
    """Take tasks from the shared counter until none are left (longest first: ``tasks`` is
    sorted), running each with :func:`run_simulation`; contexts are loaded once per setup."""
    done = _TaskRun([], [], 0.0)
    start = time.perf_counter()
    counter = _Counter(comm)
    try:
        while (i := counter.next()) < len(tasks):
            index, swarms = tasks[i]
            if index not in contexts:
                contexts[index] = load_run_context(
                    roots[index], run_options.get("scoring", "dfire")
                )
            history: list[tuple[int, float, float]] = []
            t0 = time.perf_counter()
            run_simulation(
                roots[index],
                steps,
                swarms=swarms,
                quiet=True,
                history=history,
                context=contexts[index],
                checkpoint_name=f"sparkledock_run_{swarms[0]}.npz",
                **run_options,
            )
            seconds = time.perf_counter() - t0
            done.busy += seconds
            done.timings.append((index, swarms, seconds))
            done.logs.append((index, [(s, b, m, len(swarms)) for s, b, m in history]))
            if comm.Get_rank() == 0 and not quiet:
                print(
                    f"sparkledock run: task {i + 1}/{len(tasks)} started "
                    f"({time.perf_counter() - start:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        counter.free()
    return done


def run_parallel(
    setup_json: str | os.PathLike[str],
    steps: int,
    comm: Any,
    *,
    swarms: Sequence[int] | None = None,
    scoring: str = "dfire",
    seed: int = DEFAULT_SEED,
    exact: bool = False,
    threads: int | None = None,
    engine: Engine | None = None,
    swarms_per_task: int | None = None,
    quiet: bool = False,
) -> ParallelReport | None:
    """Run a setup's swarms over the ranks of ``comm``; rank 0 gets the report, others None.

    ``swarms_per_task``: swarms a rank takes at a time; by default one on the CPU and, on
    torch, enough for about four tasks per rank (a GPU wants many glowworms at once).

    Raises:
        SparkledockError: on every rank, when rank 0 finds bad input (one line).
    """
    rank, size = comm.Get_rank(), comm.Get_size()
    engine = rank_engine(engine or Engine(), comm)
    start = time.perf_counter()
    plan: Any = None
    if rank == 0:
        try:
            context = load_run_context(setup_json, scoring)
            n_swarms = int(context.setup.config.get("swarms", 0))
            ids = list(range(n_swarms)) if swarms is None else [int(s) for s in swarms]
            bad = [s for s in ids if not 0 <= s < n_swarms]
            if bad or not ids:
                raise InputFileError(
                    f"{context.root / 'setup.json'}: swarm {bad[0] if bad else '(none)'} is not "
                    f"in 0..{n_swarms - 1}"
                )
            spec = RunSpec(steps, tuple(ids), scoring, int(seed), bool(exact))
            todo = [s for s in ids if not swarm_finished(context.root, s, spec)]
            n_glow = len(read_poses(SetupDir(context.root).start(ids[0]), context.setup.layout))
            centres = swarm_centres(context.root, context.setup.layout, todo)
            predicted = predicted_costs(context, centres, n_glow, steps) if todo else np.zeros(0)
            known = _known_costs(context.root, spec, n_glow)
            if todo and all(s in known for s in todo):
                costs = np.array([known[s] for s in todo])
            else:
                costs = predicted
            order = [todo[i] for i in np.argsort(-costs, kind="stable")]
            per = swarms_per_task or (max(1, len(todo) // (4 * size)) if engine.on_torch else 1)
            tasks = [order[i : i + per] for i in range(0, len(order), per)]
            plan = (
                context,
                tasks,
                len(ids) - len(todo),
                dict(zip(todo, predicted.tolist(), strict=True)),
                n_glow,
            )
        except SparkledockError as exc:
            plan = exc
    plan = share_error(plan, comm)
    context, tasks, skipped, predicted, n_glow = plan
    done = _take_tasks(
        comm,
        [(0, task) for task in tasks],
        [context.root],
        {0: context},
        steps,
        quiet,
        scoring=scoring,
        seed=seed,
        exact=exact,
        threads=threads,
        engine=engine,
    )
    gathered = comm.gather(done, root=0)
    if rank != 0:
        return None
    measured = {
        s: seconds / len(swarms)
        for part in gathered
        for _, swarms, seconds in part.timings
        for s in swarms
    }
    _save_costs(context.root, steps, n_glow, predicted, measured)
    return ParallelReport(
        ranks=size,
        tasks=len(tasks),
        skipped=skipped,
        wall_seconds=time.perf_counter() - start,
        busy_seconds=[part.busy for part in gathered],
        history=combine_logs([log for part in gathered for _, log in part.logs]),
    )


def _save_costs(
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


def run_tasks(setups: Sequence[Path], options: Any, comm: Any = None) -> list[list[tuple]]:
    """Run every unfinished swarm of several setups (a screen); per setup, the history
    ``(step, best, mean)`` of what ran. Under MPI all swarms of all setups form one
    longest-first list taken by the ranks as they free up; every rank gets the histories.

    ``options`` is a :class:`sparkledock.docking.DockOptions` (steps, seed, threads, engine).
    """
    steps, seed, scoring = options.steps, options.seed, options.scoring
    spec = RunSpec(steps, (), scoring, int(seed), False)
    if comm is None or comm.Get_size() == 1:
        histories = []
        for root in setups:
            context = load_run_context(root, scoring)
            n = int(context.setup.config.get("swarms", 0))
            todo = [s for s in range(n) if not swarm_finished(root, s, spec)]
            history: list[tuple[int, float, float]] = []
            if todo:
                run_simulation(
                    root,
                    steps,
                    swarms=todo,
                    scoring=scoring,
                    seed=seed,
                    threads=options.threads,
                    quiet=options.quiet,
                    history=history,
                    engine=options.engine,
                    context=context,
                )
            histories.append(history)
        return histories
    rank = comm.Get_rank()
    engine = rank_engine(options.engine or Engine(), comm)
    tasks: Any = None
    if rank == 0:
        try:
            listed = []
            for index, root in enumerate(setups):
                context = load_run_context(root, scoring)
                n = int(context.setup.config.get("swarms", 0))
                todo = [s for s in range(n) if not swarm_finished(root, s, spec)]
                if not todo:
                    continue
                init = SetupDir(root).start(todo[0])
                n_glow = len(read_poses(init, context.setup.layout))
                centres = swarm_centres(root, context.setup.layout, todo)
                costs = predicted_costs(context, centres, n_glow, steps)
                listed.extend((float(c), index, s) for c, s in zip(costs, todo, strict=True))
            listed.sort(key=lambda t: -t[0])
            tasks = [(index, [swarm]) for _, index, swarm in listed]
        except SparkledockError as exc:
            tasks = exc
    tasks = share_error(tasks, comm)
    done = _take_tasks(
        comm,
        tasks,
        list(setups),
        {},
        steps,
        True,
        scoring=scoring,
        seed=seed,
        threads=options.threads,
        engine=engine,
    )
    per_setup: list[list[list[tuple[int, float, float, int]]]] = [[] for _ in setups]
    for part in comm.allgather(done.logs):
        for index, log in part:
            per_setup[index].append(log)
    return [combine_logs(logs) for logs in per_setup]
