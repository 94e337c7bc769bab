"""A new scoring function is one folder and one registry line: the test-only toy
``tests/toy_contacts`` (atom pairs within 5 Å) runs through ``score``, ``run`` on numba and on
torch, and ``dock``, checked against an independent count."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from scipy.spatial import cKDTree

from conftest import BENCH, writable_setup
from sparkledock.analysis.rank import read_ranking
from sparkledock.backend import resolve_engine
from sparkledock.cli import main
from sparkledock.engine.driver import run_simulation
from sparkledock.io.lightdock import load_setup
from sparkledock.molecule.pose import ligand_conformers, receptor_conformers
from sparkledock.scoring import SCORING_FUNCTIONS
from toy_contacts import Contacts

SRC = BENCH / "2X9A"


@pytest.fixture(autouse=True)
def registered(monkeypatch):
    monkeypatch.setitem(SCORING_FUNCTIONS, "contacts", Contacts)  # the one registry line


def oracle(setup, poses: np.ndarray) -> list[int]:
    """Pairs within 5 Å, counted by a k-d tree on the conformers."""
    rec, lig, lay = setup.receptor, setup.ligand, setup.layout
    recs = receptor_conformers(rec.atoms.coords, rec.modes, rec.mask, poses, lay)
    ligs = ligand_conformers(lig.atoms.coords, lig.modes, lig.mask, poses, lay)
    return [
        int(sum(len(near) for near in cKDTree(b).query_ball_point(a, 5.0)))
        for a, b in zip(recs, ligs, strict=True)
    ]


def test_score_with_the_new_function(tmp_path, capsys):
    setup = load_setup(SRC / "lightdock_setup")
    data = json.loads((SRC / "golden_dfire.json").read_text())
    poses = np.array([p for case in data["cases"] for p in case["poses"]])
    (tmp_path / "poses.dat").write_text("".join(" ".join(map(str, p)) + "\n" for p in poses))
    argv = ["score", str(SRC / "lightdock_setup"), str(tmp_path / "poses.dat")]
    assert main([*argv, "--scoring", "contacts"]) == 0
    got = [float(v) for v in capsys.readouterr().out.split()]
    expected = oracle(setup, poses)
    assert got == expected and max(expected) > 0


def test_run_on_numba_and_on_torch_give_the_same_trajectories(tmp_path):
    pytest.importorskip("torch")
    outputs = {}
    for name, engine in (
        ("numba", resolve_engine("numba", None, "fp64")),
        ("torch", resolve_engine("torch", "cpu", "fp64")),
    ):
        setup_dir = writable_setup(tmp_path / name)
        run_simulation(
            setup_dir, 3, swarms=[0], scoring="contacts", engine=engine, quiet=True, threads=1
        )
        outputs[name] = [(setup_dir / "swarm_0" / f"gso_{s}.out").read_text() for s in (0, 3)]
    assert outputs["numba"] == outputs["torch"]
    # and the scores in the files are the toy's counts
    final = outputs["numba"][1].splitlines()[1:]
    scores = [float(line.split()[-1]) for line in final]
    assert all(s == int(s) for s in scores) and max(scores) > 0


def test_dock_with_the_new_function(tmp_path):
    out = tmp_path / "out"
    argv = ["dock", str(SRC / "2X9A_r_u.pdb"), str(SRC / "2X9A_l_u.pdb"), "-o", str(out)]
    extra = ["--scoring", "contacts", "--steps", "3", "-g", "6", "-s", "3", "--top", "2"]
    assert main([*argv, *extra, "--quiet", "--threads", "1"]) == 0
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    ranked = read_ranking(out / "setup" / "rank_by_scoring.list")
    setup = load_setup(out / "setup")
    assert [float(r["score"]) for r in rows] == [round(r.score, 3) for r in ranked]
    # the ranked poses, as written (7 decimals), re-counted: the scores are the toy's counts
    # (to the few pairs that the rounding moves across 5 Å), not DFIRE's
    recount = oracle(setup, np.array([r.pose for r in ranked]))
    np.testing.assert_allclose([r.score for r in ranked], recount, rtol=1e-2)
    assert all(r.score == int(r.score) for r in ranked)
    assert (out / "top_1.pdb").is_file() and (out / "top_2.pdb").is_file()
