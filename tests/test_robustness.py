"""Crashes, second runs and concurrent runs: resume, --force, locks, umask, nothing left
half-made."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import BENCH, writable_setup
from sparkledock.cli import main
from sparkledock.docking import DOCK_RECORD
from sparkledock.engine.spec import CHECKPOINT
from sparkledock.fileutil import atomic_write_text, folder_lock

SRC = BENCH / "2X9A"


def _dock_args(out: Path, *extra: str, ligand: Path = SRC / "2X9A_l_u.pdb") -> list[str]:
    return [
        "dock",
        str(SRC / "2X9A_r_u.pdb"),
        str(ligand),
        "-r",
        str(SRC / "restraints.list"),
        "-o",
        str(out),
        "-g",
        "10",
        "-s",
        "3",
        "--quiet",
        "--threads",
        "1",
        *extra,
    ]


def _results(out: Path) -> dict[str, str]:
    names = ["ranking.csv", *sorted(p.name for p in out.glob("top_*.pdb"))]
    files = {n: (out / n).read_text() for n in names}
    files["history"] = json.dumps(json.loads((out / DOCK_RECORD).read_text())["history"])
    return files


def test_umask_is_honoured(tmp_path):
    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
        assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o640
        os.umask(0o002)
        atomic_write_text(tmp_path / "b.txt", "x")
        assert (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o664
    finally:
        os.umask(old)


def test_dock_resumes_after_a_kill_and_ends_as_an_uninterrupted_run(tmp_path):
    reference = tmp_path / "reference"
    assert main(_dock_args(reference, "--steps", "40")) == 0
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "sparkledock.cli", *_dock_args(out, "--steps", "40")]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 180
    while not (out / "setup" / CHECKPOINT).exists() and proc.poll() is None:
        assert time.time() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)  # mid-run, right after a checkpoint
    proc.wait()
    assert (out / "setup" / CHECKPOINT).exists() and not (out / "ranking.csv").exists()
    (out / "setup" / ".gso_0.out.orphan.tmp").write_text("left by a killed writer")
    assert subprocess.run(cmd, check=False).returncode == 0  # the same command again
    assert _results(out) == _results(reference)
    assert not list(out.rglob("*.tmp"))
    record = json.loads((out / "run.json").read_text())
    names = [s["name"] for s in record["stages"]]
    assert names[0] == "setup" and names.count("run") == 1 and len(record["resumed"]) == 1
    # once more, finished: nothing is redone or rewritten, the results stay
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    assert main(_dock_args(out, "--steps", "40")) == 0
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    assert _results(out) == _results(reference)


def test_force_replaces_a_different_docking_and_nothing_else(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(_dock_args(out, "--steps", "3", "--top", "3")) == 0
    (out / "notes.txt").write_text("mine")
    old_key = json.loads((out / DOCK_RECORD).read_text())["key"]
    other = tmp_path / "lig.pdb"
    shutil.copy(SRC / "2X9A_l_u.pdb", other)
    with other.open("a") as handle:
        handle.write("REMARK   a different file\n")
    # a different docking is refused without --force, and nothing changes
    before = (out / "ranking.csv").read_text()
    assert main(_dock_args(out, "--steps", "2", "--top", "1", ligand=other)) == 1
    assert "output folder is not empty" in capsys.readouterr().err
    assert (out / "ranking.csv").read_text() == before
    # with --force: a fresh docking; the old one's files are gone, the user's are kept
    forced = _dock_args(
        out, "--steps", "2", "--top", "1", "--force", "--keep-trajectories", ligand=other
    )
    assert main(forced) == 0  # (its swarm files kept, to be counted)
    record = json.loads((out / DOCK_RECORD).read_text())
    assert record["key"] != old_key and len(record["history"]) == 2
    assert sorted(p.name for p in out.glob("top_*.pdb")) == ["top_1.pdb"]
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (out / "setup").glob("swarm_*/gso_*.out")) == sorted(
        f"gso_{s}.out" for s in (0, 2) for _ in range(3)
    )
    # the same docking with --force: docked afresh (a new setup), not resumed
    setup_stamp = (out / "setup" / "setup.json").stat().st_mtime_ns
    capsys.readouterr()
    assert main(_dock_args(out, "--steps", "2", "--top", "1", "--force", ligand=other)) == 0
    assert (out / "setup" / "setup.json").stat().st_mtime_ns != setup_stamp
    assert "resuming" not in capsys.readouterr().err
    assert "resumed" not in json.loads((out / "run.json").read_text())


def test_a_second_process_on_the_same_folder_is_refused(tmp_path, capsys):
    out = tmp_path / "out"
    with folder_lock(out):
        assert main(_dock_args(out, "--steps", "2")) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"pid {os.getpid()}" in err and "another" in err
    assert main(_dock_args(out, "--steps", "2")) == 0  # free again
    setup = writable_setup(tmp_path / "setup")
    with folder_lock(setup):
        assert main(["run", str(setup / "setup.json"), "2", "--swarms", "0", "--quiet"]) == 1
        assert "another sparkledock process" in capsys.readouterr().err
    assert not (setup / "swarm_0" / "gso_2.out").exists()


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--steps", "0"], "--steps must be at least 1"),
        (["--top", "0"], "--top must be at least 1"),
        (["--top", "-1"], "--top must be at least 1"),
        (["-g", "-5"], "--glowworms must be at least 1"),
        (["-s", "-1"], "--swarms must be at least 0"),
        (["--reference", "/nonexistent/ref.pdb"], "no such reference file"),
    ],
)
def test_bad_dock_options_are_refused_before_any_work(tmp_path, capsys, extra, says):
    out = tmp_path / "out"
    assert main(_dock_args(out, *extra)) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err
    assert not out.exists()


def test_a_failed_docking_leaves_no_folder(tmp_path, capsys):
    bad = tmp_path / "lig.pdb"
    text = (SRC / "2X9A_l_u.pdb").read_text()
    first = text.splitlines()[0][17:20]
    bad.write_text(text.replace(f" {first} B   1", " XYZ B   1"))
    out = tmp_path / "out"
    assert main(_dock_args(out, "--steps", "2", ligand=bad)) == 1
    assert "XYZ" in capsys.readouterr().err
    assert not out.exists()


def test_output_under_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(_dock_args(tmp_path / "file" / "out", "--steps", "2")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file" in err
    assert (
        main(
            [
                "setup",
                str(SRC / "2X9A_r_u.pdb"),
                str(SRC / "2X9A_l_u.pdb"),
                "-o",
                str(tmp_path / "file" / "s"),
            ]
        )
        == 1
    )
    assert "is a file" in capsys.readouterr().err


def test_a_second_setup_is_refused_or_replaces_the_first_whole(tmp_path, capsys):
    out = tmp_path / "s"
    base = [
        "setup",
        str(SRC / "2X9A_r_u.pdb"),
        str(SRC / "2X9A_l_u.pdb"),
        "-g",
        "4",
        "-o",
        str(out),
    ]
    assert main([*base, "-s", "12"]) == 0
    assert main(["run", str(out), "2", "--quiet"]) == 0
    before = (out / "setup.json").read_text()
    assert main([*base, "-s", "3"]) == 1
    assert "a setup is already here" in capsys.readouterr().err
    assert (out / "setup.json").read_text() == before
    assert main([*base, "-s", "3", "--force"]) == 0
    assert sorted(p.name for p in (out / "init").glob("initial_positions_*.dat")) == [
        f"initial_positions_{i}.dat" for i in range(3)
    ]
    assert sorted(p.name for p in out.glob("swarm_*")) == ["swarm_0", "swarm_1", "swarm_2"]
    assert not list(out.glob("swarm_*/gso_*.out"))


def test_a_new_run_leaves_no_files_of_the_last(tmp_path):
    setup = writable_setup(tmp_path / "setup")
    argv = ["run", str(setup / "setup.json"), "--swarms", "0", "--quiet"]
    assert main([argv[0], argv[1], "20", *argv[2:]]) == 0
    (setup / "swarm_0" / "cluster.repr").write_text("0:1:1.0:0:lightdock_0.pdb\n")
    assert main([argv[0], argv[1], "10", *argv[2:], "--seed", "7"]) == 0
    assert sorted(p.name for p in (setup / "swarm_0").iterdir()) == [
        "gso_0.out",
        "gso_10.out",
        "sparkledock_done.json",
    ]


def test_no_lock_file_is_left_when_a_command_ends(tmp_path):
    """The folder lock goes with the command: after a setup and a run that succeed, and after
    a docking refused in a folder of the user's (which keeps its own file only)."""
    from sparkledock.errors import InputFileError
    from sparkledock.fileutil import LOCK_NAME

    out = tmp_path / "setup"
    rec, lig = SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb"
    assert main(["setup", str(rec), str(lig), "-o", str(out), "-s", "2", "-g", "4", "--quiet"]) == 0
    assert not (out / LOCK_NAME).exists()
    assert main(["run", str(out), "1", "--quiet"]) == 0
    assert not (out / LOCK_NAME).exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine\n")
    assert main(["dock", str(rec), str(lig), "-o", str(mine), "--quiet"]) == 1
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    with folder_lock(out):  # held: a second holder is refused, and the lock stays
        assert (out / LOCK_NAME).exists()
        with pytest.raises(InputFileError, match="another sparkledock process"), folder_lock(out):
            pass
        assert (out / LOCK_NAME).exists()
    assert not (out / LOCK_NAME).exists()


def test_a_finished_docking_ranked_by_another_model_is_ranked_again_not_docked(tmp_path):
    """The record of a finished docking keeps its ranking's method and model hash: asked
    again after the shipped model changed (here: the record says another hash), the analysis
    is redone from the run's files, to the same results; asked with another method, it ranks
    by that one. The run itself (its checkpoint and trajectories) is not touched."""
    out = tmp_path / "out"
    assert main(_dock_args(out, "--steps", "3", "--top", "3")) == 0
    record = json.loads((out / DOCK_RECORD).read_text())
    assert record["ranking"]["rank_method"] == "learned" and len(record["ranking"]["model"]) == 16
    before = _results(out)
    trajectories = {p: p.stat().st_mtime_ns for p in (out / "setup").rglob("gso_*.out")}
    atomic_write_text(
        out / DOCK_RECORD, json.dumps({**record, "ranking": {**record["ranking"], "model": "0"}})
    )
    assert main(_dock_args(out, "--steps", "3", "--top", "3")) == 0
    stages = json.loads((out / "run.json").read_text())
    assert len(stages["resumed"]) == 1 and [s["name"] for s in stages["stages"]].count("run") == 1
    assert _results(out) == before
    assert json.loads((out / DOCK_RECORD).read_text())["ranking"] == record["ranking"]
    assert {p: p.stat().st_mtime_ns for p in trajectories} == trajectories
    assert main(_dock_args(out, "--steps", "3", "--top", "3", "--rank-method", "dfire")) == 0
    assert json.loads((out / DOCK_RECORD).read_text())["ranking"] == {"rank_method": "dfire"}
    assert {p: p.stat().st_mtime_ns for p in trajectories} == trajectories
