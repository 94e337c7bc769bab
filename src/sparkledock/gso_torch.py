"""The GSO step resident on a PyTorch device: scoring, neighbour search, selection and
movement of every glowworm of a group of swarms, with no host round trip inside a step.

Same semantics as :func:`sparkledock.gso.step` (fast mode: the counter-based draws, which the
host makes for a whole checkpoint interval at once and sends in one transfer). Selection is
dense over (swarms, glowworms, glowworms): neighbour mask, luciferin differences, and the
running probability as a cumulative sum in neighbour order, the order of LightDock's loop.
"""

from __future__ import annotations

import numpy as np
import torch

from .gso import LINEAR_THRESHOLD, QUATERNION_EQ_TOL, ZERO_NORM, GSOParameters, SwarmState
from .pose import PoseLayout
from .pose import rotate_lightdock as rotate
from .scoring import DeviceScorer


def select(
    lum: torch.Tensor, vision: torch.Tensor, refs: torch.Tensor, draws: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Chosen neighbour (own index when none) and neighbour count for (S, G) glowworms."""
    n_glow = lum.shape[1]
    li, lj = lum[:, :, None], lum[:, None, :]
    d = refs[:, :, None, :] - refs[:, None, :, :]
    d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
    not_self = ~torch.eye(n_glow, dtype=torch.bool, device=lum.device)
    nbr = not_self & (li < lj) & (d2 < (vision * vision)[:, :, None])
    count = nbr.sum(dim=-1)
    diff = torch.where(nbr, lj - li, 0.0)
    total = torch.cumsum(diff, dim=-1)[..., -1:]
    running = torch.cumsum(diff / torch.where(total > 0, total, 1.0), dim=-1)
    reached = nbr & (running >= draws[..., None])
    first = reached.to(torch.int8).argmax(dim=-1)
    last = n_glow - 1 - nbr.flip(-1).to(torch.int8).argmax(dim=-1)
    own = torch.arange(n_glow, device=lum.device).expand_as(lum)
    pick = torch.where(reached.any(dim=-1) & (draws > 0), first, last)
    return torch.where(count > 0, pick, own), count


def _step_towards(current: torch.Tensor, target: torch.Tensor, size: float) -> torch.Tensor:
    delta = target - current
    norm = torch.sqrt((delta * delta).sum(dim=-1))
    move = norm > ZERO_NORM
    scaled = delta * (size / torch.where(move, norm, 1.0))[..., None]
    return torch.where(move[..., None], current + scaled, current)


def _slerp(q: torch.Tensor, r: torch.Tensor, t: float) -> torch.Tensor:
    q = q / torch.sqrt((q * q).sum(dim=-1, keepdim=True))
    r = r / torch.sqrt((r * r).sum(dim=-1, keepdim=True))
    dot = (q * r).sum(dim=-1)
    flip = dot < 0
    q = torch.where(flip[..., None], -q, q)
    dot = torch.where(flip, -dot, dot)
    linear = q + t * (r - q)
    omega = torch.arccos(torch.clip(dot, -1.0, 1.0))
    so = torch.sin(omega)
    so = torch.where(so == 0, 1.0, so)
    spherical = (torch.sin((1.0 - t) * omega) / so)[..., None] * q + (torch.sin(t * omega) / so)[
        ..., None
    ] * r
    return torch.where((dot > LINEAR_THRESHOLD)[..., None], linear, spherical)


def _equal(a: torch.Tensor, b: torch.Tensor, layout: PoseLayout) -> torch.Tensor:
    rot = layout.rotation
    same_t = (a[..., layout.translation] == b[..., layout.translation]).all(dim=-1)
    same_q = ((a[..., rot] - b[..., rot]).abs() < QUATERNION_EQ_TOL).all(dim=-1)
    same_e = (a[..., rot.stop :] == b[..., rot.stop :]).all(dim=-1)
    return same_t & same_q & same_e


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

        def put(a: np.ndarray) -> torch.Tensor:
            return torch.as_tensor(np.ascontiguousarray(a), device=dev)

        self.scorer, self.layout, self.params = scorer, layout, params or GSOParameters()
        self.step_no = state.step
        self.poses = put(state.poses).to(torch.float64)
        self.luciferin = put(state.luciferin).to(torch.float64)
        self.vision = put(state.vision_range).to(torch.float64)
        self.neighbors = put(state.neighbors).to(torch.int64)
        self.scores = put(state.scores).to(torch.float64)
        self.moved = put(state.moved).to(torch.bool)
        self.point = torch.as_tensor(reference_point, dtype=torch.float64, device=dev)
        self.best = []  # per step (best, mean) scores, kept on the device
        self.mean = []

    def step(self, draws: torch.Tensor) -> None:
        """One GSO step with this step's (S, G) selection draws (already on the device)."""
        lay, prm = self.layout, self.params
        todo = self.moved if self.step_no > 0 else torch.ones_like(self.moved)
        flat = self.poses.reshape(-1, lay.size)
        idx = torch.nonzero(todo.reshape(-1), as_tuple=True)[0]
        scores = self.scores.reshape(-1).clone()
        scores[idx] = self.scorer.score(flat[idx])
        scores = scores.view_as(self.scores)
        lum = (1.0 - prm.rho) * self.luciferin + prm.gamma * scores

        refs = rotate(self.poses[..., lay.rotation], self.point.expand(*self.poses.shape[:2], 3))
        refs = refs + self.poses[..., lay.translation]
        chosen, count = select(lum, self.vision, refs, draws)

        own = torch.arange(self.poses.shape[1], device=chosen.device)[None, :]
        has = chosen != own
        targets = torch.gather(self.poses, 1, chosen[..., None].expand_as(self.poses))
        stay = ~has | _equal(self.poses, targets, lay)
        new = self.poses.clone()
        t = lay.translation
        new[..., t] = _step_towards(self.poses[..., t], targets[..., t], prm.translation_step)
        new[..., lay.rotation] = _slerp(
            self.poses[..., lay.rotation], targets[..., lay.rotation], prm.rotation_step
        )
        for part in (lay.rec_extents, lay.lig_extents):
            if part.stop > part.start:
                new[..., part] = _step_towards(
                    self.poses[..., part], targets[..., part], prm.nmodes_step
                )
        self.poses = torch.where(stay[..., None], self.poses, new)
        self.vision = torch.clamp(
            self.vision + prm.beta * (prm.max_neighbors - count), 0.0, prm.max_vision_range
        )
        self.luciferin, self.neighbors, self.scores, self.moved = lum, count, scores, has
        self.step_no += 1
        self.best.append(scores.amax())
        self.mean.append(scores.mean())

    def to_host(self) -> SwarmState:
        """The state as NumPy arrays (one transfer; used at checkpoints)."""
        return SwarmState(
            step=self.step_no,
            poses=self.poses.cpu().numpy(),
            luciferin=self.luciferin.cpu().numpy(),
            vision_range=self.vision.cpu().numpy(),
            neighbors=self.neighbors.cpu().numpy(),
            scores=self.scores.cpu().numpy(),
            moved=self.moved.cpu().numpy(),
        )

    def take_history(self) -> list[tuple[float, float]]:
        """(best, mean) score of the steps since the last call, fetched in one transfer."""
        if not self.best:
            return []
        both = torch.stack([torch.stack(self.best), torch.stack(self.mean)], dim=1).cpu()
        self.best, self.mean = [], []
        return [(float(b), float(m)) for b, m in both.tolist()]
