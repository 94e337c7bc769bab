"""LightDock's scripted helpers: lgd_calculate_scoring.py, lgd_calculate_reference_points.py and
lgd_gso_to_csv.py, against LightDock 0.9.4's own output (values recorded from its runs on the
bound 2X9A complex split into its chains)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.lightdock.commands import main

#: lgd_calculate_scoring.py FUNCTION 2X9A_A.pdb 2X9A_B.pdb, LightDock 0.9.4
LIGHTDOCK_SCORES = {
    "fastdfire": 28.21476702216776,
    "dfire2": -239.04099720000207,
    "pisa": 0.4784933955066204,
    "mj3h": 4.29,
    "tobi": 15.570000000000002,
    "cpydock": -964.2526486015906,
    "vdw": 60.20093571734678,
}
#: lgd_calculate_reference_points.py 2X9A_B.pdb: six poles, then the centre
LIGHTDOCK_VOL = """30.54143 -13.20355 -36.52263
32.26939 -1.72452 -13.47165
22.02062 -17.43611 -19.32769
40.79021  2.50804 -30.66659
47.50727 -19.80880 -20.05668
15.30356  4.88073 -29.93761
31.40541 -7.46403 -24.99714
"""


@pytest.fixture
def chains(tmp_path):
    lines = (BENCH / "2X9A" / "2X9A_target.pdb").read_text().splitlines(keepends=True)
    for chain in "AB":
        atoms = [x for x in lines if x.startswith("ATOM") and x[21] == chain]
        (tmp_path / f"{chain}.pdb").write_text("".join(atoms))
    return tmp_path


@pytest.mark.parametrize("function", sorted(LIGHTDOCK_SCORES))
def test_calculate_scoring_equals_lightdocks(chains, capsys, function):
    assert (
        main("lgd_calculate_scoring.py", [function, str(chains / "A.pdb"), str(chains / "B.pdb")])
        == 0
    )
    got = float(capsys.readouterr().out.split()[-1])
    assert got == pytest.approx(LIGHTDOCK_SCORES[function], rel=1e-12, abs=1e-12)


def test_calculate_scoring_refuses_an_unknown_function_in_one_line(chains, capsys):
    assert (
        main("lgd_calculate_scoring.py", ["nosuch", str(chains / "A.pdb"), str(chains / "B.pdb")])
        == 1
    )
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "nosuch" in err


def test_reference_points_equal_lightdocks(chains):
    assert main("lgd_calculate_reference_points.py", [str(chains / "B.pdb")]) == 0
    assert (chains / "B.pdb.vol").read_text() == LIGHTDOCK_VOL
    pdb = (chains / "B.pdb.vol.pdb").read_text().splitlines()
    assert len(pdb) == 7 and pdb[-1].startswith("ATOM      7  H   SWR Z   7")
    xyz = np.array([[float(s[30:38]), float(s[38:46]), float(s[46:54])] for s in pdb])
    np.testing.assert_allclose(xyz, np.loadtxt(chains / "B.pdb.vol"), atol=6e-4)


def test_gso_to_csv_quotes_the_pose(tmp_path):
    gso = tmp_path / "gso_5.out"
    gso.write_text(
        "#Coordinates  RecID  LigID  Luciferin  Neighbor's number  Vision Range  Scoring\n"
        "(1.0000000, -2.5000000,  0.1)    0    0   5.01  2 0.200   1.234\n"
    )
    assert main("lgd_gso_to_csv.py", [str(gso), str(tmp_path / "g.csv"), "-s", ";"]) == 0
    assert (tmp_path / "g.csv").read_text() == (
        "#Coordinates;RecID;LigID;Luciferin;Neighbor's;number;Vision;Range;Scoring\n"
        '"(1.0000000, -2.5000000,  0.1)";0;0;5.01;2;0.200;1.234\n'
    )
    gso.write_text("header\nno pose here\n")
    assert main("lgd_gso_to_csv.py", [str(gso), str(tmp_path / "h.csv")]) == 1
    assert not (tmp_path / "h.csv").exists()


# --- lgd_map_contacts.py, lgd_generate_trajectory.py, lgd_create_membrane.py,
# lgd_filter_membrane.py: LightDock 0.9.4's files, by checksum (scripts/lightdock_tools_golden.py)

TOOLS = Path(__file__).parent / "data" / "lightdock_tools"
RUNS = Path(__file__).parent / "data" / "lightdock_runs" / "2X9A_swarm0_seed324324"
REC, LIG = "lightdock_2X9A_r_u.pdb", "lightdock_2X9A_l_u.pdb"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def golden():
    return json.loads((TOOLS / "golden.json").read_text())


@pytest.fixture
def docking(tmp_path):
    """The shared 2X9A LightDock setup with swarm 0's trajectory (steps 0, 10, 20, 30)."""
    work = tmp_path / "2X9A"
    shutil.copytree(BENCH / "2X9A" / "lightdock_setup", work)
    for name in ("2X9A_r_u.pdb", "2X9A_l_u.pdb"):
        shutil.copy(BENCH / "2X9A" / name, work)
    shutil.copytree(BENCH / "2X9A" / "lightdock_run" / "swarm_0", work / "swarm_0")
    for step in (20, 30):
        shutil.copy(RUNS / f"gso_{step}.out", work / "swarm_0")
    return work


def test_map_contacts_equals_lightdocks(docking, golden, capsys, monkeypatch):
    monkeypatch.chdir(docking)
    args = ["2X9A_r_u.pdb", "2X9A_l_u.pdb", "setup.json", "contacts.pdb"]
    assert main("lgd_map_contacts.py", [*args, "swarm_0/gso_0.out", "swarm_0/gso_10.out"]) == 0
    assert sha(docking / "contacts.pdb") == golden["map_contacts"]["sha256"]
    assert golden["map_contacts"]["spectrum"] in capsys.readouterr().out
    # an existing output is refused before any work, and left as it was
    before = (docking / "contacts.pdb").read_bytes()
    assert main("lgd_map_contacts.py", [*args, "swarm_0/gso_0.out"]) == 1
    assert "already exists" in capsys.readouterr().err
    assert (docking / "contacts.pdb").read_bytes() == before


def test_generate_trajectory_equals_lightdocks(docking, golden, monkeypatch):
    monkeypatch.chdir(docking / "swarm_0")
    args = ["7", "30", f"../{REC}", f"../{LIG}", "../setup.json"]
    assert main("lgd_generate_trajectory.py", args) == 0
    written = {p.name: sha(p) for p in (docking / "swarm_0").glob("trajectory_7_step_*.pdb")}
    assert written == golden["trajectory"]


def test_generate_trajectory_refuses_a_missing_glowworm_in_one_line(docking, capsys, monkeypatch):
    monkeypatch.chdir(docking / "swarm_0")
    assert (
        main("lgd_generate_trajectory.py", ["300", "10", f"../{REC}", f"../{LIG}", "../setup.json"])
        == 1
    )
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "gso_0.out" in err and "300" in err
    assert not list((docking / "swarm_0").glob("trajectory_*"))


@pytest.mark.parametrize("case", ["default", "fine"])
def test_create_membrane_equals_lightdocks(tmp_path, golden, case):
    spec = golden["membranes"][case]
    target = tmp_path / "membrane.pdb"
    receptor = str(BENCH / "2X9A" / "2X9A_r_u.pdb")
    assert main("lgd_create_membrane.py", [receptor, *spec["args"], "-o", str(target)]) == 0
    assert sha(target) == spec["sha256"]


def test_create_membrane_names_a_missing_residue(tmp_path, capsys):
    receptor = str(BENCH / "2X9A" / "2X9A_r_u.pdb")
    assert (
        main("lgd_create_membrane.py", [receptor, "A.GLY.9999", "-o", str(tmp_path / "m.pdb")]) == 1
    )
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "A.GLY.9999" in err
    assert not (tmp_path / "m.pdb").exists()


def test_filter_membrane_equals_lightdocks(docking, golden, capsys, monkeypatch):
    """LightDock's models (written here by sparkledock's lgd_generate_conformations.py, the
    same coordinates) filtered as LightDock's script, mended where it fails, filters them."""
    monkeypatch.chdir(docking / "swarm_0")
    models = ["../2X9A_r_u.pdb", "../2X9A_l_u.pdb", "gso_10.out", "256"]
    assert main("lgd_generate_conformations.py", models) == 0
    monkeypatch.chdir(docking)
    shutil.copy(TOOLS / "2X9A_swarm0_gso10_rank_by_scoring.list", "rank_by_scoring.list")
    shutil.copy(BENCH / "2X9A" / "restraints.list", ".")
    for cutoff in ("1.0", "0.5"):
        capsys.readouterr()
        args = ["rank_by_scoring.list", "restraints.list", REC, "A", "B", "-c", cutoff]
        assert main("lgd_filter_membrane.py", args) == 0
        expected = golden["filter_membrane"][cutoff]
        filtered = docking / "filtered"
        assert (filtered / "rank_filtered.list").read_text() == expected["rank_filtered"]
        assert len(list(filtered.glob("swarm_*.pdb"))) == expected["copied"]
        printed = dict(
            (Path(x.split()[0]).name, x.split()[1]) for x in capsys.readouterr().out.splitlines()
        )
        assert printed == golden["filter_membrane"]["percentages"]
        assert main("lgd_filter_membrane.py", args) == 1  # filtered/ is there: refused
        assert "already exists" in capsys.readouterr().err
        shutil.rmtree(filtered)
