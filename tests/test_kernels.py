"""Every backend gives the all-pairs oracle's scores, bit for bit; edge distances by hand."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH, golden
from sparkledock.io.restraints import read_restraints
from sparkledock.molecule.restraints import Restraints, SideRestraints
from sparkledock.molecule.structure import atoms_from_lists
from sparkledock.molecule.system import Partner
from sparkledock.scoring import get_scoring
from sparkledock.scoring.dfire.model import ATOM_TYPE, dfire_table

DFIRE = get_scoring("dfire")


def stressed_poses(setup, golden_poses, count, seed):
    """Poses pushed into the receptor (clashes below 2.5 Å), others pulled to the 15 Å edge."""
    rng = np.random.default_rng(seed)
    poses = golden_poses[rng.integers(0, len(golden_poses), count)].copy()
    scale = rng.uniform(0.2, 1.3, count)  # < 1 moves the ligand into the receptor
    poses[:, :3] *= scale[:, None]
    q = rng.normal(size=(count, 4))
    poses[:, 3:7] = q / np.linalg.norm(q, axis=1, keepdims=True)
    poses[:, 7:] = rng.normal(0.0, 1.5, (count, poses.shape[1] - 7))
    return poses


def pair_distances(setup, pose):
    from sparkledock.molecule.pose import ligand_conformers, receptor_conformers

    rec = receptor_conformers(
        setup.receptor.atoms.coords,
        setup.receptor.modes,
        setup.receptor.mask,
        pose[None],
        setup.layout,
    )[0]
    lig = ligand_conformers(
        setup.ligand.atoms.coords, setup.ligand.modes, setup.ligand.mask, pose[None], setup.layout
    )[0]
    return np.sqrt(((rec[:, None, :] - lig[None, :, :]) ** 2).sum(-1))


@pytest.mark.parametrize(("name", "count"), [("2X9A", 24), ("2VXT", 6), ("4GAM", 3)])
def test_culled_equals_all_pairs(setups, name, count):
    setup = setups(name)
    poses = stressed_poses(setup, golden(name)[0], count, seed=len(name) + count)
    d = np.concatenate([pair_distances(setup, p).ravel() for p in poses[:3]])
    assert (d < 2.5).any() and ((d > 14.5) & (d <= 15.0)).any()  # the edges are exercised
    restraints = read_restraints(BENCH / name / "restraints.list")
    for restr in (None, restraints):
        model = DFIRE.prepare(setup.receptor, setup.ligand, restr)
        fast = DFIRE.score(model, poses, backend="numba")
        reference = DFIRE.score(model, poses, backend="numpy")
        assert np.array_equal(fast, reference)


def test_results_do_not_depend_on_threads_batches_or_tiles(setups):
    setup = setups("2X9A")
    poses = stressed_poses(setup, golden("2X9A")[0], 40, seed=3)
    model = DFIRE.prepare(setup.receptor, setup.ligand)
    base = DFIRE.score(model, poses, threads=1)
    assert np.array_equal(DFIRE.score(model, poses, threads=2), base)
    singles = np.concatenate([DFIRE.score(model, p[None]) for p in poses[:8]])
    assert np.array_equal(singles, base[:8])
    for tile in (1, 7, 64, 4096):
        other = DFIRE.prepare(setup.receptor, setup.ligand, tile_size=tile)
        assert np.array_equal(DFIRE.score(other, poses), base)


def two_atoms(distance, compat=True, restrained=False, res_a="ALA", res_b="GLY"):
    """Score one receptor CA at the origin against one ligand CA at (distance, 0, 0)."""
    rec = atoms_from_lists([[0.0, 0.0, 0.0]], ["A"], [1], [""], [res_a], ["CA"], ["C"], [False])
    lig = atoms_from_lists([[0.0, 0.0, 0.0]], ["B"], [1], [""], [res_b], ["CA"], ["C"], [False])
    restraints = None
    if restrained:
        restraints = Restraints(SideRestraints(active=[f"A.{res_a}.1"]), SideRestraints())
    pose = np.array([[distance, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]])
    scores = []
    for backend in ("numba", "numpy"):
        model = DFIRE.prepare(
            Partner.rigid(rec), Partner.rigid(lig), restraints, lightdock_compat=compat
        )
        scores.append(DFIRE.score(model, pose, backend=backend)[0])
    assert scores[0] == scores[1]
    return scores[0]


def dfire_score(energy):
    return (energy * 0.0157 - 4.7) * -1.0


def test_pair_distances_by_hand():
    t = dfire_table()
    a, b = ATOM_TYPE[("ALA", "CA")], ATOM_TYPE[("GLY", "CA")]
    assert two_atoms(15.000001) == dfire_score(0.0)  # beyond the cutoff: nothing
    assert two_atoms(14.9999) == dfire_score(t[a, b, 19])  # k = 28 → last bin
    assert two_atoms(15.0) == dfire_score(t[a, b + 1, 0])  # LightDock's spill past the row
    assert two_atoms(15.0, compat=False) == dfire_score(t[a, b, 19])
    assert two_atoms(7.3) == dfire_score(t[a, b, 11])  # k = 13 → DIST_TO_BINS 12 → bin 11
    assert two_atoms(0.3) == dfire_score(t[a, b, 0])  # below 0.5 Å: bin 0
    assert two_atoms(0.0) == dfire_score(t[a, b, 0])  # coincident atoms: bin 0, documented


def test_interface_cutoff_quirk():
    for d in (2.4, 2.6, 3.8, 4.0):
        plain = two_atoms(d)
        compat = two_atoms(d, restrained=True)
        strict = two_atoms(d, compat=False, restrained=True)
        # one receptor restraint, satisfied → S + 1.0·S
        assert compat == (2 * plain if d < 2.5 else plain)
        assert strict == (2 * plain if d <= 3.9 else plain)


def test_membrane_penalty():
    rec = atoms_from_lists([[0.0, 0.0, 0.0]], ["A"], [1], [""], ["MMB"], ["BJ"], ["C"], [True])
    lig = atoms_from_lists([[0.0, 0.0, 0.0]], ["B"], [1], [""], ["GLY"], ["CA"], ["C"], [False])
    model = DFIRE.prepare(Partner.rigid(rec), Partner.rigid(lig))
    # k = 3 at 2 Å (interface, bin 1): the one membrane residue is hit → −999
    near, far = DFIRE.score(model, np.array([[2.0, 0, 0, 1, 0, 0, 0], [5.0, 0, 0, 1, 0, 0, 0]]))
    t = dfire_table()
    a, b = ATOM_TYPE[("MMB", "BJ")], ATOM_TYPE[("GLY", "CA")]
    assert near == dfire_score(t[a, b, 1]) - 999.0
    assert far == dfire_score(t[a, b, 7])  # k = 9 → bin 7; no interface, no penalty
