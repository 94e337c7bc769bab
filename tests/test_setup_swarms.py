"""Swarm counts and placement against LightDock 0.9.4's setups of the benchmark complexes."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest
from scipy.spatial import cKDTree

from conftest import BENCH, COMPLEXES, DATA
from sparkledock.molecule.structure import atoms_from_lists, lightdock_centre, read_structure
from sparkledock.preparation.surface import atom_sasa, swarm_count
from sparkledock.preparation.swarms import surface_distance, swarm_centres


@pytest.mark.parametrize("name", COMPLEXES)
def test_swarm_count_equals_lightdocks_with_freesasa(name):
    pytest.importorskip("freesasa")
    from sparkledock.preparation.surface import receptor_swarm_count

    expected = json.loads((BENCH / name / "lightdock_setup" / "setup.json").read_text())["swarms"]
    path = BENCH / name / f"{name}_r_u.pdb"
    raw = read_structure(path)
    assert receptor_swarm_count(path, raw, raw, 50.0, lightdock_area=True) == (expected, "freesasa")
    # sparkledock's protocol counts from its own area, whether or not freesasa is installed
    assert receptor_swarm_count(path, raw, raw, 50.0) == (swarm_count(raw), "sparkledock")


@pytest.mark.parametrize("name", COMPLEXES)
def test_swarm_count_within_ten_percent_of_lightdock(setups, name):
    """Without freesasa, sparkledock's own Shrake–Rupley area sets the count."""
    expected = json.loads((BENCH / name / "lightdock_setup" / "setup.json").read_text())["swarms"]
    count = swarm_count(setups(name).receptor.atoms)
    assert abs(count - expected) <= 0.1 * expected
    assert abs(count - expected) <= 0.015 * expected  # what we actually get (≤ 1 %)


@pytest.mark.parametrize("name", ["2X9A", "2GTP", "3LVK", "4LW4"])
def test_swarms_spread_like_lightdocks(setups, name):
    setup = setups(name)
    reference = np.array(
        json.loads((BENCH / name / "lightdock_setup" / "swarm_centers.json").read_text())[
            "mean_translation_per_swarm"
        ]
    )
    raw = read_structure(BENCH / name / f"{name}_r_u.pdb")
    count = json.loads((BENCH / name / "lightdock_setup" / "setup.json").read_text())["swarms"]
    centres = swarm_centres(raw, setup.ligand.atoms, count, -lightdock_centre(raw))
    spacing = cKDTree(reference).query(reference, k=2)[0][:, 1].mean()
    ours_to_theirs = cKDTree(reference).query(centres)[0].mean()
    theirs_to_ours = cKDTree(centres).query(reference)[0].mean()
    assert ours_to_theirs < 0.65 * spacing and theirs_to_ours < 0.65 * spacing
    atoms = cKDTree(setup.receptor.atoms.coords)
    assert abs(atoms.query(centres)[0].mean() - atoms.query(reference)[0].mean()) < 1.0
    assert atoms.query(centres)[0].min() > 3.0  # never inside the receptor


def test_sasa_of_an_isolated_atom_and_a_buried_pair():
    one = atoms_from_lists([[0.0, 0.0, 0.0]], ["A"], [1], [""], ["GLY"], ["CA"], ["C"], [False])
    np.testing.assert_allclose(atom_sasa(one), [4 * np.pi * (1.8 + 1.4) ** 2])
    two = atoms_from_lists(
        [[0.0, 0, 0], [0.5, 0, 0]],
        ["A", "A"],
        [1, 1],
        ["", ""],
        ["GLY", "GLY"],
        ["CA", "C"],
        ["C", "C"],
        [False, False],
    )
    assert atom_sasa(two).sum() < 2 * 4 * np.pi * 3.2**2 * 0.7  # mostly overlapping


def test_surface_distance_rule():
    line = [[0.0, 0.0, 0.0], [30.0, 0.0, 0.0]]
    atoms = atoms_from_lists(
        line, ["B"] * 2, [1, 2], [""] * 2, ["GLY"] * 2, ["CA"] * 2, ["C"] * 2, [False] * 2
    )
    assert surface_distance(atoms) == 7.5  # a quarter of a 30 Å diameter
    small = atoms.with_coords(np.array([[0.0, 0, 0], [12.0, 0, 0]]))
    assert surface_distance(small) == 10.0  # under 20 Å across: 10 Å


def _sphere(radius: float, count: int = 200) -> np.ndarray:
    from sparkledock.preparation.surface import sphere_points

    return sphere_points(count) * radius


def test_occlusion_keeps_points_that_see_the_restraint_and_drops_those_behind():
    from sparkledock.preparation.swarms import visible

    hull = _sphere(10.0)
    sight = np.array([[0.0, 0.0, 9.0]])  # just under the top of a 10 Å ball
    points = np.array([[0.0, 0.0, 15.0], [0.0, 0.0, -15.0], [15.0, 0.0, 9.0], [0.0, 12.0, -8.0]])
    # above: 1 of 6 intervals inside; below: about 19 of 24; beside: about 4 of 15 inside;
    # under the side: the segment crosses most of the ball
    assert visible(points, sight, hull).tolist() == [True, False, True, False]


def test_occlusion_matches_a_probe_by_probe_oracle():
    from scipy.spatial import Delaunay

    from sparkledock.preparation.swarms import visible

    rng = np.random.default_rng(5)
    hull = rng.normal(size=(300, 3)) * [12.0, 8.0, 6.0]
    sights = rng.normal(size=(7, 3)) * 4.0
    points = rng.normal(size=(400, 3)) * 20.0
    tri = Delaunay(hull)
    expected = []
    for p in points:
        target = sights[np.argmin(np.linalg.norm(sights - p, axis=1))]
        n = int(np.ceil(np.linalg.norm(p - target)))
        inside = tri.find_simplex(np.linspace(p, target, n + 1)) >= 0
        best = run = 0
        for flag in inside:
            run = run + 1 if flag else 0
            best = max(best, run)
        expected.append(best <= 0.5 * n)
    got = visible(points, sights, hull)
    assert 0 < got.sum() < len(points)  # the sample has both kinds
    assert got.tolist() == expected


def test_occlusion_skipped_for_a_flat_hull():
    from sparkledock.preparation.swarms import visible

    flat = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    points = np.array([[0.0, 0.0, 5.0], [0.5, 0.5, -5.0]])
    assert visible(points, np.array([[0.5, 0.5, 0.0]]), flat).all()


@pytest.mark.parametrize("name", ["2X9A", "3LVK"])
def test_restrained_swarms_sit_where_lightdocks_do(tmp_path, name):
    """With restraints, swarms come from the restraint patch minus the points that cannot see
    it: the very centres LightDock writes."""
    from sparkledock.preparation.prepare import SetupOptions, prepare_setup

    def centres(path):
        lines = [line for line in path.read_text().splitlines() if line.startswith("ATOM")]
        return np.array([[float(x[30:38]), float(x[38:46]), float(x[46:54])] for x in lines])

    src = BENCH / name
    out = prepare_setup(
        src / f"{name}_r_u.pdb",
        src / f"{name}_l_u.pdb",
        tmp_path / "setup",
        restraints=src / "restraints.list",
        options=SetupOptions(noh=True, now=True, glowworms=10),
    )
    ours = centres(out / "init" / "swarm_centers.pdb")
    theirs = centres(DATA / "lightdock_setup_restrained" / f"{name}_swarm_centers.pdb")
    assert np.array_equal(ours, theirs)  # LightDock's placement, to the file's 3 decimals


def test_the_protocol_decides_whose_area_counts_the_swarms(tmp_path, monkeypatch):
    """sparkledock's protocol counts swarms from its own area whatever is installed (the same
    command, the same docking); LightDock's from freesasa's where it is installed."""
    import sparkledock

    rec, lig = BENCH / "2X9A" / "2X9A_r_u.pdb", BENCH / "2X9A" / "2X9A_l_u.pdb"
    small = {"glowworms": 2, "noh": True, "noxt": True, "now": True, "quiet": True}
    ours = sparkledock.setup(rec, lig, tmp_path / "ours", **small).config
    assert ours["sparkledock"]["swarm_area"] == "sparkledock"
    monkeypatch.setitem(__import__("sys").modules, "freesasa", None)  # as if not installed
    without = sparkledock.setup(rec, lig, tmp_path / "without", **small).config
    assert without["swarms"] == ours["swarms"]
    monkeypatch.undo()
    expected = json.loads((BENCH / "2X9A" / "lightdock_setup" / "setup.json").read_text())
    theirs = sparkledock.setup(rec, lig, tmp_path / "ld", protocol="lightdock", **small).config
    if importlib.util.find_spec("freesasa"):
        assert theirs["sparkledock"]["swarm_area"] == "freesasa"
        assert theirs["swarms"] == expected["swarms"]
    else:
        assert theirs["sparkledock"]["swarm_area"] == "sparkledock"
        assert theirs["swarms"] == ours["swarms"]
