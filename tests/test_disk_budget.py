"""What a finished docking keeps on disk (issue 56): the swarm files packed into one archive,
the earlier snapshots dropped, and everything read from a packed folder as from an unpacked
one: the same ranking, report, re-ranking and stage results; a packing killed half-way ends
the same when the docking is asked again."""

from __future__ import annotations

import json
import tarfile

import pytest

import sparkledock
from conftest import BENCH
from sparkledock.analysis.convergence import swarm_convergence
from sparkledock.errors import SparkledockError
from sparkledock.io import pack as pack_module
from sparkledock.io.pack import CONVERGENCE_FILE, PACK_FILE
from sparkledock.io.setupdir import SetupDir

SRC = BENCH / "2X9A"
SMALL = dict(swarms=3, glowworms=10, steps=40, top=3, threads=1, quiet=True)


def _dock(out, **extra):
    return sparkledock.dock(
        SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb", out,
        restraints=SRC / "restraints.list", **{**SMALL, **extra},
    )  # fmt: skip


def _files(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def _report_data(out):
    """report.html without the lines that name the command, folder and times."""
    text = (out / "report.html").read_text().replace(str(out), "OUT")
    return [ln for ln in text.splitlines() if "<td>command</td>" not in ln]


@pytest.fixture(scope="module")
def docked(tmp_path_factory):
    root = tmp_path_factory.mktemp("disk")
    _dock(root / "packed")
    _dock(root / "kept", keep_trajectories=True)
    return root


def test_a_finished_docking_packs_its_swarm_files(docked):
    packed, kept = docked / "packed", docked / "kept"
    setup = packed / "setup"
    assert (setup / PACK_FILE).is_file() and (setup / CONVERGENCE_FILE).is_file()
    assert not list(setup.glob("swarm_*")) and not list((setup / "init").glob("*.dat"))
    with tarfile.open(setup / PACK_FILE) as tar:  # (the starting poses are not kept)
        names = tar.getnames()
    assert "swarm_0/gso_40.out" in names and not [n for n in names if n.startswith("init/")]
    # LightDock's rank lists too (read by its tools only)
    assert {"rank_by_scoring.list", "rank_filtered.list"} <= set(names)
    assert not (setup / "rank_by_scoring.list").exists()
    assert len(_files(packed)) <= 30 < len(_files(kept))
    assert not (kept / "setup" / PACK_FILE).exists()
    # what the user reads is the same as from a docking that kept everything
    assert (packed / "ranking.csv").read_text() == (kept / "ranking.csv").read_text()
    for n in (1, 2, 3):
        assert (packed / f"top_{n}.pdb").read_bytes() == (kept / f"top_{n}.pdb").read_bytes()
    # the report's convergence plot: the kept table equals the snapshots it replaced
    a = swarm_convergence(SetupDir(setup), range(3), 40, 10)
    b = swarm_convergence(SetupDir(kept / "setup"), range(3), 40, 10)
    assert a.best.tolist() == b.best.tolist() and a.steps.tolist() == [10, 20, 30, 40]


def test_a_packed_docking_ranks_again_as_an_unpacked_one(docked, tmp_path):
    import shutil

    for name in ("packed", "kept"):
        shutil.copytree(docked / name, tmp_path / name)
    extra = {"keep_trajectories": True}
    for name, more in (("packed", {}), ("kept", extra)):
        _dock(tmp_path / name, rank_method="dfire", **more)
    packed, kept = tmp_path / "packed", tmp_path / "kept"
    assert (packed / "ranking.csv").read_text() == (kept / "ranking.csv").read_text()
    assert _report_data(packed)[:1] and len(_report_data(packed)) == len(_report_data(kept))
    assert (packed / "setup" / PACK_FILE).is_file() and not list(packed.glob("setup/swarm_*"))
    # the stages read a packed folder as an unpacked one
    assert sparkledock.rank(packed / "setup", 40) == sparkledock.rank(kept / "setup", 40)


def test_a_packed_rank_list_is_read_as_it_was_written(docked, tmp_path):
    import shutil

    shutil.copytree(docked / "packed", tmp_path / "packed")
    setup, kept = tmp_path / "packed" / "setup", docked / "kept" / "setup"
    for name in ("rank_by_scoring.list", "rank_filtered.list"):
        ranking = sparkledock.filter_ranking(setup, setup / name).kept  # (unpacks it)
        assert (setup / name).read_bytes() == (kept / name).read_bytes()
        assert ranking == sparkledock.filter_ranking(kept, kept / name).kept
    ranked = "rank_by_scoring.list"
    paths = sparkledock.top(setup, setup / ranked, 2, tmp_path / "a")
    again = sparkledock.top(kept, kept / ranked, 2, tmp_path / "b")
    assert len(paths) == 2 and [p.read_bytes() for p in paths] == [p.read_bytes() for p in again]


def test_a_run_asked_again_on_a_packed_setup_says_why_before_any_work(docked, tmp_path):
    import shutil

    shutil.copytree(docked / "packed", tmp_path / "packed")
    setup = tmp_path / "packed" / "setup"
    before = _files(tmp_path / "packed")
    with pytest.raises(SparkledockError, match=r"initial_positions_0\.dat: a finished"):
        sparkledock.run(setup, 10, scoring_mode="fast")
    assert _files(tmp_path / "packed") == before  # (nothing unpacked, nothing written)


def test_a_packing_killed_half_way_ends_the_same(docked, tmp_path, monkeypatch):
    out = tmp_path / "out"
    removed = []

    def killed(path):
        if len(removed) == 7:
            raise KeyboardInterrupt  # (the process dies between two removals)
        removed.append(path)
        path.unlink(missing_ok=True)

    monkeypatch.setattr(pack_module, "_remove", killed)
    with pytest.raises(KeyboardInterrupt):
        _dock(out)
    monkeypatch.undo()
    assert (out / "setup" / PACK_FILE).is_file() and list(out.glob("setup/swarm_*"))
    _dock(out)  # the same docking again: finished, its packing completed
    assert _files(out) == _files(docked / "packed")
    assert (out / "ranking.csv").read_text() == (docked / "packed" / "ranking.csv").read_text()
    record = json.loads((out / "sparkledock_dock.json").read_text())
    assert record["stage"] == "done"


def test_the_lightdock_protocol_keeps_every_file(tmp_path):
    out = tmp_path / "ld"
    _dock(out, protocol="lightdock", steps=10, swarms=2)
    assert not (out / "setup" / PACK_FILE).exists()
    assert (out / "setup" / "swarm_0" / "gso_0.out").is_file()
    assert (out / "setup" / "swarm_1" / "gso_10.out").is_file()
