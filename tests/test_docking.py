"""`sparkledock dock`: every promised file, and an existing output is not overwritten."""

from __future__ import annotations

import csv
import hashlib
import json
import re

import sparkledock
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
            "--log-file",
            str(tmp_path / "dock.log"),
        ]
    )
    assert code == 0
    # every stage announced on stderr and in the log file, each with its duration
    said = capsys.readouterr().err
    logged = (tmp_path / "dock.log").read_text()
    stages = ["setup", "run", "cluster", "rank", "filter", "rerank", "models", "evaluate", "report"]
    for name in stages:
        assert re.search(rf"^sparkledock: {name}\b.*\(\d+\.\d s\)$", said, re.M), name
        assert re.search(rf"INFO {name}\b.*\(\d+\.\d s\)$", logged, re.M), name
    assert "first step in" in said and "ETA counts from here" in said
    record = json.loads((out / "run.json").read_text())
    assert record["status"] == "done" and record["kind"] == "dock"
    assert record["sparkledock_version"] == sparkledock.__version__
    assert record["command"][0] and record["options"]["steps"] == 5
    assert [s["name"] for s in record["stages"]] == stages
    assert all(s["seconds"] >= 0 for s in record["stages"])
    assert sum(s["seconds"] for s in record["stages"]) <= record["wall_seconds"]
    digest = hashlib.sha256((src / "2X9A_r_u.pdb").read_bytes()).hexdigest()
    assert record["inputs"]["receptor"]["sha256"] == digest
    assert set(record["inputs"]) == {"receptor", "ligand", "restraints", "reference"}
    assert record["peak_memory_bytes"] > 10 * 2**20
    assert record["engine"] == "numba cpu fp64"
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    assert record["result"]["ranked"] == len(rows)
    assert record["result"]["top_dockq"] == float(rows[0]["DockQ"])
    columns = ["rank", "score", "model", "swarm", "glowworm", "cluster_size", "restraints"]
    assert list(rows[0].keys()) == [*columns, "pose", "fnat", "iRMSD", "LRMSD", "DockQ", "CAPRI"]
    # every ranked model is evaluated (top models by DockQ, the rest by the vectorised pass)
    assert all(0.0 <= float(r["DockQ"]) <= 1.0 and r["CAPRI"] for r in rows)
    assert all(int(r["cluster_size"]) >= 1 for r in rows)
    assert all(float(r["restraints"]) >= 0.4 for r in rows)  # the filter kept these
    assert all(len(r["pose"].split()) == 27 for r in rows)
    top = (out / "top_1.pdb").read_text().splitlines()
    assert top[0].startswith("REMARK   1 sparkledock ") and top[-1] == "END"
    assert f"swarm {rows[0]['swarm']} glowworm {rows[0]['glowworm']}" in top[1]
    assert [r["model"] for r in rows[:3]] == ["top_1.pdb", "top_2.pdb", "top_3.pdb"]
    assert all((out / r["model"]).is_file() for r in rows[:3])
    # the restrained ranking (score and restraint satisfaction, 2X9A's restraints all active):
    # no solution ranks below one that it beats on both
    both = [(float(r["score"]), float(r["restraints"])) for r in rows]
    assert not any(a[0] < b[0] and a[1] < b[1] for i, a in enumerate(both) for b in both[i + 1 :])
    assert record["options"]["rank_method"] == "learned"
    assert all(0.0 <= float(r["DockQ"]) <= 1.0 for r in rows[:3])
    report = (out / "report.html").read_text()
    assert "$3Dmol.createViewer" in report and "http" not in report.split("<script>")[0]
    for section in ("Run", "Top models on the receptor", "Ranked models", "Clusters", "Plots"):
        assert f"<h2>{section}" in report, section
    # five inline SVG plots: score per step, convergence per swarm (per saved step and each
    # swarm's final best), cluster sizes, score against DockQ
    assert report.count("<svg class='plot'") == 5
    assert "acceptable or better in the top 1 / 5 / 10" in report
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


def test_the_resume_key_derived_from_the_options_is_the_one_folders_were_made_with():
    """dock_key now comes from each DockOptions field's part in the key; the keys of folders
    made before (golden: the hand-written key of 2026-12-03) are unchanged, and an option that
    changes no trajectory leaves the key alone."""
    from dataclasses import replace

    from sparkledock.backend import Engine
    from sparkledock.docking import DockOptions, dock_key, with_defaults

    src = BENCH / "2X9A"
    rec, lig, restraints = src / "2X9A_r_u.pdb", src / "2X9A_l_u.pdb", src / "restraints.list"
    every = DockOptions(
        steps=30,
        glowworms=50,
        scoring_mode="fast",
        membrane=True,
        paratope=True,
        engine=Engine("torch", "cpu", "fp32"),
        protocol="lightdock",
        swarm_spacing=0.0,
        stop_tolerance=0.0,
        top=3,
        threads=1,
        quiet=True,
        rank_method="dfire",
        diverse=True,
        refine=True,
    )
    golden = {
        "24fd003807f5d68983a27dd6dab21c452c7f11bdde1d1cfd4db268b9e0951a52": (None, DockOptions()),
        "c46928bacf518ae22ec803bf0fa65b1fa7087f2dafa224e868c557e9185d39f1": (
            restraints,
            with_defaults(DockOptions(), True),
        ),
        "940e789324fc59d1ef9f835f379544e2188878aebbba0a07c16bd507b2f7b79a": (restraints, every),
    }
    for key, (given, options) in golden.items():
        assert dock_key(rec, lig, given, options) == key
    quiet = replace(every, top=10, threads=None, quiet=False, rank_method=None, refine=False)
    assert dock_key(rec, lig, restraints, quiet) == dock_key(rec, lig, restraints, every)
    assert dock_key(rec, lig, restraints, replace(every, steps=31)) != dock_key(
        rec, lig, restraints, every
    )
