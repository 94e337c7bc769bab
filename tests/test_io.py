"""LightDock setup directories, pose files and restraint files."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.errors import InputFileError, PoseError, RestraintError, UnsupportedAtomError
from sparkledock.io.lightdock import (
    as_written,
    load_setup,
    read_gso_output,
    read_poses,
    write_gso_output,
    write_poses,
)
from sparkledock.io.restraints import read_restraints
from sparkledock.molecule.pose import PoseLayout
from sparkledock.scoring import get_scoring

SETUP = BENCH / "2X9A" / "lightdock_setup"


def test_load_setup_partners():
    setup = load_setup(SETUP)
    assert setup.layout == PoseLayout(10, 10)
    assert len(setup.receptor.atoms) == 757 and len(setup.ligand.atoms) == 481
    assert setup.receptor.modes.shape == (10, 757, 3)
    assert np.abs(setup.receptor.atoms.coords.mean(axis=0)).max() < 1e-9  # centred


def test_setup_errors_name_the_file(tmp_path):
    with pytest.raises(InputFileError, match="no such setup directory"):
        load_setup(tmp_path / "missing")
    with pytest.raises(InputFileError, match=r"setup\.json: no such file"):
        load_setup(tmp_path)
    broken = tmp_path / "setup"
    shutil.copytree(SETUP, broken)
    np.save(broken / "lightdock_2X9A_r_u_mask.npy", np.ones(10, dtype=bool))
    with pytest.raises(InputFileError, match=r"mask has 10 entries"):
        load_setup(broken)
    (broken / "setup.json").write_text("{ not json")
    with pytest.raises(InputFileError, match=r"setup\.json:1: invalid JSON"):
        load_setup(broken)


def test_poses_round_trip_and_errors(tmp_path):
    layout = PoseLayout(10, 10)
    poses = np.random.default_rng(0).normal(size=(5, 27))
    path = tmp_path / "poses.dat"
    write_poses(path, poses)
    assert np.allclose(read_poses(path, layout), poses, atol=5e-10, rtol=0)
    path.write_text("1 2 3\n")
    with pytest.raises(PoseError, match=r"poses\.dat:1: expected 27 numbers per pose, got 3"):
        read_poses(path, layout)
    path.write_text("# header\n" + " ".join(["1.0"] * 26) + " x\n")
    with pytest.raises(PoseError, match=r"poses\.dat:2: not a number"):
        read_poses(path, layout)
    path.write_text(" ".join(["0"] * 27) + "\n")
    with pytest.raises(PoseError, match="zero quaternion"):
        read_poses(path, layout)
    path.write_text("\n\n")
    with pytest.raises(InputFileError, match="no poses"):
        read_poses(path, layout)


def test_restraints_file(tmp_path):
    r = read_restraints(BENCH / "2X9A" / "restraints.list")
    assert r.receptor.active[:2] == ["A.ILE.16", "A.ASN.17"]
    assert r.ligand.active and not r.receptor.passive
    path = tmp_path / "r.list"
    path.write_text("# comment\nR a.ile.16 P\nR A.ILE.16\nL B.LYS.7A\nL B.GLY.9 B\n")
    r = read_restraints(path)
    assert r.receptor.passive == ["A.ILE.16"] and r.receptor.active == []  # first kind wins
    assert r.ligand.active == ["B.LYS.7A"] and r.ligand.blocked == ["B.GLY.9"]
    path.write_text("R A.ILE.16\nX A.ILE.17\n")
    with pytest.raises(RestraintError, match=r"r\.list:2: expected"):
        read_restraints(path)
    path.write_text("R A-ILE-16\n")
    with pytest.raises(RestraintError, match=r"r\.list:1: malformed residue"):
        read_restraints(path)


def test_restraint_not_in_structure(tmp_path):
    setup = load_setup(SETUP)
    path = tmp_path / "r.list"
    path.write_text("R A.ILE.16\nR A.ALA.999\n")
    with pytest.raises(RestraintError, match=r"receptor restraint A\.ALA\.999 not found"):
        get_scoring("dfire").prepare(setup.receptor, setup.ligand, read_restraints(path))


def test_unknown_residue_names_chain_residue_atom(tmp_path):
    broken = tmp_path / "setup"
    shutil.copytree(SETUP, broken)
    pdb = broken / "lightdock_2X9A_l_u.pdb"
    lines = pdb.read_text().splitlines(keepends=True)
    first_residue = [i for i, ln in enumerate(lines) if ln[22:26] == lines[0][22:26]]
    for i in first_residue:  # rename all atoms of the first residue (ALA, 5 atoms)
        lines[i] = lines[i][:17] + "XYZ" + lines[i][20:]
    pdb.write_text("".join(lines))
    setup = load_setup(broken)
    with pytest.raises(UnsupportedAtomError, match=r"residue chain B XYZ \d+ \(atom N\)"):
        get_scoring("dfire").prepare(setup.receptor, setup.ligand)
    with pytest.warns(UserWarning, match="skipped 5 atoms unknown to DFIRE"):
        model = get_scoring("dfire").prepare(setup.receptor, setup.ligand, skip_unknown=True)
    assert len(model.lig_xyz) == 476 and model.lig_modes.shape == (10, 476, 3)


def test_setup_without_modes_scores_like_zero_extents(tmp_path):
    """use_anm false: 7-number poses; equal to the ANM setup with all extents at zero."""
    import json

    rigid_dir = tmp_path / "rigid"
    shutil.copytree(SETUP, rigid_dir)
    config = json.loads((rigid_dir / "setup.json").read_text())
    config["use_anm"] = False
    (rigid_dir / "setup.json").write_text(json.dumps(config))
    rigid = load_setup(rigid_dir)
    flexible = load_setup(SETUP)
    assert rigid.layout == PoseLayout(0, 0)
    poses = np.array(
        read_poses(
            BENCH / "2X9A" / "lightdock_setup" / "init" / "initial_positions_0.dat", flexible.layout
        )
    )[:16]
    dfire = get_scoring("dfire")
    zeroed = poses.copy()
    zeroed[:, 7:] = 0.0
    a = dfire.score(dfire.prepare(rigid.receptor, rigid.ligand), poses[:, :7])
    b = dfire.score(dfire.prepare(flexible.receptor, flexible.ligand), zeroed)
    assert np.array_equal(a, b)
    assert not np.array_equal(
        b, dfire.score(dfire.prepare(flexible.receptor, flexible.ligand), poses)
    )


@pytest.mark.parametrize(
    "name", ["2X9A", "1RKE", "2A1A", "2GTP", "2VXT", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]
)
def test_haddock_tbl_gives_the_lightdock_restraints(name):
    from sparkledock.io.restraints import read_haddock_restraints

    setup = load_setup(BENCH / name / "lightdock_setup")
    tbl = read_haddock_restraints(
        BENCH / name / f"{name}_ambig.tbl", setup.receptor.atoms, setup.ligand.atoms
    )
    listed = read_restraints(BENCH / name / "restraints.list")
    assert tbl.receptor.active == listed.receptor.active
    assert tbl.ligand.active == listed.ligand.active


def test_haddock_tbl_passive_and_errors(tmp_path):
    from sparkledock.io.restraints import read_haddock_restraints

    setup = load_setup(SETUP)
    path = tmp_path / "air.tbl"
    path.write_text(
        "! comment\nassign (resid 16 and segid A)\n  ( (resid 15 and segid B) or\n"
        "    (resid 3 and segid B) ) 2.0 2.0 0.0\n"
        "ASSIGN ( resi 15  and segi B) ( (resid 16 and segid A) ) 2.0 2.0 0.0\n"
    )
    r = read_haddock_restraints(path, setup.receptor.atoms, setup.ligand.atoms)
    assert r.receptor.active == ["A.ILE.16"] and r.receptor.passive == []
    assert len(r.ligand.active) == 1 and r.ligand.active[0].endswith(".15")
    assert len(r.ligand.passive) == 1 and r.ligand.passive[0].endswith(".3")
    path.write_text("assign (resid 999 and segid A) ((resid 15 and segid B)) 2.0 2.0 0.0\n")
    with pytest.raises(RestraintError, match=r"air\.tbl:1: a selection that matches no atom"):
        read_haddock_restraints(path, setup.receptor.atoms, setup.ligand.atoms)
    path.write_text("R A.ILE.16\n")
    with pytest.raises(InputFileError, match="no 'assign' statements"):
        read_haddock_restraints(path, setup.receptor.atoms, setup.ligand.atoms)


def test_values_as_written_equal_the_gso_file_read_back(tmp_path):
    rng = np.random.default_rng(5)
    poses = rng.normal(0, 20, (50, 27))
    lum, vr = rng.uniform(0, 30, 50), rng.uniform(0, 5, 50)
    nb, scores = rng.integers(0, 6, 50), rng.normal(10, 40, 50)
    write_gso_output(tmp_path / "gso_1.out", poses, lum, nb, vr, scores)
    read, held = read_gso_output(tmp_path / "gso_1.out"), as_written(poses, lum, nb, vr, scores)
    for field in ("poses", "luciferin", "neighbors", "vision_range", "scores"):
        assert np.array_equal(getattr(read, field), getattr(held, field)), field
    assert not np.array_equal(held.poses, poses)  # (it did round)
