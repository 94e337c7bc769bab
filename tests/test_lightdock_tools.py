"""LightDock's scripted helpers: lgd_calculate_scoring.py, lgd_calculate_reference_points.py and
lgd_gso_to_csv.py, against LightDock 0.9.4's own output (values recorded from its runs on the
bound 2X9A complex split into its chains)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.lightdock_commands import main

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
