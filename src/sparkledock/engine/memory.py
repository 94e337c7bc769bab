"""How much runs at once: a memory model for swarm groups on a device.

A run's device memory is the scoring model (receptor and ligand tiles, the table), a fixed
scoring workspace (pose batches and tile-pair chunks are cut to fit it, so it does not grow
with the problem), and per swarm its state and the dense selection temporaries, which grow as
glowworms². Swarms are independent, so when not all of them fit, they run in groups one after
another, with identical results (each swarm's random stream is its own).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..backend import Engine, host_available_bytes
from ..errors import OutOfMemoryError


def swarm_bytes(n_glow: int, pose_size: int) -> int:
    """Device bytes of one swarm during a step: state and move temporaries (about ten pose
    arrays) plus selection, about eleven (G, G) arrays of 8 bytes (distances, differences,
    running sums, masks)."""
    state = n_glow * pose_size * 8 * 10 + n_glow * 8 * 12
    selection = n_glow * n_glow * 8 * 11
    return state + selection


def free_bytes(engine: Engine) -> int:
    """Free memory of the engine's device (CUDA: as the driver reports; CPU: available RAM)."""
    if engine.device.startswith("cuda"):
        import torch

        free, _total = torch.cuda.mem_get_info(torch.device(engine.device))
        return int(free)
    return host_available_bytes()


@dataclass(frozen=True)
class MemoryPlan:
    """Swarms per group and the model's prediction of the peak (bytes)."""

    swarms_per_group: int
    n_groups: int
    model_bytes: int
    workspace_bytes: int
    per_swarm_bytes: int
    budget_bytes: int

    @property
    def predicted_peak(self) -> int:
        return (
            self.model_bytes + self.workspace_bytes + self.swarms_per_group * self.per_swarm_bytes
        )

    def describe(self) -> str:
        mib = 2**20
        return (
            f"{self.n_groups} group(s) of up to {self.swarms_per_group} swarms; predicted peak "
            f"{self.predicted_peak / mib:.0f} MiB (model {self.model_bytes / mib:.0f} MiB) of "
            f"{self.budget_bytes / mib:.0f} MiB budget"
        )


def plan_groups(
    n_swarms: int,
    n_glow: int,
    pose_size: int,
    *,
    model_bytes: int,
    workspace_bytes: int,
    budget_bytes: int,
) -> MemoryPlan:
    """Largest group of swarms that fits ``budget_bytes``, and how many groups that makes.

    Raises:
        OutOfMemoryError: not even one swarm fits (the message says how much is needed; it is
            a MemoryError and a SparkledockError, so the command line prints it in one line).
    """
    per = swarm_bytes(n_glow, pose_size)
    room = budget_bytes - model_bytes - workspace_bytes
    if room < per:
        need = (model_bytes + workspace_bytes + per) / 2**20
        raise OutOfMemoryError(
            f"one swarm of {n_glow} glowworms needs {need:.0f} MiB, only "
            f"{budget_bytes / 2**20:.0f} MiB available (use fewer glowworms, or the numba "
            "backend)"
        )
    size = max(1, min(n_swarms, room // per))
    return MemoryPlan(
        swarms_per_group=int(size),
        n_groups=-(-n_swarms // int(size)),
        model_bytes=model_bytes,
        workspace_bytes=workspace_bytes,
        per_swarm_bytes=per,
        budget_bytes=budget_bytes,
    )
