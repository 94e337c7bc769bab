"""`sparkledock setup`: a LightDock-compatible directory that `run` (and LightDock) accept."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import cKDTree

from conftest import BENCH
from sparkledock.cli import main
from sparkledock.engine.driver import run_simulation
from sparkledock.io.lightdock import load_setup, read_poses
from sparkledock.io.restraints import read_restraints
from sparkledock.molecule.anm import normal_modes
from sparkledock.preparation.prepare import SetupOptions, prepare_setup
from sparkledock.preparation.surface import swarm_count

SRC = BENCH / "2X9A"


@pytest.fixture
def inputs(tmp_path):
    for name in ("2X9A_r_u.pdb", "2X9A_l_u.pdb"):
        shutil.copy(SRC / name, tmp_path / name)
    return tmp_path


def test_setup_writes_a_working_directory(inputs):
    out = prepare_setup(
        inputs / "2X9A_r_u.pdb",
        inputs / "2X9A_l_u.pdb",
        inputs / "setup",
        options=SetupOptions(glowworms=32, anm=True, noh=True, now=True),
    )
    setup = load_setup(out)
    config = json.loads((out / "setup.json").read_text())
    assert config["swarms"] == swarm_count(setup.receptor.atoms) == 130
    assert setup.layout.size == 27
    modes, _ = normal_modes(setup.receptor.atoms)
    assert np.allclose(setup.receptor.modes, modes)
    poses = read_poses(out / "init" / "initial_positions_7.dat", setup.layout)
    assert poses.shape == (32, 27)
    np.testing.assert_allclose(np.linalg.norm(poses[:, 3:7], axis=1), 1.0, atol=1e-8)
    assert (out / "init" / "swarm_centers.pdb").read_text().count("ATOM") == 130
    assert (out / "swarm_129").is_dir()
    run_simulation(out, 2, swarms=[0, 129], quiet=True)
    assert (out / "swarm_129" / "gso_2.out").is_file()


@pytest.mark.parametrize("restraints", ["restraints.list", "2X9A_ambig.tbl"])
def test_restraints_focus_swarms(inputs, restraints):
    shutil.copy(SRC / restraints, inputs / restraints)
    out = prepare_setup(
        inputs / "2X9A_r_u.pdb",
        inputs / "2X9A_l_u.pdb",
        inputs / "setup",
        restraints=inputs / restraints,
        options=SetupOptions(glowworms=8, noh=True, now=True),
    )
    written = read_restraints(out / "restraints.list")
    expected = read_restraints(SRC / "restraints.list")
    assert written.receptor.active == expected.receptor.active
    assert written.ligand.active == expected.ligand.active
    config = json.loads((out / "setup.json").read_text())
    assert config["restraints"] == "restraints.list"
    assert 0 < config["swarms"] <= 20 * len(expected.receptor.active)
    setup = load_setup(out)
    ids = setup.receptor.atoms.residue_ids()
    site = setup.receptor.atoms.coords[np.isin(ids, expected.receptor.active)]
    centres = np.array(
        [
            read_poses(out / "init" / f"initial_positions_{i}.dat", setup.layout)[:, :3].mean(
                axis=0
            )
            for i in range(config["swarms"])
        ]
    )
    assert cKDTree(site).query(centres)[0].max() < 25.0  # every swarm faces the site


def test_setup_handles_hetero_groups_and_reports_unknown_residues(tmp_path, capsys):
    shutil.copy(BENCH / "2GTP" / "2GTP_r_u.with_hetatm.pdb", tmp_path / "rec.pdb")
    shutil.copy(BENCH / "2GTP" / "2GTP_l_u.pdb", tmp_path / "lig.pdb")
    code = main(
        [
            "setup",
            str(tmp_path / "rec.pdb"),
            str(tmp_path / "lig.pdb"),
            "-g",
            "4",
            "-o",
            str(tmp_path / "ok"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 0 and "GDP" in err and "warning" in err
    text = (tmp_path / "lig.pdb").read_text()
    first = text.splitlines()[0][17:26]
    (tmp_path / "lig.pdb").write_text(text.replace(first, "UNK" + first[3:]))
    code = main(
        [
            "setup",
            str(tmp_path / "rec.pdb"),
            str(tmp_path / "lig.pdb"),
            "-g",
            "4",
            "-o",
            str(tmp_path / "bad"),
        ]
    )
    errors = [ln for ln in capsys.readouterr().err.splitlines() if "error" in ln]
    assert code == 1 and len(errors) == 1 and "DFIRE has no type for residue" in errors[0]
    assert not (tmp_path / "bad" / "setup.json").exists()  # nothing half-written


@pytest.mark.skipif(
    not os.environ.get("LIGHTDOCK_PYTHON"),
    reason="optional: set LIGHTDOCK_PYTHON to a LightDock 0.9.4 venv's python",
)
def test_lightdock_runs_on_our_setup(inputs):
    out = prepare_setup(
        inputs / "2X9A_r_u.pdb",
        inputs / "2X9A_l_u.pdb",
        inputs / "setup",
        options=SetupOptions(glowworms=16, anm=True, noh=True, now=True),
    )
    python = Path(os.environ["LIGHTDOCK_PYTHON"])
    subprocess.run(
        [
            str(python),
            str(python.parent / "lightdock3.py"),
            "setup.json",
            "2",
            "-s",
            "fastdfire",
            "-l",
            "0",
            "-c",
            "1",
        ],
        cwd=out,
        check=True,
        capture_output=True,
    )
    lightdock = (out / "swarm_0" / "gso_2.out").read_text()
    shutil.rmtree(out / "swarm_0")
    run_simulation(out, 2, swarms=[0], exact=True, quiet=True)
    assert (out / "swarm_0" / "gso_2.out").read_text() == lightdock


def test_several_chains_and_insertion_codes(tmp_path):
    lines = (SRC / "2X9A_r_u.pdb").read_text().splitlines()
    atoms = [ln for ln in lines if ln.startswith("ATOM")]
    half = int(atoms[len(atoms) // 2][22:26])
    edited = []
    for ln in atoms:
        num = int(ln[22:26])
        if num >= half:
            ln = ln[:21] + "C" + ln[22:]  # a second chain
        if num == half + 3:
            ln = ln[:26] + "A" + ln[27:]  # an insertion code
        edited.append(ln)
    (tmp_path / "rec.pdb").write_text("\n".join(edited) + "\nEND\n")
    shutil.copy(SRC / "2X9A_l_u.pdb", tmp_path / "lig.pdb")
    name = next(ln[17:20] for ln in edited if int(ln[22:26]) == half + 3)
    (tmp_path / "r.list").write_text(f"R C.{name}.{half + 3}A\n")
    out = prepare_setup(
        tmp_path / "rec.pdb",
        tmp_path / "lig.pdb",
        tmp_path / "setup",
        restraints=tmp_path / "r.list",
        options=SetupOptions(glowworms=4, anm=True, noh=True, now=True),
    )
    setup = load_setup(out)
    assert set(setup.receptor.atoms.chain) == {"A", "C"}
    assert f"C.{name}.{half + 3}A" in set(setup.receptor.atoms.residue_ids())
    assert read_restraints(out / "restraints.list").receptor.active == [f"C.{name}.{half + 3}A"]
    run_simulation(out, 1, swarms=[0], quiet=True)
