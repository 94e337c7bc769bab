"""``dock --redock-sites``: a blind docking's first sites docked again under their interface
restraints, their best models ranked first."""

from __future__ import annotations

import csv
import dataclasses
import json
import os

import numpy as np
import pytest

import sparkledock
from conftest import BENCH
from sparkledock.analysis.contacts import pose_interfaces
from sparkledock.analysis.ranking import diverse, landmark_atoms, landmarks, leaders
from sparkledock.docking import DockOptions, dock
from sparkledock.docking.sites import SITE_RADIUS_A, restraint_lines, same_partners
from sparkledock.errors import SparkledockError
from sparkledock.io.lightdock import load_setup

SRC = BENCH / "2X9A"
REC, LIG = SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb"
TINY = {"steps": 5, "glowworms": 20, "swarms": 12, "top": 3, "quiet": True}


def test_leaders_are_the_greedy_clustering_heads_in_order():
    marks = np.array([[0.0, 0, 0], [10, 0, 0], [20, 0, 0], [25, 0, 0], [-16, 0, 0]])
    order = np.arange(5)
    assert leaders(marks, order, 15.0).tolist() == [0, 2, 4]
    assert leaders(marks, order, 15.0, count=2).tolist() == [0, 2]
    assert leaders(marks, order[::-1], 15.0).tolist() == [4, 3, 0]  # (10 Å: 15 from 25)
    assert diverse(marks, order, 15.0).tolist() == [0, 2, 4, 1, 3]


def test_site_dockings_run_the_restrained_protocol_whatever_the_blind_one():
    from sparkledock.docking import RESTRAINED_SPACING_A, with_defaults
    from sparkledock.docking.sites import site_options

    blind = DockOptions(protocol="lightdock", redock_sites=3, swarms=40, top=10, steps=7, seed=5)
    site = with_defaults(site_options(blind), restrained=True)
    assert (site.protocol, site.swarm_spacing, site.rank_method) == (
        "sparkledock", RESTRAINED_SPACING_A, "learned",
    )  # fmt: skip
    # the user's 40 swarms bound the stage: a tenth of them per site (SITE_DEFAULT sites)
    assert (site.redock_sites, site.swarms, site.top, site.steps, site.seed) == (0, 4, 1, 7, 5)
    unsized = with_defaults(site_options(DockOptions(redock_sites=3)), restrained=True)
    assert unsized.swarms == 0  # (each site covers its patch, as a restrained docking)


def test_the_protocol_docks_ten_sites_of_a_blind_protein_docking_unless_told(example_poses):
    """``redock_sites`` left unset: SITE_DEFAULT sites for a blind DFIRE protein docking under
    the sparkledock protocol; none with restraints, under LightDock's protocol, with a
    membrane, --paratope, another scoring function or nucleic acid partners; a number given
    is kept everywhere."""
    from dataclasses import replace

    from sparkledock.docking import with_defaults
    from sparkledock.docking.options import SITE_DEFAULT
    from sparkledock.docking.sites import site_count

    setup = example_poses[0]
    assert SITE_DEFAULT == 10
    assert with_defaults(DockOptions(), restrained=False).redock_sites is None
    assert site_count(with_defaults(DockOptions(), restrained=False), setup) == SITE_DEFAULT
    for options, restrained in (
        (DockOptions(), True),
        (DockOptions(protocol="lightdock"), False),
        (DockOptions(membrane=True), False),
        (DockOptions(transmembrane=True), False),
        (DockOptions(paratope=True), False),
        (DockOptions(scoring="mj3h"), False),
    ):
        assert with_defaults(options, restrained).redock_sites == 0, options
        asked = with_defaults(replace(options, redock_sites=3), restrained)
        assert site_count(asked, setup) == 3
    atoms = setup.ligand.atoms
    dna = replace(atoms, res_name=np.full(len(atoms), "DA", dtype=atoms.res_name.dtype))
    nucleic = replace(setup, ligand=replace(setup.ligand, atoms=dna))
    assert site_count(with_defaults(DockOptions(), restrained=False), nucleic) == 0
    assert site_count(DockOptions(redock_sites=2), nucleic) == 2


def test_each_rank_docks_every_size_th_site():
    """Under MPI the site dockings are shared round-robin (rank r of n: sites r, r + n, ...)."""
    from sparkledock.docking.sites import SiteJob, _dock_jobs

    jobs = [SiteJob(n, "r.pdb", "l.pdb", f"sites/site_{n}", f"site_{n}.restraints")
            for n in range(1, 6)]  # fmt: skip
    docked: list[str] = []

    def record(receptor, ligand, folder, **kwargs):
        docked.append(folder)

    for rank, mine in ((0, [1, 3, 5]), (1, [2, 4])):
        docked.clear()
        _dock_jobs(jobs, DockOptions(), record, rank, 2)
        assert docked == [f"sites/site_{n}" for n in mine]


def _rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def _pose(row):
    return tuple(float(x) for x in row["pose"].split())


def _solutions(site):
    """A site docking's ranking (``ranking.csv``) as the stages' solutions."""
    from sparkledock.analysis.rank import Ranked

    return [
        Ranked(int(r["swarm"]), int(r["glowworm"]), _pose(r), 0.0, 0, 0.0, float(r["score"]))
        for r in _rows(site / "ranking.csv")
    ]


def _atoms(path):
    return [line for line in path.read_text().splitlines() if line.startswith("ATOM")]


def test_site_models_come_first_and_are_the_site_dockings_own(tmp_path):
    out = tmp_path / "blind"
    dock(REC, LIG, out, options=DockOptions(**TINY, redock_sites=2))
    rows = _rows(out / "ranking.csv")
    # in the blind order of their sites (docking.sites.site_order), each its site docking's
    # own best model, written in the blind docking's frame
    assert [r["site"] for r in rows[:2]] == ["sites/site_1", "sites/site_2"]
    assert rows[2]["site"] == ""
    for i, row in enumerate(rows[:2]):
        site = out / row["site"]
        assert same_partners(out / "setup", site / "setup")
        # (the site docking keeps no model of its own: the stages write it from its ranking)
        assert not (site / "top_1.pdb").exists()
        model = sparkledock.top(site / "setup", _solutions(site), 1, tmp_path / f"site{i}")[0]
        assert _atoms(out / f"top_{i + 1}.pdb") == _atoms(model)
        assert row["pose"] == _rows(site / "ranking.csv")[0]["pose"]
        assert row["score"] == _rows(site / "ranking.csv")[0]["score"]
        assert f"of {row['site']}" in (out / f"top_{i + 1}.pdb").read_text()
        # a sub-docking: no report or swarm files of its own, the partners' files shared with
        # the blind one
        assert not (site / "report.html").exists() and (site / "run.json").is_file()
        assert not [p for p in (site / "setup").iterdir() if p.name.startswith("swarm")]
        shared = [f for f in (out / "setup").glob("lightdock_*") if f.is_file()]
        assert len(shared) >= 4 and all(
            os.path.samefile(f, site / "setup" / f.name) for f in shared
        )
    # the sites are the blind ranking's first leaders, their restraints its interface
    setup = load_setup(out / "setup")
    blind = np.array([[float(x) for x in r["pose"].split()] for r in rows[2:]])
    marks = landmarks(setup, blind, landmark_atoms(setup))
    first = leaders(marks, np.arange(len(blind)), SITE_RADIUS_A, count=2)
    for n, index in enumerate(first, start=1):
        rec, lig = pose_interfaces(setup, blind[index])[0]
        assert (out / "sites" / f"site_{n}.restraints").read_text() == restraint_lines(rec, lig)
    assert len(rows) == len(blind) + 2
    record = json.loads((out / "run.json").read_text())
    assert "sites" in [s["name"] for s in record["stages"]]
    assert json.loads((out / "sparkledock_dock.json").read_text())["ranking"]["redock_sites"] == "2"
    # asked again: nothing is redone; with one site more, only the analysis and that site
    before = (out / "ranking.csv").stat().st_mtime_ns
    dock(REC, LIG, out, options=DockOptions(**TINY, redock_sites=2))
    assert (out / "ranking.csv").stat().st_mtime_ns == before
    site_1 = (out / "sites" / "site_1" / "ranking.csv").stat().st_mtime_ns
    dock(REC, LIG, out, options=DockOptions(**TINY, redock_sites=3))
    rows = _rows(out / "ranking.csv")
    assert [r["site"] for r in rows[:3]] == ["sites/site_1", "sites/site_2", "sites/site_3"]
    assert (out / "sites" / "site_1" / "ranking.csv").stat().st_mtime_ns == site_1
    # a site docking asked to be ranked another way: it kept no swarm files, so one line
    from sparkledock.docking.sites import site_options

    chosen = dataclasses.replace(site_options(DockOptions(**TINY)), rank_method="dfire")
    site = out / "sites" / "site_1"
    with pytest.raises(SparkledockError, match=r"site_1: a finished site docking keeps its"):
        dock(REC, LIG, site, restraints=out / "sites" / "site_1.restraints", options=chosen)
    assert (site / "ranking.csv").stat().st_mtime_ns == site_1


def test_redock_sites_is_refused_with_restraints_or_below_zero(tmp_path):
    with pytest.raises(SparkledockError, match=r"restraints\.list: redock_sites docks"):
        dock(REC, LIG, tmp_path / "a", restraints=SRC / "restraints.list",
             options=DockOptions(**TINY, redock_sites=2))  # fmt: skip
    with pytest.raises(SparkledockError, match="redock_sites must be at least 0"):
        dock(REC, LIG, tmp_path / "b", options=DockOptions(**TINY, redock_sites=-1))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_screen_redocks_the_sites_of_its_blind_pairs_only(tmp_path):
    from sparkledock.docking.screen import screen

    pairs = tmp_path / "pairs.csv"
    pairs.write_text(
        "name,receptor,ligand,restraints\n"
        f"restrained,{REC},{LIG},{SRC / 'restraints.list'}\nfree,{REC},{LIG},\n"
    )
    out = tmp_path / "out"
    screen(pairs, out, options=DockOptions(**TINY, redock_sites=1, threads=1))
    assert not (out / "restrained" / "sites").exists()
    assert "site" not in _rows(out / "restrained" / "ranking.csv")[0]
    rows = _rows(out / "free" / "ranking.csv")
    assert [r["site"] for r in rows[:2]] == ["sites/site_1", ""]
    site = out / "free" / "sites" / "site_1"
    model = sparkledock.top(site / "setup", _solutions(site), 1, tmp_path / "site")[0]
    assert _atoms(out / "free" / "top_1.pdb") == _atoms(model)


def test_site_order_is_the_blind_order_whatever_the_scores():
    from sparkledock.analysis.rank import Ranked
    from sparkledock.docking.sites import SiteModel, site_order

    def model(site, score):
        return SiteModel(site, Ranked(0, site, (0.0,), 0.0, 0, 0.0, score), 1)

    got = site_order([model(3, -3.0), model(1, -3.0), model(4, 7.5), model(2, 5.0)])
    assert [m.site for m in got] == [1, 2, 3, 4]


def test_a_blind_docking_killed_between_site_dockings_resumes_to_the_same_result(tmp_path):
    """Killed (the process ends at once) after its first site docking and before its
    second: the same call again docks the second site only and ends with the files of an
    uninterrupted docking."""
    import subprocess
    import sys

    options = {**TINY, "redock_sites": 2}
    reference = tmp_path / "reference"
    dock(REC, LIG, reference, options=DockOptions(**options))
    out = tmp_path / "out"
    child = (
        "import os\n"
        "from sparkledock.docking import DockOptions, dock, sites\n"
        "real = sites._dock_jobs\n"
        "def first_then_killed(jobs, *args):\n"
        "    real(jobs[:1], *args)\n"
        "    os._exit(137)\n"
        "sites._dock_jobs = first_then_killed\n"
        f"dock({str(REC)!r}, {str(LIG)!r}, {str(out)!r}, options=DockOptions(**{options!r}))\n"
    )
    assert subprocess.run([sys.executable, "-c", child], check=False).returncode == 137
    site_1 = out / "sites" / "site_1" / "ranking.csv"
    assert site_1.is_file() and not (out / "sites" / "site_2").exists()
    assert not (out / "ranking.csv").exists()
    stamp = site_1.stat().st_mtime_ns
    dock(REC, LIG, out, options=DockOptions(**options))
    assert site_1.stat().st_mtime_ns == stamp  # (the finished site is not docked again)
    names = ["ranking.csv", *sorted(p.name for p in reference.glob("top_*.pdb"))]
    assert {n: (out / n).read_text().replace(str(out), "") for n in names} == {
        n: (reference / n).read_text().replace(str(reference), "") for n in names
    }


def test_a_docking_that_keeps_everything_keeps_its_site_dockings_swarm_files(tmp_path):
    out = tmp_path / "kept"
    dock(REC, LIG, out, options=DockOptions(**TINY, redock_sites=1, keep_trajectories=True))
    setup = out / "sites" / "site_1" / "setup"
    assert (setup / "swarms.tar.gz").is_file() and (setup / "convergence.npz").is_file()
    assert not (out / "sites" / "site_1" / "top_1.pdb").exists()
    # a site docking ranked again by the stages, as a restrained dock is: its best model
    steps, method = TINY["steps"], _rank_method(out / "sites" / "site_1")
    by_score = sparkledock.rank(setup, steps)
    kept = sparkledock.filter_ranking(setup, by_score).kept or by_score
    best = sparkledock.rank(setup, steps, method=method, solutions=kept)[0]
    row = _rows(out / "ranking.csv")[0]
    assert (best.swarm, best.glowworm, best.pose) == (
        int(row["swarm"]), int(row["glowworm"]), _pose(row)
    )  # fmt: skip


def _rank_method(folder):
    return json.loads((folder / "run.json").read_text())["options"]["rank_method"]
