"""Glowworm Swarm Optimization over every swarm and glowworm as arrays.

The state of a run is a handful of arrays of shape (swarms, glowworms, ...); :func:`advance`
moves all of them one step at once, rescoring only glowworms that moved. It is written once,
against the array API (``array_api_compat``), and runs on NumPy arrays (:func:`step`, with the
selection as numba loops) and on torch tensors resident on a device
(:class:`sparkledock.engine.gso_torch.DeviceSwarms`, with the dense selection). The semantics are
LightDock 0.9.4's, operation for operation where it matters for exactness:

1. Score every glowworm that moved in the previous step (all at step 1);
   ``l = (1 − rho)·l + gamma·score``.
2. Selection, before anyone moves: neighbours of ``i`` are the glowworms ``j ≠ i`` with
   ``l_i < l_j`` whose ligand reference points are closer than ``i``'s vision range; one
   uniform draw ``r`` picks the first neighbour whose running probability sum reaches ``r``
   (``r = 0`` picks the last neighbour, as LightDock's loop does).
3. Movement toward a copy of the chosen neighbour's pose taken before anyone moved:
   translation by a fixed step, rotation by SLERP (LightDock's near-parallel branch returns the
   un-normalised linear blend), each extents vector by a fixed step; a glowworm whose new pose
   differs from its neighbour's current pose consumes two more draws (LightDock draws and
   discards them); ``r_v = min(5, max(0, r_v + beta·(nt − |neighbours|)))``.

Random numbers in exact mode come from one Mersenne Twister per swarm, seeded like Python's
``random.Random(seed)`` and drawn in bulk through NumPy's ``RandomState`` (same generator, same
doubles): per step one draw per glowworm, then two per glowworm that moved. The fast (default)
mode draws from a counter-based generator keyed by (seed, swarm, step), so a glowworm's draw
never depends on what else runs beside it.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from array_api_compat import array_namespace
from array_api_compat import device as array_device
from numba import njit, prange

from ..molecule.pose import PoseLayout, rotate_lightdock

#: LightDock's SLERP switches to a linear blend above this quaternion dot product.
LINEAR_THRESHOLD = 0.9995
#: LightDock compares quaternion components with this tolerance when testing pose equality.
QUATERNION_EQ_TOL = 1e-7
#: ``np.allclose([0], [n])`` in LightDock: a step is taken only for norms above this.
ZERO_NORM = 1e-8


#: A NumPy array or a torch tensor: the step is written once for both (array API).
Array = Any


@dataclass(frozen=True)
class GSOParameters:
    """GSO constants (LightDock's defaults, ``glowworm.conf``)."""

    rho: float = 0.4
    gamma: float = 0.6
    beta: float = 0.08
    initial_luciferin: float = 5.0
    initial_vision_range: float = 0.2
    max_vision_range: float = 5.0
    max_neighbors: int = 5
    translation_step: float = 0.5
    rotation_step: float = 0.5
    nmodes_step: float = 0.5
    #: minimise each swarm's best glowworm every step (LightDock's ``-min``; host only)
    local_minimization: bool = False


@dataclass(frozen=True)
class SwarmState:
    """Every swarm's glowworms at one step: poses (S, G, D) and per-glowworm (S, G) arrays
    (NumPy on the host, tensors on a torch device)."""

    step: int
    poses: Array
    luciferin: Array
    vision_range: Array
    neighbors: Array
    scores: Array
    moved: Array


def initial_state(poses: np.ndarray, params: GSOParameters = GSOParameters()) -> SwarmState:
    """Step-0 state for starting poses (S, G, D): initial luciferin and vision range."""
    poses = np.array(poses, dtype=np.float64)
    shape = poses.shape[:2]
    return SwarmState(
        step=0,
        poses=poses,
        luciferin=np.full(shape, params.initial_luciferin),
        vision_range=np.full(shape, params.initial_vision_range),
        neighbors=np.zeros(shape, dtype=np.int64),
        scores=np.zeros(shape),
        moved=np.ones(shape, dtype=bool),
    )


class ExactRandom:
    """LightDock's random stream: one Mersenne Twister per swarm, all seeded with ``seed``.

    ``random.Random(seed)`` seeds the generator; its state moves into a NumPy ``RandomState``
    which then yields the same doubles as ``Random.random()``, in bulk. Its position depends on
    the history of draws, so :meth:`state` / :meth:`restore` carry it through checkpoints.
    """

    def __init__(self, seed: int, n_swarms: int, functions: int = 1) -> None:
        #: scoring functions of the run: LightDock draws its two unused conformer ids once
        #: per function (one landscape position each) for every glowworm that moves
        self.functions = int(functions)
        state = random.Random(seed).getstate()[1]
        key, pos = np.array(state[:-1], dtype=np.uint32), int(state[-1])
        self.generators = []
        for _ in range(n_swarms):
            gen = np.random.RandomState()
            gen.set_state(("MT19937", key, pos))
            self.generators.append(gen)

    def draw(self, swarm: int, count: int) -> np.ndarray:
        """The next ``count`` uniforms in [0, 1) of one swarm's stream."""
        return self.generators[swarm].random_sample(count)

    def selection_draws(self, step: int, n_glow: int) -> np.ndarray:
        """One uniform per glowworm and swarm for the selection of step ``step`` (S, G)."""
        return np.stack([self.draw(s, n_glow) for s in range(len(self.generators))])

    def discard(self, counts: np.ndarray) -> None:
        """Consume ``counts[s]`` draws of each swarm (LightDock's unused conformer draws)."""
        for s, count in enumerate(counts):
            self.draw(s, int(count) * self.functions)

    def state(self) -> np.ndarray:
        """Positions of every generator, (S, 625) uint32 (key words then position)."""
        return np.stack(
            [np.append(g.get_state()[1], np.uint32(g.get_state()[2])) for g in self.generators]
        )

    def restore(self, saved: np.ndarray) -> None:
        """Return every generator to a :meth:`state`."""
        for gen, row in zip(self.generators, saved, strict=True):
            gen.set_state(("MT19937", row[:-1].astype(np.uint32), int(row[-1])))


class CounterRandom:
    """Counter-based draws keyed by (seed, swarm id, step): glowworm ``g`` of swarm ``s`` at
    step ``t`` always gets the same number, whatever else runs with it (batch size, threads,
    the subset of swarms). Philox with key (seed, swarm) and counter (0, step, 0, 0)."""

    def __init__(self, seed: int, swarm_ids: np.ndarray) -> None:
        self.seed = int(seed)
        self.swarm_ids = np.asarray(swarm_ids, dtype=np.uint64)

    def selection_draws(self, step: int, n_glow: int) -> np.ndarray:
        out = np.empty((len(self.swarm_ids), n_glow))
        for row, swarm in enumerate(self.swarm_ids):
            bits = np.random.Philox(
                key=np.array([self.seed, swarm], dtype=np.uint64),
                counter=np.array([0, step, 0, 0], dtype=np.uint64),
            )
            out[row] = np.random.Generator(bits).random(n_glow)
        return out

    def discard(self, counts: np.ndarray) -> None:
        """Nothing to consume: draws depend on their key, not on a position."""

    def state(self) -> np.ndarray:
        return np.zeros((len(self.swarm_ids), 0), dtype=np.uint32)

    def restore(self, saved: np.ndarray) -> None:
        """Stateless: nothing to restore."""


def _squared_norm(x: Array) -> Array:
    """Squared length of each row of (..., k) vectors.

    On NumPy arrays the squares are added one column after another, left to right: the
    order of LightDock's ``np.linalg.norm`` (a BLAS dot product, sequential for vectors this
    short), so every bit agrees. ``einsum`` reorders the sum for ten or more components and
    then differs in the last bit for a quarter of normal-mode extent vectors: invisible in
    gso files except through sd's ~1e9 scores, whose trajectories it made part from
    LightDock's. Other backends sum; this is the one place the GSO step differs between them.
    """
    if isinstance(x, np.ndarray):
        total = x[..., 0] * x[..., 0]
        for i in range(1, x.shape[-1]):
            total = total + x[..., i] * x[..., i]
        return total
    xp = array_namespace(x)
    return xp.sum(x * x, axis=-1)


def _neighbour_rows(x: Array, chosen: Array) -> Array:
    """``x[s, chosen[s, g]]`` for (S, G, D) ``x``: each glowworm's chosen neighbour's row
    (a pure gather; NumPy's fancy indexing is 4× faster than its ``take_along_axis``)."""
    if isinstance(x, np.ndarray):
        return x[np.arange(x.shape[0])[:, None], chosen]
    xp = array_namespace(x)
    return xp.take_along_axis(x, chosen[..., None], axis=1)


def reference_points(poses: Array, point: Array, layout: PoseLayout) -> Array:
    """The ligand reference point of every pose: rotated then translated, (..., 3)."""
    xp = array_namespace(poses)
    rot = poses[..., layout.rotation]
    moved = rotate_lightdock(rot, xp.broadcast_to(point, (*poses.shape[:-1], 3)))
    return moved + poses[..., layout.translation]


def select(lum: Array, vision: Array, refs: Array, draws: Array) -> tuple[Array, Array]:
    """Chosen neighbour (own index when none) and neighbour count, for (S, G) glowworms.

    The selection rule as dense arrays over (S, G, G), for any array namespace (the torch
    engine runs this): neighbour mask, luciferin differences, and the running probability as
    a cumulative sum in neighbour order, which adds the same terms in the same order as
    LightDock's loop (non-neighbours add an exact zero). :func:`select_loops` is the same rule
    as plain loops, the fast form on the CPU; a test holds them equal.
    """
    xp = array_namespace(lum, vision, refs, draws)
    n_glow = lum.shape[1]
    li, lj = lum[:, :, None], lum[:, None, :]
    d = refs[:, :, None, :] - refs[:, None, :, :]
    d2 = d[..., 0] * d[..., 0] + d[..., 1] * d[..., 1] + d[..., 2] * d[..., 2]
    not_self = ~xp.eye(n_glow, dtype=xp.bool, device=array_device(lum))
    nbr = not_self & (li < lj) & (d2 < (vision * vision)[:, :, None])
    count = xp.sum(xp.astype(nbr, xp.int64), axis=-1)
    diff = xp.where(nbr, lj - li, 0.0)
    total = xp.cumulative_sum(diff, axis=-1)[..., -1:]
    running = xp.cumulative_sum(diff / xp.where(total > 0, total, 1.0), axis=-1)
    reached = nbr & (running >= draws[..., None])
    first = xp.argmax(xp.astype(reached, xp.int8), axis=-1)
    last = n_glow - 1 - xp.argmax(xp.astype(xp.flip(nbr, axis=-1), xp.int8), axis=-1)
    own = xp.broadcast_to(xp.arange(n_glow, device=array_device(lum))[None, :], lum.shape)
    pick = xp.where(xp.any(reached, axis=-1) & (draws > 0), first, last)
    return xp.where(count > 0, pick, own), count


@njit(parallel=True, cache=True)
def select_loops(
    lum: np.ndarray, vision: np.ndarray, refs: np.ndarray, draws: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`select` as plain loops in LightDock's order (neighbours in list order, their
    luciferin differences summed sequentially, the running probability compared with the
    draw): no (S, G, G) temporaries, parallel over swarms. NumPy arrays only."""
    n_swarms, n_glow = lum.shape
    chosen = np.empty((n_swarms, n_glow), dtype=np.int64)
    count = np.zeros((n_swarms, n_glow), dtype=np.int64)
    for s in prange(n_swarms):
        nbrs = np.empty(n_glow, dtype=np.int64)
        for i in range(n_glow):
            li = lum[s, i]
            r2 = vision[s, i] * vision[s, i]
            n = 0
            total = 0.0
            for j in range(n_glow):
                if j != i and li < lum[s, j]:
                    dx = refs[s, i, 0] - refs[s, j, 0]
                    dy = refs[s, i, 1] - refs[s, j, 1]
                    dz = refs[s, i, 2] - refs[s, j, 2]
                    if dx * dx + dy * dy + dz * dz < r2:
                        nbrs[n] = j
                        n += 1
                        total += lum[s, j] - li
            count[s, i] = n
            if n == 0:
                chosen[s, i] = i
                continue
            r = draws[s, i]
            running = 0.0
            k = 0
            while running < r and k < n:
                running += (lum[s, nbrs[k]] - li) / total
                k += 1
            # r = 0 never enters the loop: LightDock's neighbors[-1], the last one; a running
            # sum that rounding keeps below r also ends on the last one
            chosen[s, i] = nbrs[k - 1] if k > 0 else nbrs[n - 1]
    return chosen, count


def _step_towards(current: Array, target: Array, size: float) -> Array:
    """Move each row of ``current`` a fixed ``size`` toward ``target`` (no move if there)."""
    xp = array_namespace(current, target)
    delta = target - current
    norm = xp.sqrt(_squared_norm(delta))
    move = norm > ZERO_NORM
    scaled = delta * (size / xp.where(move, norm, 1.0))[..., None]
    return xp.where(move[..., None], current + scaled, current)


@njit(cache=True)
def _libm_acos_flat(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.acos(x[i])
    return out


@njit(cache=True)
def _libm_sin_flat(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = math.sin(x[i])
    return out


def _libm_acos(x: np.ndarray) -> np.ndarray:
    flat = np.ascontiguousarray(x, dtype=np.float64).ravel()
    return _libm_acos_flat(flat).reshape(np.shape(x))


def _libm_sin(x: np.ndarray) -> np.ndarray:
    flat = np.ascontiguousarray(x, dtype=np.float64).ravel()
    return _libm_sin_flat(flat).reshape(np.shape(x))


def _acos(x: Array) -> Array:
    """``acos`` as LightDock takes it (Python's ``math``, the C library's) on NumPy arrays:
    NumPy's own SIMD ``arccos`` differs in the last bit for a quarter of arguments, which
    moved a few quaternions by an ulp per step (visible through sd's ~1e9 scores)."""
    if isinstance(x, np.ndarray):
        return _libm_acos(x)
    return array_namespace(x).acos(x)


def _sin(x: Array) -> Array:
    """``sin`` as LightDock takes it (the C library's) on NumPy arrays (see :func:`_acos`)."""
    if isinstance(x, np.ndarray):
        return _libm_sin(x)
    return array_namespace(x).sin(x)


def slerp_lightdock(q: Array, r: Array, t: float) -> Array:
    """LightDock's quaternion SLERP from ``q`` toward ``r`` by fraction ``t`` (…, 4)."""
    xp = array_namespace(q, r)
    q = q / xp.sqrt(xp.sum(q * q, axis=-1, keepdims=True))
    r = r / xp.sqrt(xp.sum(r * r, axis=-1, keepdims=True))
    dot = xp.sum(q * r, axis=-1)
    flip = dot < 0
    q = xp.where(flip[..., None], -q, q)
    dot = xp.where(flip, -dot, dot)
    linear = q + t * (r - q)  # LightDock does not normalise this branch's result
    omega = _acos(xp.clip(dot, -1.0, 1.0))
    so = _sin(omega)
    so = xp.where(so == 0, 1.0, so)  # (only where dot = 1: the linear branch is taken)
    spherical = (_sin((1.0 - t) * omega) / so)[..., None] * q + (_sin(t * omega) / so)[
        ..., None
    ] * r
    return xp.where((dot > LINEAR_THRESHOLD)[..., None], linear, spherical)


def poses_equal(a: Array, b: Array, layout: PoseLayout) -> Array:
    """LightDock's pose equality: exact translation and extents, quaternions within 1e-7."""
    xp = array_namespace(a, b)
    rot = layout.rotation
    same_t = xp.all(a[..., layout.translation] == b[..., layout.translation], axis=-1)
    same_q = xp.all(xp.abs(a[..., rot] - b[..., rot]) < QUATERNION_EQ_TOL, axis=-1)
    same_e = xp.all(a[..., rot.stop :] == b[..., rot.stop :], axis=-1)
    return same_t & same_q & same_e


def move(poses: Array, targets: Array, layout: PoseLayout, params: GSOParameters) -> Array:
    """New poses after moving toward ``targets`` (all glowworms that have a neighbour)."""
    xp = array_namespace(poses, targets)
    new = xp.asarray(poses, copy=True)
    t = layout.translation
    new[..., t] = _step_towards(poses[..., t], targets[..., t], params.translation_step)
    new[..., layout.rotation] = slerp_lightdock(
        poses[..., layout.rotation], targets[..., layout.rotation], params.rotation_step
    )
    for part in (layout.rec_extents, layout.lig_extents):
        if part.stop > part.start:
            new[..., part] = _step_towards(poses[..., part], targets[..., part], params.nmodes_step)
    return new


#: A selection rule: (luciferin, vision range, reference points, draws) -> (chosen, count).
Selector = Callable[[Array, Array, Array, Array], tuple[Array, Array]]


def advance(
    state: SwarmState,
    score: Callable[[Array], Array],
    draws: Array,
    reference_point: Array,
    layout: PoseLayout,
    params: GSOParameters = GSOParameters(),
    choose: Selector = select,
    count_discards: bool = True,
) -> tuple[SwarmState, Array | None]:
    """One GSO step of every swarm, on whatever array namespace ``state`` holds.

    The step itself (see the module notes), written once for NumPy and torch. ``draws`` are
    this step's (S, G) selection uniforms; ``score`` scores a (N, D) batch (only glowworms
    that moved are passed); ``choose`` is the selection rule's implementation. Returns the new
    state and, with ``count_discards``, the draws each swarm's exact stream must skip (S,)
    (LightDock's two unused draws per glowworm whose new pose differs from its neighbour's).
    """
    xp = array_namespace(state.poses)
    n_glow = state.poses.shape[1]
    scores = xp.asarray(state.scores, copy=True)
    todo = state.moved if state.step > 0 else xp.ones_like(state.moved)
    if not isinstance(todo, np.ndarray) or todo.any():  # (no host sync on a device)
        scores[todo] = score(state.poses[todo])
    lum = (1.0 - params.rho) * state.luciferin + params.gamma * scores
    poses = state.poses
    if params.local_minimization:
        poses, scores = minimize_best(poses, scores, score)

    refs = reference_points(poses, reference_point, layout)
    chosen, count = choose(lum, state.vision_range, refs, draws)

    own = xp.arange(n_glow, device=array_device(chosen))[None, :]
    has = chosen != own
    targets = _neighbour_rows(poses, chosen)
    stay = ~has | poses_equal(poses, targets, layout)
    new = xp.where(stay[..., None], poses, move(poses, targets, layout, params))

    discards = None
    if count_discards:
        # a neighbour earlier in the list has moved already, a later one not yet
        neighbour_now = xp.where((chosen < own)[..., None], _neighbour_rows(new, chosen), targets)
        extra = has & ~poses_equal(new, neighbour_now, layout)
        discards = 2 * xp.sum(xp.astype(extra, xp.int64), axis=1)

    vision = xp.clip(
        state.vision_range + params.beta * (params.max_neighbors - count),
        0.0,
        params.max_vision_range,
    )
    new_state = replace(
        state,
        step=state.step + 1,
        poses=new,
        luciferin=lum,
        vision_range=vision,
        neighbors=count,
        scores=scores,
        moved=has,
    )
    return new_state, discards


#: LightDock's Powell minimisation of the best glowworm (``fmin_powell`` arguments).
POWELL = {"maxiter": 5, "xtol": 0.5, "ftol": 0.0001}


def minimize_best(
    poses: Array, scores: Array, score: Callable[[Array], Array]
) -> tuple[Array, Array]:
    """LightDock's ``-min``: per swarm, the first glowworm of the highest score is moved by
    SciPy's Powell method (at most 5 iterations, xtol 0.5, ftol 1e-4) over its whole pose
    vector (the quaternion unnormalised, as LightDock leaves it) and takes the score found.

    It runs after the luciferin update and before the movement, as in LightDock, so the
    luciferin keeps the old score and the neighbours move toward the new pose. SciPy's
    ``fmin_powell`` is what LightDock calls, so with bit-identical scores the path is
    LightDock's. On a torch device each evaluation is one pose sent to the device scorer.
    """
    from scipy.optimize import fmin_powell

    xp = array_namespace(poses)
    poses, scores = xp.asarray(poses, copy=True), xp.asarray(scores, copy=True)
    on_host = isinstance(poses, np.ndarray)

    def batch(vector: np.ndarray) -> Array:
        if on_host:
            return vector[None, :]
        import torch

        return torch.as_tensor(vector[None, :], dtype=poses.dtype, device=poses.device)

    def energy(vector: np.ndarray) -> float:
        return -1.0 * float(score(batch(vector))[0])

    for swarm in range(poses.shape[0]):
        best = int(xp.argmax(scores[swarm]))
        start = np.asarray(poses[swarm, best] if on_host else poses[swarm, best].cpu())
        found = fmin_powell(energy, start, full_output=1, disp=False, **POWELL)
        poses[swarm, best] = xp.asarray(batch(found[0])[0])
        scores[swarm, best] = -1.0 * float(found[1])
    return poses, scores


def step(
    state: SwarmState,
    score: Callable[[np.ndarray], np.ndarray],
    rng: ExactRandom | CounterRandom,
    reference_point: np.ndarray,
    layout: PoseLayout,
    params: GSOParameters = GSOParameters(),
) -> SwarmState:
    """Advance every swarm by one GSO step on the host (NumPy arrays, numba selection).

    Args:
        state: the current state.
        score: scores a (N, D) pose array (only moved glowworms are passed).
        rng: the random stream (one generator per swarm).
        reference_point: the ligand's reference point (centred frame).
    """
    draws = rng.selection_draws(state.step + 1, state.poses.shape[1])
    new, discards = advance(state, score, draws, reference_point, layout, params, select_loops)
    rng.discard(discards)
    return new
