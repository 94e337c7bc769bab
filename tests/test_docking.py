"""`sparkledock dock`: every promised file, and an existing output is not overwritten."""

from __future__ import annotations

import csv

from conftest import BENCH
from sparkledock.cli import main


def test_dock_end_to_end_writes_everything(tmp_path, capsys):
    out = tmp_path / "out"
    src = BENCH / "2X9A"
    code = main(
        [
            "dock",
            str(src / "2X9A_r_u.pdb"),
            str(src / "2X9A_l_u.pdb"),
            "-r",
            str(src / "restraints.list"),
            "-o",
            str(out),
            "--steps",
            "5",
            "-g",
            "20",
            "-s",
            "12",
            "--top",
            "3",
            "--reference",
            str(src / "2X9A_target.pdb"),
            "--quiet",
        ]
    )
    assert code == 0
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    assert list(rows[0].keys()) == ["rank", "score", "model", "swarm", "glowworm", "DockQ", "CAPRI"]
    assert [r["model"] for r in rows[:3]] == ["top_1.pdb", "top_2.pdb", "top_3.pdb"]
    assert all((out / r["model"]).is_file() for r in rows[:3])
    scores = [float(r["score"]) for r in rows]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= float(r["DockQ"]) <= 1.0 for r in rows[:3])
    report = (out / "report.html").read_text()
    assert report.count("data:image/png;base64") == 3  # scores, clusters, score vs DockQ
    # an existing, non-empty output folder is refused and left as it was
    before = (out / "ranking.csv").read_text()
    capsys.readouterr()
    code = main(
        [
            "dock",
            str(src / "2X9A_r_u.pdb"),
            str(src / "2X9A_l_u.pdb"),
            "-o",
            str(out),
            "--steps",
            "2",
            "-g",
            "4",
            "-s",
            "2",
            "--quiet",
        ]
    )
    assert code == 1 and "output folder is not empty" in capsys.readouterr().err
    assert (out / "ranking.csv").read_text() == before
