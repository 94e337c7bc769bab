"""The report: self-contained (the bundled viewer inlined, nothing fetched), every section,
and drawn in a real headless browser (Chromium, where installed; CI requires it with
SPARKLEDOCK_REQUIRE_BROWSER=1). A missing evaluation extra is one line."""

from __future__ import annotations

import builtins
import csv
import os
import re
import shutil
import subprocess
import warnings

import pytest

from conftest import BENCH
from sparkledock.analysis.convergence import swarm_convergence
from sparkledock.analysis.report import (
    Cluster,
    convergence_plot,
    histogram,
    scatter_plot,
    success_line,
)
from sparkledock.cli import main
from sparkledock.errors import SparkledockError
from sparkledock.io.setupdir import SetupDir

SRC = BENCH / "2X9A"


@pytest.fixture(scope="module")
def docked(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "out"
    argv = ["dock", str(SRC / "2X9A_r_u.pdb"), str(SRC / "2X9A_l_u.pdb"), "-o", str(out)]
    argv += ["-r", str(SRC / "restraints.list"), "--reference", str(SRC / "2X9A_target.pdb")]
    assert main([*argv, "--steps", "4", "-g", "20", "-s", "12", "--top", "3", "--quiet"]) == 0
    return out


def browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    if os.environ.get("SPARKLEDOCK_REQUIRE_BROWSER") == "1":
        pytest.fail("SPARKLEDOCK_REQUIRE_BROWSER=1 but no Chromium is installed")
    return None


def test_report_is_self_contained_with_every_section(docked):
    page = (docked / "report.html").read_text()
    assert not re.search(r"""(src|href)=["']?https?:""", page)  # nothing fetched
    assert "$3Dmol.createViewer" in page and "3Dmol" in page
    for section in ("Run", "Top models on the receptor", "Ranked models", "Clusters", "Plots"):
        assert f"<h2>{section}" in page, section
    assert page.count("<svg class='plot'") == 5
    assert "Convergence per swarm: best score per saved step" in page
    assert "sha256" in page and "2X9A_r_u.pdb" in page  # provenance
    for column in ("cluster_size", "restraints", "fnat", "iRMSD", "LRMSD", "DockQ", "CAPRI"):
        assert f"<th>{column}</th>" in page
    # the summary says what to look at; the interfaces and their consensus, downloadable
    assert "Look first at top_1.pdb: score" in page and "Against the reference: DockQ" in page
    assert "stands out" in page and "<h2>Interfaces of the top 3 models" in page
    assert "download='interface.csv'" in page and "data:text/csv" in page
    lines = (docked / "interface.csv").read_text().splitlines()
    assert lines[0] == "partner,residue,models,of" and len(lines) > 1
    assert all(int(ln.split(",")[2]) <= 3 and ln.endswith(",3") for ln in lines[1:])
    # the options read as words: the engine, threads
    assert "numba on cpu, fp64" in page and "<td>all cores</td>" in page
    assert "{&#x27;backend" not in page


def test_summary_without_a_reference_says_why_and_interfaces_count_models():
    from sparkledock.analysis.contacts import consensus_interface
    from sparkledock.analysis.report import summary_lines

    rows = [
        {"model": "top_1.pdb", "score": 50.0, "cluster_size": 7, "restraints": 0.8},
        {"model": "top_2.pdb", "score": 49.0},
        {"model": "top_3.pdb", "score": 30.0},
    ]
    lines = summary_lines(rows, reference=False)
    assert "Look first at top_1.pdb: score 50.0, a cluster of 7 glowworms, 80% of the" in lines[0]
    assert lines[1].startswith("It does not stand out: 1 of the next 2")
    assert lines[2].startswith("Evaluation skipped: no reference was given")
    assert summary_lines(rows[:1] + rows[2:], False)[1].startswith("It stands out")
    assert summary_lines([], False)[0].startswith("No solution was ranked")
    got = consensus_interface([(["A.LYS.1", "A.ASP.2"], ["B.GLY.9"]), (["A.ASP.2"], [])])
    assert got[0] == {"partner": "receptor", "residue": "A.ASP.2", "models": 2}
    assert [r["residue"] for r in got[1:]] == ["A.LYS.1", "B.GLY.9"]


def test_report_draws_in_a_headless_browser(docked, tmp_path):
    exe = browser()
    if exe is None:
        pytest.skip("no Chromium here")
    flags = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--use-gl=swiftshader"]
    flags += ["--enable-unsafe-swiftshader", "--virtual-time-budget=8000"]
    url = (docked / "report.html").as_uri()
    dom = subprocess.run(
        [*flags, "--dump-dom", url], capture_output=True, text=True, timeout=120
    ).stdout
    # the viewer's script ran to its end and 3Dmol made its WebGL canvas
    assert 'data-ready="yes"' in dom and "<canvas" in dom
    shot = tmp_path / "report.png"
    subprocess.run(
        [*flags, "--window-size=1200,2400", f"--screenshot={shot}", url],
        capture_output=True,
        timeout=120,
    )
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_plots_and_summary_on_synthetic_data():
    rows = [{"DockQ": 0.1}, {"DockQ": 0.05}, {"DockQ": 0.3}]
    assert success_line(rows) == "acceptable or better in the top 1 / 5 / 10: no / yes / yes"
    assert success_line([{"DockQ": ""}]).endswith("no / no / no")
    svg = scatter_plot("t", [1.0, 2.0, 3.0], [0.1, 0.5, 0.9], "x", "y", highlight=1, hline=0.23)
    assert svg.count("<circle") == 3 and "stroke-dasharray" in svg
    sizes = [c.size for c in (Cluster(0, 1, 3, 2.0, 1.0), Cluster(0, 2, 1, 1.0, 1.0))]
    assert histogram("h", sizes, "x", "y").count("<rect") == 2  # sizes 1 and 3


def test_convergence_per_swarm_reads_each_snapshot(tmp_path):
    folder = SetupDir(tmp_path)
    line = "(0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)    0    0  5.0  1  0.2  {score}\n"
    for swarm, by_step in {0: {0: [1.0, 2.0], 5: [3.5, -1.0]}, 1: {0: [0.5], 5: [0.25]}}.items():
        folder.swarm(swarm).mkdir(parents=True)
        for step, scores in by_step.items():
            text = (
                "#Coordinates  RecID  LigID  Luciferin  Neighbor's number  Vision Range  Scoring\n"
            )
            folder.gso(swarm, step).write_text(text + "".join(line.format(score=x) for x in scores))
    conv = swarm_convergence(folder, [0, 1, 2], steps=5, every=10)
    assert conv.steps.tolist() == [5]  # the last step is always read; step 0's are placeholders
    assert conv.best[:2].tolist() == [[3.5], [0.25]]
    assert all(v != v for v in conv.best[2])  # swarm 2 has no snapshots: NaN, no error
    assert conv.summary()["median"].tolist() == [1.875]
    conv = swarm_convergence(folder, [0, 1, 2], steps=5, every=5)
    assert conv.steps.tolist() == [5]
    svg = convergence_plot(conv, top_swarms=[1, 1, 0], label="score")
    assert "swarm 1 (top 1)" in svg and "swarm 0 (top 3)" in svg and svg.count("<polyline") == 5
    # a step whose every snapshot is gone (pruned): NaN there, silently, the others drawn
    conv = swarm_convergence(folder, [0, 1], steps=10, every=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        median = conv.summary()["median"]
    assert median[0] == 1.875 and median[1] != median[1]


def test_evaluation_needs_no_extra(monkeypatch, tmp_path, capsys):
    """Without the DockQ package, --reference evaluates every ranked model (the built-in
    evaluation); only the cross-check asks for the package, in one line."""
    real_import = builtins.__import__

    def no_dockq(name, *args, **kwargs):
        if name.split(".")[0] == "DockQ":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dockq)
    from sparkledock.analysis.evaluate import require_dockq

    with pytest.raises(SparkledockError, match=r"sparkledock\[evaluate\]"):
        require_dockq()
    out = tmp_path / "out"
    argv = ["dock", str(SRC / "2X9A_r_u.pdb"), str(SRC / "2X9A_l_u.pdb"), "-o", str(out)]
    argv += ["--reference", str(SRC / "2X9A_target.pdb"), "-s", "2", "-g", "6", "--steps", "2"]
    argv += ["--redock-sites", "0"]
    assert main([*argv, "--quiet"]) == 0
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    assert rows and all(0.0 <= float(r["DockQ"]) <= 1.0 and r["CAPRI"] for r in rows)
