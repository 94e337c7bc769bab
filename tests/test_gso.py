"""GSO: LightDock-exact trajectories and hand-computed unit cases."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.engine import gso
from sparkledock.io.lightdock import format_gso_output, load_setup, read_poses
from sparkledock.molecule.geometry import ellipsoid_centre
from sparkledock.molecule.pose import PoseLayout
from sparkledock.scoring import get_scoring

RUN = BENCH / "2X9A" / "lightdock_run" / "swarm_0"


def test_exact_mode_reproduces_lightdock_swarm_byte_for_byte():
    """2X9A swarm 0, seed 324324, 10 steps: gso_0.out and gso_10.out as LightDock wrote them."""
    setup = load_setup(BENCH / "2X9A" / "lightdock_setup")
    poses = read_poses(
        BENCH / "2X9A" / "lightdock_setup" / "init" / "initial_positions_0.dat", setup.layout
    )
    dfire = get_scoring("dfire")
    model = dfire.prepare(setup.receptor, setup.ligand)
    state = gso.initial_state(poses[None])
    rng = gso.ExactRandom(324324, 1)
    centre = ellipsoid_centre(setup.ligand.atoms.coords)

    def text(s):
        return format_gso_output(
            s.poses[0], s.luciferin[0], s.neighbors[0], s.vision_range[0], s.scores[0]
        )

    assert text(state) == (RUN / "gso_0.out").read_text()
    for _ in range(10):
        state = gso.step(state, lambda p: dfire.score(model, p), rng, centre, setup.layout)
    assert text(state) == (RUN / "gso_10.out").read_text()
    assert state.moved.sum() > 100  # the swarm really moved


DATA = Path(__file__).parent / "data" / "lightdock_runs"


@pytest.mark.parametrize(
    ("name", "checkpoints"), [("2X9A", (20, 30)), ("2VXT", (10,))], ids=["2X9A-30", "2VXT-10"]
)
def test_exact_mode_longer_and_other_complex(name, checkpoints):
    """More LightDock references (tests/data/lightdock_runs): 30 steps of 2X9A, 2VXT."""
    setup = load_setup(BENCH / name / "lightdock_setup")
    poses = read_poses(
        BENCH / name / "lightdock_setup" / "init" / "initial_positions_0.dat", setup.layout
    )
    dfire = get_scoring("dfire")
    model = dfire.prepare(setup.receptor, setup.ligand)
    state = gso.initial_state(poses[None])
    rng = gso.ExactRandom(324324, 1)
    centre = ellipsoid_centre(setup.ligand.atoms.coords)
    for target in checkpoints:
        while state.step < target:
            state = gso.step(state, lambda p: dfire.score(model, p), rng, centre, setup.layout)
        text = format_gso_output(
            state.poses[0],
            state.luciferin[0],
            state.neighbors[0],
            state.vision_range[0],
            state.scores[0],
        )
        reference = (DATA / f"{name}_swarm0_seed324324" / f"gso_{target}.out").read_text()
        assert text == reference, f"{name} step {target}"


def test_exact_random_is_pythons_stream():
    rng = gso.ExactRandom(324324, 2)
    py = random.Random(324324)
    expected = [py.random() for _ in range(300)]
    assert list(rng.draw(0, 100)) + list(rng.draw(0, 200)) == expected
    assert list(rng.draw(1, 300)) == expected  # every swarm starts from the same seed


def test_selection_by_hand():
    # glowworm 0 sees 1 and 2 (brighter, near); 3 is brighter but far; 4 is dimmer
    lum = np.array([[1.0, 2.0, 4.0, 9.0, 0.5]])
    refs = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0], [9, 9, 9], [0.5, 0, 0]]], dtype=float)
    vision = np.full((1, 5), 2.0)
    for draw, expect in ((0.2, 1), (0.25, 1), (0.26, 2), (0.99, 2), (0.0, 2)):
        draws = np.array([[draw, 0.5, 0.5, 0.5, 0.5]])
        chosen, count = gso.select_loops(lum, vision, refs, draws)
        # probabilities 1/4 toward 1, 3/4 toward 2; r = 0 takes the last (LightDock's loop)
        assert chosen[0, 0] == expect, draw
        assert count[0, 0] == 2
    assert chosen[0, 3] == 3 and count[0, 3] == 0  # brightest: nobody to follow
    assert count[0, 4] == 3  # dimmest sees 0, 1, 2 within 2 Å


def test_dense_selection_rule_equals_the_loops():
    # the array-API rule (what torch runs) and the numba loops choose alike, ties and r = 0 too
    rng = np.random.default_rng(11)
    s, g = 5, 60
    lum = rng.normal(5, 1, (s, g))
    lum[0, :6] = 5.0
    vision = rng.uniform(0, 5, (s, g))
    refs = rng.normal(0, 2, (s, g, 3))
    draws = rng.uniform(0, 1, (s, g))
    draws[1, :5] = 0.0
    chosen, count = gso.select_loops(lum, vision, refs, draws)
    chosen_d, count_d = gso.select(lum, vision, refs, draws)
    assert np.array_equal(chosen, chosen_d) and np.array_equal(count, count_d)
    assert (count > 0).any() and (count == 0).any()


def test_slerp_and_linear_branch():
    c = np.cos(np.pi / 4)
    ident = np.array([1.0, 0.0, 0.0, 0.0])
    z90 = np.array([c, 0.0, 0.0, c])
    half = gso.slerp_lightdock(ident, z90, 0.5)
    np.testing.assert_allclose(half, [np.cos(np.pi / 8), 0, 0, np.sin(np.pi / 8)], atol=1e-12)
    # shortest arc: LightDock negates the start instead, so the same rotation comes out as -q
    np.testing.assert_allclose(gso.slerp_lightdock(ident, -z90, 0.5), -half, atol=1e-12)
    near = np.array([np.cos(0.01), 0.0, 0.0, np.sin(0.01)])
    blend = gso.slerp_lightdock(ident, near, 0.5)
    np.testing.assert_allclose(blend, 0.5 * (ident + near), atol=1e-15)  # not normalised
    assert abs(np.linalg.norm(blend) - 1.0) > 1e-6


def test_movement_steps():
    layout = PoseLayout(1, 1)
    params = gso.GSOParameters()
    me = np.array([0.0, 0.0, 0.0, 1, 0, 0, 0, 0.0, 0.0])
    target = np.array([3.0, 4.0, 0.0, 1, 0, 0, 0, 2.0, -1.0])
    new = gso.move(me[None], target[None], layout, params)[0]
    np.testing.assert_allclose(new[:3], [0.3, 0.4, 0.0])  # 0.5 Å toward the target
    np.testing.assert_allclose(new[7:], [0.5, -0.5])  # each extents vector by 0.5
    same = gso.move(target[None], target[None], layout, params)[0]
    assert np.array_equal(same, target)


def test_step_vision_range_and_rescoring_by_hand():
    """Two glowworms 1 Å apart: the dimmer sees the brighter one (vision 2 Å after growth)."""
    layout = PoseLayout(0, 0)
    poses = np.array([[[0.0, 0, 0, 1, 0, 0, 0], [1.0, 0, 0, 1, 0, 0, 0]]])
    state = gso.initial_state(poses)
    state = gso.SwarmState(**{**state.__dict__, "vision_range": np.full((1, 2), 2.0)})
    calls = []

    def score(p):
        calls.append(len(p))
        return p[:, 0] * 10.0  # the glowworm at x = 1 scores higher

    rng = gso.CounterRandom(1, np.array([0]))
    new = gso.step(state, score, rng, np.zeros(3), layout)
    assert calls == [2]
    np.testing.assert_allclose(new.luciferin, [[0.6 * 5.0, 0.6 * 5.0 + 0.6 * 10.0]])
    assert list(new.neighbors[0]) == [1, 0]
    np.testing.assert_allclose(new.vision_range, [[2.0 + 0.08 * 4, 2.0 + 0.08 * 5]])
    np.testing.assert_allclose(new.poses[0, 0, :3], [0.5, 0.0, 0.0])  # 0.5 Å toward it
    assert list(new.moved[0]) == [True, False]
    gso.step(new, score, rng, np.zeros(3), layout)
    assert calls == [2, 1]  # only the glowworm that moved is rescored
    capped = gso.SwarmState(**{**state.__dict__, "vision_range": np.full((1, 2), 4.99)})
    far = gso.step(capped, score, rng, np.zeros(3), layout)
    assert far.vision_range.max() == 5.0  # clamped at the maximum
