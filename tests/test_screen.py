"""`sparkledock screen`: many pairs, one summary, resumable; bad pairs files fail in one line."""

from __future__ import annotations

import csv
import json

import pytest

import sparkledock
from sparkledock.cli import example_dir, main
from sparkledock.docking.screen import read_pairs
from sparkledock.errors import InputFileError, SparkledockError


def write_pairs(path, rows):
    path.write_text("\n".join(",".join(r) for r in rows) + "\n")
    return path


def test_screen_two_pairs_and_resume(tmp_path, capsys):
    ex = example_dir()
    pairs = write_pairs(
        tmp_path / "pairs.csv",
        [
            ("name", "receptor", "ligand", "restraints", "reference"),
            ("restrained", str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb"),
             str(ex / "restraints.list"), str(ex / "2X9A_target.pdb")),
            ("free", str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb"), "", ""),
        ],
    )  # fmt: skip
    out = tmp_path / "out"
    args = ["screen", str(pairs), "-o", str(out), "--steps", "2", "-g", "8", "-s", "3", "--top",
            "2", "--quiet", "--threads", "1", "--redock-sites", "0"]  # fmt: skip
    assert main(args) == 0
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["name"] for r in rows] == ["restrained", "free"]
    assert rows[0]["best_capri"] and 0 <= float(rows[0]["best_dockq"]) <= 1  # (its reference)
    assert rows[1]["best_dockq"] == ""
    for r in rows:
        assert (out / r["best_model"]).is_file() and int(r["solutions"]) > 0
        assert (out / r["name"] / "report.html").is_file()
        record = json.loads((out / r["name"] / "run.json").read_text())
        assert record["kind"] == "screen pair" and record["status"] == "done"
        assert "cluster" in [s["name"] for s in record["stages"]]
    record = json.loads((out / "run.json").read_text())
    assert [s["name"] for s in record["stages"]] == ["check", "setups", "run", "analyses"]
    assert record["result"]["pairs"] == 2 and record["inputs"]["pairs"]["sha256"]
    before = (out / "free" / "setup" / "swarm_0" / "gso_2.out").stat().st_mtime_ns
    capsys.readouterr()
    assert main(args) == 0  # resumes: nothing is recomputed
    assert (out / "free" / "setup" / "swarm_0" / "gso_2.out").stat().st_mtime_ns == before
    assert "restrained" in capsys.readouterr().out
    # the Python API is the same stage: the same options by keyword resume the same folder
    summary = sparkledock.screen(
        pairs, out, steps=2, glowworms=8, swarms=3, top=2, quiet=True, threads=1
    )
    assert summary == out / "summary.csv" and "restrained" in summary.read_text()
    assert (out / "free" / "setup" / "swarm_0" / "gso_2.out").stat().st_mtime_ns == before
    with pytest.raises(SparkledockError, match="unknown option"):
        sparkledock.screen(pairs, out, stepz=2)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([("name", "receptor")], ":1: missing column 'ligand'"),
        ([("name", "receptor", "ligand"), ("a", "nope.pdb", "x.pdb")], ":2: receptor file"),
        ([("name", "receptor", "ligand"), ("", "r", "l")], ":2: bad pair name"),
    ],
)
def test_bad_pairs_files(tmp_path, rows, message):
    with pytest.raises(InputFileError, match=message):
        read_pairs(write_pairs(tmp_path / "p.csv", rows))


def test_one_bad_pair_never_sinks_a_screen(tmp_path, capsys):
    """Every pair checked before work; bad rows, inputs and setups reported per pair in
    screen_summary.csv while the good pairs dock; a non-zero exit at the end; a BOM read."""
    ex = example_dir()
    rec, lig = str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb")
    (tmp_path / "empty.pdb").write_text("")
    (tmp_path / "ghost.list").write_text("R A.ASP.999\n")
    rows = [
        ("name", "receptor", "ligand", "restraints"),
        ("empty", rec, str(tmp_path / "empty.pdb"), ""),
        ("good", rec, lig, ""),
        ("ghost", rec, lig, str(tmp_path / "ghost.list")),
        ("missing", rec, str(tmp_path / "nope.pdb"), ""),
        ("good", rec, lig, ""),
    ]
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("\ufeff" + "\n".join(",".join(r) for r in rows) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    args = ["screen", str(pairs), "-o", str(out), "--steps", "2", "-g", "6", "-s", "2",
            "--top", "1", "--quiet", "--threads", "1", "--redock-sites", "0"]  # fmt: skip
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "4 pair(s) not docked" in err and "Traceback" not in err
    outcomes = list(csv.DictReader((out / "screen_summary.csv").open()))
    status = {(r["pair"], r["status"]) for r in outcomes}
    assert status == {
        ("empty", "refused"), ("good", "done"), ("ghost", "refused"), ("missing", "refused"),
        ("good", "refused"),
    }  # fmt: skip
    why = {r["pair"] + r["status"]: r["message"] for r in outcomes}
    assert "empty" in why["emptyrefused"] and "A.ASP.999" in why["ghostrefused"]
    assert "not found" in why["missingrefused"]
    assert [r["name"] for r in csv.DictReader((out / "summary.csv").open())] == ["good"]
    assert not (out / "empty").exists() and not (out / "ghost").exists()

    # the same pair name with other inputs: refused, the docking kept; --force redoes it
    other = tmp_path / "other.csv"
    write_pairs(other, [("name", "receptor", "ligand"), ("good", rec, str(ex / "2X9A_l_u.pdb"))])
    stamp = (out / "good" / "ranking.csv").stat().st_mtime_ns
    argv = ["screen", str(other), "-o", str(out), "--steps", "3", "-g", "6", "-s", "2",
            "--top", "1", "--quiet", "--threads", "1", "--redock-sites", "0"]  # fmt: skip
    assert main(argv) == 1
    row = next(csv.DictReader((out / "screen_summary.csv").open()))
    assert row["status"] == "refused" and "changed" in row["message"]
    assert (out / "good" / "ranking.csv").stat().st_mtime_ns == stamp
    assert main([*argv, "--force"]) == 0
    assert (out / "good" / "setup" / "swarm_0" / "gso_3.out").is_file()


def test_a_screen_pair_decides_by_its_restraints_as_dock_does(tmp_path):
    """A pair given one receptor residue is docked by ``screen`` as ``dock`` docks it: the
    same level of knowledge, ranking and starting ligands turned toward the restraint."""
    from sparkledock.docking import DockOptions, dock

    ex = example_dir()
    first = next(ln for ln in (ex / "restraints.list").read_text().splitlines() if ln[:2] == "R ")
    one = tmp_path / "one.list"
    one.write_text(" ".join(first.split()[:2]) + "\n")
    pairs = write_pairs(
        tmp_path / "pairs.csv",
        [("name", "receptor", "ligand", "restraints"),
         ("one", str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb"), str(one))],
    )  # fmt: skip
    small = {"steps": 2, "glowworms": 8, "swarms": 2, "top": 2, "quiet": True, "threads": 1}
    small["keep_trajectories"] = True  # (their starting poses kept, to compare)
    sparkledock.screen(pairs, tmp_path / "screen", **small)
    docked = dock(ex / "2X9A_r_u.pdb", ex / "2X9A_l_u.pdb", tmp_path / "dock", restraints=one,
                  options=DockOptions(**small))  # fmt: skip
    screened = json.loads((tmp_path / "screen" / "one" / "run.json").read_text())
    record = json.loads((docked / "run.json").read_text())
    assert screened["options"]["rank_method"] == record["options"]["rank_method"]
    assert record["options"]["rank_method"] == "learned_partial"
    assert screened["result"]["knowledge"]["level"] == "one receptor residue"
    starts = []
    for folder in (tmp_path / "screen" / "one", docked):
        starts.append((folder / "setup" / "init" / "initial_positions_0.dat").read_text())
    assert starts[0] == starts[1]
