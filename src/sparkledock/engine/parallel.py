"""MPI plumbing for the run driver: the world communicator, errors shared from rank 0, a task
counter every rank increments atomically, and one GPU per rank.

Swarms never interact and each has its own random stream, so a swarm's trajectory is the same
whichever rank runs it and whatever runs beside it: outputs are byte-identical to a
single-process run for any number of ranks. The scheduling itself (longest first, ranks taking
the next task as they free up) is in :mod:`sparkledock.engine.driver`; the cost model that
orders the tasks in :mod:`sparkledock.engine.costs`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import numpy as np

from ..backend import Engine
from ..errors import SparkledockError


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


class TaskCounter:
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


def rank_engine(engine: Engine, comm: Any) -> Engine:
    """On CUDA, ranks on one node take devices round-robin by their node-local rank."""
    if not engine.device.startswith("cuda"):
        return engine
    import torch
    from mpi4py import MPI

    local = comm.Split_type(MPI.COMM_TYPE_SHARED).Get_rank()
    count = max(torch.cuda.device_count(), 1)
    return replace(engine, device=f"cuda:{local % count}")
