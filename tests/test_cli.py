"""The command line: outputs, exit codes and one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.cli import example_dir, main

SETUP = BENCH / "2X9A" / "lightdock_setup"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_lightdock_scores_in_order(capsys):
    ex = example_dir()
    ref = json.loads((ex / "lightdock_scores.json").read_text())
    code, out, err = run(capsys, "score", str(ex), str(ex / "poses.dat"), "--threads", "1")
    assert code == 0 and err == ""
    assert [float(v) for v in out.split()] == ref["scores"]
    code, out, _ = run(
        capsys, "score", str(ex), str(ex / "poses.dat"), "--restraints", str(ex / "restraints.list")
    )
    assert code == 0
    assert [float(v) for v in out.split()] == ref["scores_with_restraints"]


def test_score_numpy_backend_and_fastdfire_alias(capsys):
    ex = example_dir()
    _, fast, _ = run(capsys, "score", str(ex), str(ex / "poses.dat"))
    _, slow, _ = run(
        capsys,
        "score",
        str(ex),
        str(ex / "poses.dat"),
        "--backend",
        "numpy",
        "--scoring",
        "fastdfire",
    )
    assert fast == slow


def test_demo_reports_parity(capsys):
    code, out, _ = run(capsys, "demo", "--threads", "1")
    assert code == 0
    assert "64/64 scores bit-identical" in out


def one_line_error(capsys, *argv, match):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("sparkledock: error: ")
    assert match in lines[0]


def test_bad_inputs_give_one_line_errors(capsys, tmp_path):
    ex = example_dir()
    one_line_error(capsys, "score", str(tmp_path / "nope"), "p.dat", match="no such setup")
    one_line_error(capsys, "score", str(ex), str(tmp_path / "p.dat"), match="no such poses")
    (tmp_path / "p.dat").write_text("")
    one_line_error(capsys, "score", str(ex), str(tmp_path / "p.dat"), match="no poses found")
    (tmp_path / "p.dat").write_text("1 2 3\n")
    one_line_error(capsys, "score", str(ex), str(tmp_path / "p.dat"), match="p.dat:1:")

    setup = tmp_path / "setup"
    shutil.copytree(SETUP, setup)
    poses = ex / "poses.dat"
    rec = setup / "lightdock_2X9A_r_u.pdb"
    lines = rec.read_text().splitlines(keepends=True)
    lines[6] = lines[6][:38] + "   abcde" + lines[6][46:]
    rec.write_text("".join(lines))
    one_line_error(
        capsys,
        "score",
        str(setup),
        str(poses),
        match="lightdock_2X9A_r_u.pdb:7: malformed coordinates",
    )
    rec.write_text("")
    one_line_error(capsys, "score", str(setup), str(poses), match="file is empty")

    shutil.copy(SETUP / "lightdock_2X9A_r_u.pdb", rec)
    text = rec.read_text()
    first_res = text.splitlines()[0][17:26]  # residue name, chain and number of residue 1
    rec.write_text(text.replace(first_res, "UNK" + first_res[3:]))
    one_line_error(capsys, "score", str(setup), str(poses), match="DFIRE has no type for residue")

    restraints = tmp_path / "r.list"
    restraints.write_text("R A.GLY.999\n")
    one_line_error(
        capsys,
        "score",
        str(ex),
        str(poses),
        "--restraints",
        str(restraints),
        match="A.GLY.999 not found",
    )


def test_hetero_group_warns_in_one_line_and_scores(capsys, tmp_path):
    setup = tmp_path / "setup"
    shutil.copytree(SETUP, setup)
    rec = setup / "lightdock_2X9A_r_u.pdb"
    text = rec.read_text().replace("END\n", "")
    text += "HETATM 9999 MG    MG A 900      80.000  80.000  80.000  1.00  0.00          MG\nEND\n"
    rec.write_text(text)
    poses = example_dir() / "poses.dat"
    code, out, err = run(capsys, "score", str(setup), str(poses))
    # The ion is far away; it is dropped before centring, so scores equal LightDock's
    assert code == 0
    assert err.count("\n") == 1 and "warning: " in err and "A.MG.900" in err
    ref = json.loads((example_dir() / "lightdock_scores.json").read_text())["scores"]
    assert np.array_equal([float(v) for v in out.split()], ref)


def test_console_script_exit_code(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "sparkledock.cli", "score", str(tmp_path), "x.dat"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().count("\n") == 0 and "setup.json: no such file" in proc.stderr


@pytest.mark.parametrize("argv", [["score"], ["nonsense"]])
def test_usage_errors_exit_2(argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_long_runs_report_progress_on_stderr(capsys, monkeypatch):
    import sparkledock.cli.commands as cli

    monkeypatch.setattr(cli, "CHUNK", 16)
    ex = example_dir()
    code, out, err = run(capsys, "score", str(ex), str(ex / "poses.dat"))
    assert code == 0 and len(out.split()) == 64
    progress = [ln for ln in err.splitlines() if ln.startswith("sparkledock: scored")]
    assert [ln.split()[2] for ln in progress] == ["16/64", "32/64", "48/64", "64/64"]


def test_every_option_has_help_that_shows_its_default():
    """Each command's options are explained, and one with a default says it (a number in
    brackets, or the word "default")."""
    import argparse

    from sparkledock.cli.parser import build_parser

    missing = []

    def walk(parser, name):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    walk(child, f"{name} {sub}")
                continue
            if not action.option_strings or action.help == argparse.SUPPRESS:
                continue
            if isinstance(action, argparse._HelpAction | argparse._VersionAction):
                continue
            text, default = action.help or "", action.default
            shown = default in (None, False) or "default" in text or str(default) in text
            # (a switch's default is its absence)
            shown = shown or isinstance(action, argparse._StoreConstAction)
            if isinstance(default, float) and default == int(default):
                shown = shown or f"({int(default)})" in text
            if not text or not shown:
                missing.append(f"{name} {action.option_strings[0]}")

    walk(build_parser(), "sparkledock")
    assert not missing, missing


def test_lightdock_commands_makes_its_folder(tmp_path):
    folder = tmp_path / "new" / "bin"
    assert main(["lightdock-commands", str(folder)]) == 0
    assert (folder / "lightdock3_setup.py").is_file()


def test_scoring_list_says_what_each_function_needs_and_offers(capsys):
    assert main(["scoring", "list"]) == 0
    lines = {ln.split()[0]: ln for ln in capsys.readouterr().out.splitlines()}
    assert "needs sparkledock[pydock]" in lines["cpydock"]
    assert "fast mode" in lines["dfire"] and "rigid only" in lines["mj3h"]
    assert "needs" not in lines["vdw"]
