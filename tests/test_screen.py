"""`sparkledock screen`: many pairs, one summary, resumable; bad pairs files fail in one line."""

from __future__ import annotations

import csv
import json

import pytest

from sparkledock.cli import example_dir, main
from sparkledock.errors import InputFileError
from sparkledock.screen import read_pairs


def write_pairs(path, rows):
    path.write_text("\n".join(",".join(r) for r in rows) + "\n")
    return path


def test_screen_two_pairs_and_resume(tmp_path, capsys):
    ex = example_dir()
    pairs = write_pairs(
        tmp_path / "pairs.csv",
        [
            ("name", "receptor", "ligand", "restraints"),
            ("restrained", str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb"),
             str(ex / "restraints.list")),
            ("free", str(ex / "2X9A_r_u.pdb"), str(ex / "2X9A_l_u.pdb"), ""),
        ],
    )  # fmt: skip
    out = tmp_path / "out"
    args = ["screen", str(pairs), "-o", str(out), "--steps", "2", "-g", "8", "-s", "3", "--top",
            "2", "--quiet", "--threads", "1"]  # fmt: skip
    assert main(args) == 0
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert [r["name"] for r in rows] == ["restrained", "free"]
    for r in rows:
        assert (out / r["best_model"]).is_file() and int(r["solutions"]) > 0
        assert (out / r["name"] / "report.html").is_file()
        record = json.loads((out / r["name"] / "run.json").read_text())
        assert record["kind"] == "screen pair" and record["status"] == "done"
        assert "cluster" in [s["name"] for s in record["stages"]]
    record = json.loads((out / "run.json").read_text())
    assert [s["name"] for s in record["stages"]] == ["setups", "run", "analyses"]
    assert record["result"]["pairs"] == 2 and record["inputs"]["pairs"]["sha256"]
    before = (out / "free" / "setup" / "swarm_0" / "gso_2.out").stat().st_mtime_ns
    capsys.readouterr()
    assert main(args) == 0  # resumes: nothing is recomputed
    assert (out / "free" / "setup" / "swarm_0" / "gso_2.out").stat().st_mtime_ns == before
    assert "restrained" in capsys.readouterr().out


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
