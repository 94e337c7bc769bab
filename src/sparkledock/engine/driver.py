"""The run driver: one loop that runs the swarms of one or many setups in one process, with
numba threads, or over MPI ranks, and returns what ran as values.

A run is a list of jobs (a setup and the run's settings). The driver cuts them into tasks,
then every process takes tasks in turn and runs each with
:func:`sparkledock.engine.simulation.run_swarms`:

* one process: one task per setup, all its swarms (the memory plan groups them on torch);
  the setup's checkpoint resumes a killed run;
* MPI ranks: tasks of a few swarms, longest first by the cost model (:mod:`.costs`); ranks
  take the next task from a shared counter as they free up; swarms an earlier run finished
  (their done markers match) are skipped, so a killed run resumes; each rank's results go to
  rank 0 (and, for screens, to every rank).

Either way a swarm's trajectory depends only on its id and the run's settings, so the outputs
are byte-identical whatever ran beside it.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..backend import Engine
from ..errors import SparkledockError
from ..io.lightdock import read_poses
from ..molecule.system import DockingSetup
from ..seeds import DEFAULT_SEED, check_seed
from . import costs
from .checkpoint import starting_files, swarm_finished
from .context import RunContext, load_run_context
from .gso import GSOParameters
from .options import check_stop_tolerance
from .parallel import TaskCounter, rank_engine, share_error
from .simulation import RunResult, check_steps, check_swarms, merge_results, run_swarms
from .spec import CHECKPOINT, RunSpec


@dataclass(frozen=True)
class Job:
    """One setup's swarms to run: where, which, and with what settings."""

    root: Path
    spec: RunSpec
    #: skip swarms whose done marker says this run's settings finished them
    skip_finished: bool = False
    #: the loaded setup and scoring (loaded on first use when None)
    context: RunContext | None = None


@dataclass(frozen=True)
class Execution:
    """How the swarms run (not what they compute: that is the job's :class:`RunSpec`)."""

    engine: Engine
    threads: int | None = None
    quiet: bool = False
    memory_limit: int | None = None
    #: swarms per MPI task (default: one on the CPU, about four tasks per rank on torch)
    swarms_per_task: int | None = None
    #: return each swarm's final glowworms in the results (dock analyses them next)
    keep_final: bool = False


#: One task: (job index, swarm ids).
Task = tuple[int, tuple[int, ...]]


def run_simulation(
    setup: str | os.PathLike[str] | DockingSetup,
    steps: int,
    *,
    swarms: Sequence[int] | None = None,
    scoring: str = "dfire",
    seed: int = DEFAULT_SEED,
    exact: bool = False,
    scoring_mode: str = "exact",
    threads: int | None = None,
    quiet: bool = False,
    engine: Engine | None = None,
    memory_limit: int | None = None,
    comm: Any = None,
    swarms_per_task: int | None = None,
    keep_final: bool = False,
    gso_params: GSOParameters | None = None,
    stop_tolerance: float = 0.0,
) -> RunResult | None:
    """Run ``steps`` GSO steps on the swarms of a setup; returns what ran.

    Outputs go to the setup folder (``swarm_<id>/gso_<step>.out``, LightDock's layout); the
    result holds the score history, timings, the memory plan on torch and, with
    ``keep_final``, every swarm's final glowworms.

    Args:
        setup: the setup's folder or ``setup.json``, or a loaded setup.
        steps: GSO steps (LightDock's default is 100).
        swarms: swarm ids to run (default: all); only their starting files are needed.
        exact: LightDock's random stream (reproduces its trajectories); otherwise the
            counter-based stream, identical for any subset of swarms, thread or rank count.
        scoring_mode: ``exact``, or ``fast``: the search scores with the scoring function's
            fast path (DFIRE: a field on a grid) and the final glowworms are re-scored
            exactly, so the last gso files, rankings and models carry exact scores (earlier
            snapshots and the history carry fast scores); ``fast-flex``: the same with the
            receptor's normal modes as a local shift of the ligand.
        engine: where to run (default: numba on the CPU); with torch, the whole step runs on
            the device and swarms go in groups that fit its memory (see :mod:`.memory`).
        memory_limit: bytes the torch engine may use (default: 80 % of the free memory).
        comm: an MPI communicator: the swarms are shared among its ranks; rank 0 gets the
            result, the others None.
        swarms_per_task: under MPI, swarms a rank takes at a time.
        gso_params: the GSO constants and step sizes (default: LightDock's).
        stop_tolerance: > 0: a swarm stops once it has converged
            (:func:`sparkledock.engine.spec.converged`); not with ``exact``.

    Raises:
        SparkledockError: bad setup, missing starting file, bad swarm id (one line each, on
            every rank under MPI).
    """
    check_stop_tolerance(stop_tolerance)
    check_seed(seed)
    options = Execution(
        engine=engine or Engine(),
        threads=threads,
        quiet=quiet,
        memory_limit=memory_limit,
        swarms_per_task=swarms_per_task,
        keep_final=keep_final,
    )
    parallel = comm is not None and comm.Get_size() > 1

    def jobs() -> list[Job]:
        context = load_run_context(
            setup, scoring, scoring_mode, field_budget=memory_limit, quiet=quiet
        )
        ids = check_swarms(context, swarms)
        check_steps(context, steps)
        spec = RunSpec(
            steps,
            ids,
            scoring,
            int(seed),
            bool(exact),
            scoring_mode,
            gso_params or GSOParameters(),
            stop_tolerance=float(stop_tolerance),
        )
        return [Job(context.root, spec, skip_finished=parallel, context=context)]

    results = execute(jobs, options, comm, to_all=False)
    return None if results is None else results[0]


def run_setups(
    roots: Sequence[Path],
    steps: int,
    options: Execution,
    *,
    scoring: str,
    seed: int,
    scoring_mode: str = "exact",
    comm=None,
    stop_tolerance: float | Sequence[float] = 0.0,
) -> list[RunResult]:
    """Every unfinished swarm of several setups (a screen), fast mode; every rank gets every
    setup's result (without final states). Under MPI all swarms of all setups form one
    longest-first list taken by the ranks as they free up. ``stop_tolerance``: early stopping,
    one for all setups or one per setup."""
    tolerances = (
        [float(stop_tolerance)] * len(roots)
        if isinstance(stop_tolerance, (int, float))
        else [float(t) for t in stop_tolerance]
    )
    for tolerance in tolerances:
        check_stop_tolerance(tolerance)

    def jobs() -> list[Job]:
        return [
            Job(
                Path(root),
                RunSpec(
                    steps, (), scoring, int(seed), False, scoring_mode, stop_tolerance=tolerance
                ),
                skip_finished=True,
            )
            for root, tolerance in zip(roots, tolerances, strict=True)
        ]

    results = execute(jobs, replace(options, keep_final=False), comm, to_all=True)
    assert results is not None
    return results


def execute(
    make_jobs: Any, options: Execution, comm: Any = None, *, to_all: bool = False
) -> list[RunResult] | None:
    """Run jobs (``make_jobs()`` builds them, on rank 0 only under MPI) and return one result
    per job: to the caller, or under MPI to rank 0 (every rank with ``to_all``)."""
    parallel = comm is not None and comm.Get_size() > 1
    size = comm.Get_size() if parallel else 1
    engine = rank_engine(options.engine, comm) if parallel else options.engine
    options = replace(options, engine=engine)
    start = time.perf_counter()
    plan: Any = None
    try:
        jobs = make_jobs() if not parallel or comm.Get_rank() == 0 else []
        if not parallel or comm.Get_rank() == 0:
            plan = _plan_tasks(jobs, size, options)
    except SparkledockError as exc:
        if not parallel:
            raise
        plan = exc
    if parallel:
        plan = share_error(plan, comm)
    jobs, tasks, skipped, predicted = plan
    contexts = {i: job.context for i, job in enumerate(jobs) if job.context is not None}
    parts: list[tuple[int, RunResult]] = []
    busy = 0.0
    for number in _schedule(len(tasks), comm if parallel else None):
        index, ids = tasks[number]
        job = jobs[index]
        if index not in contexts:
            contexts[index] = load_run_context(job.root, job.spec.scoring, job.spec.scoring_mode)
        t0 = time.perf_counter()
        result = run_swarms(
            contexts[index],
            replace(job.spec, swarms=ids),
            engine=engine,
            threads=options.threads,
            quiet=options.quiet or parallel,
            memory_limit=options.memory_limit,
            checkpoint_name=f"sparkledock_run_{ids[0]}.npz" if parallel else CHECKPOINT,
            keep_final=options.keep_final,
        )
        busy += time.perf_counter() - t0
        parts.append((index, result))
        if parallel and comm.Get_rank() == 0 and not options.quiet:
            print(
                f"sparkledock run: task {number + 1}/{len(tasks)} started "
                f"({time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    gathered = [(parts, busy)]
    if parallel:
        gathered = comm.allgather((parts, busy)) if to_all else comm.gather((parts, busy), root=0)
        if gathered is None:
            return None
    busy_seconds = [b for _, b in gathered]
    results = []
    for index, job in enumerate(jobs):
        mine = [r for part, _ in gathered for i, r in part if i == index]
        fields = {
            "ranks": size,
            "skipped": skipped[index],
            "busy_seconds": busy_seconds,
            "wall_seconds": time.perf_counter() - start,
        }
        if mine:
            results.append(merge_results(mine, **fields))
        else:
            results.append(RunResult(job.root, job.spec.steps, [], {}, {}, tasks=0, **fields))
        if parallel and mine and (not to_all or comm.Get_rank() == 0):
            seconds = results[-1].seconds
            n_glow = predicted[index][1]
            costs.save_costs(job.root, job.spec.steps, n_glow, predicted[index][0], seconds)
    return results


def _plan_tasks(
    jobs: list[Job], size: int, options: Execution
) -> tuple[list[Job], list[Task], list[int], list[tuple[dict[int, float], int]]]:
    """Tasks for ``size`` processes, skipped swarm counts, and per job the predicted costs
    and glowworm count (what the costs file records). One process: a task per job, in
    order. MPI: tasks of a few swarms of one job, longest first over all jobs."""
    todo_per_job, skipped = [], []
    for job in jobs:
        ids = job.spec.swarms
        if not ids:  # (a screen: every swarm of the setup)
            context = job.context or load_run_context(job.root, job.spec.scoring)
            ids = tuple(range(context.setup.n_swarms))
        todo = [s for s in ids if not (job.skip_finished and swarm_finished(job.root, s, job.spec))]
        todo_per_job.append(todo)
        skipped.append(len(ids) - len(todo))
    if size == 1:
        tasks = [(i, tuple(todo)) for i, todo in enumerate(todo_per_job) if todo]
        return jobs, tasks, skipped, [({}, 0) for _ in jobs]
    listed: list[tuple[float, int, int]] = []
    predicted = []
    for index, (job, todo) in enumerate(zip(jobs, todo_per_job, strict=True)):
        if not todo:
            predicted.append(({}, 0))
            continue
        context = job.context or load_run_context(job.root, job.spec.scoring)
        n_glow = _glowworms(context, todo[0], job.spec.exact)
        guess = costs.predicted(context, todo, n_glow, job.spec.steps)
        order = costs.swarm_costs(context, todo, n_glow, job.spec.steps)
        predicted.append((dict(zip(todo, guess.tolist(), strict=True)), n_glow))
        listed.extend((float(c), index, s) for c, s in zip(order, todo, strict=True))
    listed.sort(key=lambda t: -t[0])
    total = len(listed)
    per = options.swarms_per_task or (max(1, total // (4 * size)) if options.engine.on_torch else 1)
    tasks: list[Task] = []
    open_tasks: dict[int, list[int]] = {}
    for _, index, swarm in listed:  # consecutive swarms of one job share a task
        current = open_tasks.setdefault(index, [])
        current.append(swarm)
        if len(current) == per:
            tasks.append((index, tuple(current)))
            open_tasks[index] = []
    tasks.extend((index, tuple(rest)) for index, rest in open_tasks.items() if rest)
    if len(jobs) > 1:  # a screen: ranks load each setup themselves
        jobs = [replace(job, context=None) for job in jobs]
    return jobs, tasks, skipped, predicted


def _glowworms(context: RunContext, swarm: int, exact: bool) -> int:
    n_swarms = context.setup.n_swarms
    path = starting_files(context.root, n_swarms, [swarm], exact)[swarm]
    return len(read_poses(path, context.setup.layout))


def _schedule(count: int, comm: Any) -> Iterator[int]:
    """Task numbers this process runs: all in order, or under MPI the next one left each
    time it asks (a shared counter on rank 0)."""
    if comm is None:
        yield from range(count)
        return
    counter = TaskCounter(comm)
    try:
        while (number := counter.next()) < count:
            yield number
    finally:
        counter.free()
