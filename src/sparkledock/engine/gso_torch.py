"""The GSO step resident on a PyTorch device: scoring, neighbour search, selection and
movement of every glowworm of a group of swarms, with no host round trip inside a step.

The step is :func:`sparkledock.engine.gso.advance`, the same code the host runs, here on tensors
with the dense selection rule (:func:`sparkledock.engine.gso.select`). Fast mode only: the
counter-based draws, which the host makes for a whole checkpoint interval at once and sends
in one transfer.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import torch

from ..molecule.pose import PoseLayout
from ..scoring import DeviceScorer
from .gso import GSOParameters, SwarmState, advance, select


class DeviceSwarms:
    """A group of swarms' GSO state on the device; :meth:`step` advances all of them."""

    def __init__(
        self,
        state: SwarmState,
        scorer: DeviceScorer,
        reference_point: np.ndarray,
        layout: PoseLayout,
        params: GSOParameters | None = None,
    ) -> None:
        dev = torch.device(scorer.engine.device)

        def put(a: np.ndarray, dtype: torch.dtype) -> torch.Tensor:
            return torch.as_tensor(np.ascontiguousarray(a), device=dev).to(dtype)

        self.scorer, self.layout, self.params = scorer, layout, params or GSOParameters()
        self.state = replace(
            state,
            poses=put(state.poses, torch.float64),
            luciferin=put(state.luciferin, torch.float64),
            vision_range=put(state.vision_range, torch.float64),
            neighbors=put(state.neighbors, torch.int64),
            scores=put(state.scores, torch.float64),
            moved=put(state.moved, torch.bool),
        )
        self.point = torch.as_tensor(reference_point, dtype=torch.float64, device=dev)
        self.best: list[torch.Tensor] = []  # per step (best, mean) scores, kept on the device
        self.mean: list[torch.Tensor] = []

    @property
    def step_no(self) -> int:
        return self.state.step

    @property
    def device(self) -> torch.device:
        return self.state.poses.device

    def step(self, draws: torch.Tensor) -> None:
        """One GSO step with this step's (S, G) selection draws (already on the device)."""
        self.state, _ = advance(
            self.state,
            self.scorer.score,
            draws,
            self.point,
            self.layout,
            self.params,
            choose=select,
            count_discards=False,
        )
        self.best.append(self.state.scores.amax())
        self.mean.append(self.state.scores.mean())

    def to_host(self) -> SwarmState:
        """The state as NumPy arrays (one transfer; used at checkpoints)."""
        s = self.state
        return replace(
            s,
            poses=s.poses.cpu().numpy(),
            luciferin=s.luciferin.cpu().numpy(),
            vision_range=s.vision_range.cpu().numpy(),
            neighbors=s.neighbors.cpu().numpy(),
            scores=s.scores.cpu().numpy(),
            moved=s.moved.cpu().numpy(),
        )

    def take_history(self) -> list[tuple[float, float]]:
        """(best, mean) score of the steps since the last call, fetched in one transfer."""
        if not self.best:
            return []
        both = torch.stack([torch.stack(self.best), torch.stack(self.mean)], dim=1).cpu()
        self.best, self.mean = [], []
        return [(float(b), float(m)) for b, m in both.tolist()]
