"""The top-level Python API: sparkledock.dock/setup/run/rank/evaluate return the documented
result objects, equal to what the CLI writes."""

from __future__ import annotations

import csv
import json
import re

import pytest

import sparkledock
from conftest import BENCH
from sparkledock.errors import SparkledockError

SRC = BENCH / "2X9A"
REC, LIG = SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb"


@pytest.mark.filterwarnings("ignore:.*no solution satisfies")
def test_dock_returns_the_ranked_models_files_and_timings(tmp_path):
    result = sparkledock.dock(
        REC,
        LIG,
        tmp_path / "out",
        restraints=SRC / "restraints.list",
        reference=SRC / "2X9A_target.pdb",
        steps=3,
        glowworms=10,
        swarms=4,
        top=2,
    )
    assert isinstance(result, sparkledock.DockResult)
    rows = list(csv.DictReader((tmp_path / "out" / "ranking.csv").open()))
    assert len(result.models) == len(rows) > 0
    assert result.top == result.models[0]
    assert result.top["score"] == float(rows[0]["score"]) and isinstance(result.top["rank"], int)
    assert result.top["DockQ"] == float(rows[0]["DockQ"])
    assert [p.name for p in result.model_paths()] == ["top_1.pdb", "top_2.pdb"]
    names = {p.name for p in result.files}
    assert {"ranking.csv", "report.html", "run.json", "top_1.pdb", "top_2.pdb"} <= names
    assert list(result.timings)[:2] == ["setup", "run"] and "report" in result.timings
    assert result.record["status"] == "done"
    # pandas-friendly: a list of flat dicts with the same keys
    assert all(set(m) == set(result.models[0]) for m in result.models)
    with pytest.raises(SparkledockError, match="unknown option"):
        sparkledock.dock(REC, LIG, tmp_path / "other", stepz=3)


def test_setup_run_rank_evaluate(tmp_path):
    loaded = sparkledock.setup(REC, LIG, tmp_path / "setup", swarms=3, glowworms=8, anm=True)
    assert loaded.config["swarms"] == 3 and loaded.layout.size == 27
    result = sparkledock.run(tmp_path / "setup", 2, swarms=[0, 2])
    assert sorted(result.final) == [0, 2] and len(result.history) == 2
    ranked = sparkledock.rank(tmp_path / "setup", 2)
    scores = [r.score for r in ranked]
    assert scores == sorted(scores, reverse=True) and {r.swarm for r in ranked} == {0, 2}
    every = sparkledock.rank(tmp_path / "setup", 2, clusters=False)
    assert len(every) == 16 and len(ranked) <= 16
    quality = sparkledock.evaluate(SRC / "2X9A_target.pdb", SRC / "2X9A_target.pdb")
    assert quality.dockq == pytest.approx(1.0) and quality.capri == "high"
    from sparkledock.preparation.prepare import SetupOptions

    assert SetupOptions().glowworms == 200


def test_setup_and_run_commands_leave_a_run_record(tmp_path, capsys):
    from sparkledock.cli import main

    out = tmp_path / "setup"
    assert main(["setup", str(REC), str(LIG), "-o", str(out), "-s", "3", "-g", "8", "--anm"]) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["kind"] == "setup" and record["status"] == "done"
    assert record["result"] == {"swarms": 3, "glowworms": 8}
    assert [s["name"] for s in record["stages"]] == ["setup"]
    assert "sparkledock: setup: read and cleaned" in capsys.readouterr().err
    assert main(["run", str(out), "2", "--quiet"]) == 0
    assert capsys.readouterr().err == ""  # --quiet: nothing but warnings
    record = json.loads((out / "run.json").read_text())
    assert record["kind"] == "run" and record["options"]["steps"] == 2
    assert record["stages"][0]["name"] == "run" and record["engine"] == "numba cpu fp64"


def test_the_api_runs_the_cli_stages_with_their_records_lines_and_placement(tmp_path, capsys):
    """sparkledock.setup/run are the stages ``sparkledock setup``/``run`` call: the same
    setup files for the same options (the protocol's restraint-focused swarms included),
    run.json, the stage lines on stderr unless quiet, and the folder's lock taken."""
    from sparkledock.cli import main
    from sparkledock.fileutil import folder_lock

    restraints = SRC / "restraints.list"
    api, cli = tmp_path / "api", tmp_path / "cli"
    loaded = sparkledock.setup(REC, LIG, api, restraints=restraints, glowworms=8, anm=True)
    said = capsys.readouterr().err
    assert "sparkledock: setup: read and cleaned" in said
    argv = ["setup", str(REC), str(LIG), "-o", str(cli), "-r", str(restraints), "-g", "8", "--anm"]
    assert main(argv) == 0
    capsys.readouterr()
    for name in ("setup.json", "init/swarm_centers.pdb", "init/initial_positions_0.dat"):
        assert (api / name).read_bytes() == (cli / name).read_bytes(), name
    assert loaded.config["swarm_spacing"] == 8.0  # the sparkledock protocol, as the CLI
    record = json.loads((api / "run.json").read_text())
    assert record["kind"] == "setup" and record["status"] == "done"
    sparkledock.run(api, 2, swarms=[0], quiet=True)
    assert capsys.readouterr().err == ""
    assert json.loads((api / "run.json").read_text())["kind"] == "run"
    # another process holds the folder
    with folder_lock(api), pytest.raises(SparkledockError, match="another sparkledock process"):
        sparkledock.run(api, 2, swarms=[0], quiet=True)


def test_the_readme_api_example_runs_as_written(tmp_path, monkeypatch):
    """README's Python example, executed line for line in a fresh folder (no pandas, the
    bundled files found through the package)."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = re.search(r"The same from Python.*?```python\n(.*?)```", readme, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    space: dict = {}
    exec(compile(block, "README.md", "exec"), space)
    result = space["result"]
    assert result.top["rank"] == 1 and result.top["CAPRI"] in (
        "incorrect",
        "acceptable",
        "medium",
        "high",
    )
    assert (tmp_path / "out" / "top_1.pdb").is_file() and len(space["scores"]) == 20
    assert space["models"][0] == Path("models") / "top_1.pdb" and space["models"][0].is_file()
    assert space["quality"].dockq == pytest.approx(result.top["DockQ"], abs=1e-4)
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(sparkledock.SparkledockError, match="needs pandas"):
            result.to_dataframe()
    else:
        assert list(result.to_dataframe()["rank"])[:2] == [1, 2]


def test_evaluate_takes_the_reference_first_and_refuses_a_swapped_call(tmp_path, capsys):
    from sparkledock.cli import main

    out = tmp_path / "out"
    sparkledock.dock(SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb", out, swarms=1, glowworms=4,
                     steps=2, top=1, quiet=True, redock_sites=0)  # fmt: skip
    model, reference = out / "top_1.pdb", SRC / "2X9A_target.pdb"
    quality = sparkledock.evaluate(reference, model)
    assert quality.capri in ("incorrect", "acceptable", "medium", "high")
    with pytest.raises(SparkledockError, match="the reference comes first"):
        sparkledock.evaluate(model, reference)
    assert main(["evaluate", str(model), str(reference)]) == 1
    assert "give the reference first" in capsys.readouterr().err
    assert main(["evaluate", str(reference), str(model)]) == 0


def test_the_api_setup_has_the_commands_defaults(tmp_path, capsys):
    """``sparkledock.setup`` with no options makes the setup ``sparkledock setup`` makes."""
    from sparkledock.cli import main

    api, cli = tmp_path / "api", tmp_path / "cli"
    sparkledock.setup(REC, LIG, api, quiet=True)
    assert main(["setup", str(REC), str(LIG), "-o", str(cli), "--quiet"]) == 0
    for name in ("setup.json", "lightdock_2X9A_r_u.pdb", "init/initial_positions_0.dat"):
        assert (api / name).read_bytes() == (cli / name).read_bytes(), name


def _record(folder):
    return json.loads((folder / "run.json").read_text())


def test_run_options_are_one_schema_checked_before_any_work(tmp_path):
    """``sparkledock run``'s parser is built from RunOptions' fields (each under its own name,
    with the field's default), the API takes the same fields by keyword, and a bad value or
    an impossible combination is refused before the folder's lock or its record."""
    from dataclasses import fields

    from sparkledock.cli.options import run_options
    from sparkledock.cli.parser import build_parser
    from sparkledock.engine.options import RunOptions
    from sparkledock.schema import CLI

    args = build_parser().parse_args(["run", "setup", "3"])
    dests = set(vars(args))
    for f in fields(RunOptions):
        if f.metadata[CLI] is not None:
            assert f.name in dests and getattr(args, f.name) == f.default, f.name
    assert run_options(vars(args), None) == RunOptions()
    argv = ["run", "s", "3", "--swarm-ids", "0", "2", "-min", "--rotation-step", "0.3", "--exact"]
    given = run_options(vars(build_parser().parse_args(argv)), None)
    assert given == RunOptions(
        swarms=[0, 2], local_minimization=True, rotation_step=0.3, exact=True
    )

    folder = tmp_path / "setup"
    sparkledock.setup(REC, LIG, folder, swarms=2, glowworms=6, quiet=True)
    before = (folder / "run.json").read_text()
    refused = [
        ({"swarmz": [0]}, "unknown option"),
        ({"seed": "5"}, "seed must be an integer"),
        ({"exact": True, "scoring_mode": "fast"}, "scores exactly"),
        ({"exact": True, "stop_tolerance": 0.01}, "no swarm stops early"),
        ({"translation_step": -1.0}, "^translation_step must be positive"),
        ({"scoring_mode": "quick"}, "no such scoring mode"),
        ({"swarms": [-1]}, "swarm ids must be integers from 0"),
        ({"gso_config": str(tmp_path / "missing.conf")}, "missing.conf"),
    ]
    for options, said in refused:
        with pytest.raises(SparkledockError, match=said):
            sparkledock.run(folder, 2, quiet=True, **options)
        assert (folder / "run.json").read_text() == before  # (no record, no lock left)
        assert not list(folder.glob("swarm_*/gso_*.out"))
    result = sparkledock.run(folder, 2, quiet=True, swarms=[1], rotation_step=0.4)
    recorded = _record(folder)["options"]
    assert recorded["steps"] == 2 and recorded["swarms"] == [1]
    assert recorded["rotation_step"] == 0.4 and sorted(result.final) == [1]


def test_rank_filter_top_stages_are_what_the_commands_write(tmp_path, capsys):
    """``sparkledock rank``/``filter``/``top`` translate their arguments into the stage
    functions: the lists those return are the files the commands write, and each refuses a
    bad option before reading any file."""
    from sparkledock.analysis.rank import read_ranking
    from sparkledock.cli import main

    folder = tmp_path / "setup"
    restraints = SRC / "restraints.list"
    sparkledock.setup(REC, LIG, folder, swarms=3, glowworms=8, restraints=restraints, quiet=True)
    sparkledock.run(folder, 2, quiet=True)
    with pytest.raises(SparkledockError, match=r"cluster\.repr: no such file"):
        sparkledock.rank(folder, 2, unclustered="refuse")
    for swarm in range(3):
        gso = folder / f"swarm_{swarm}" / "gso_2.out"
        assert main(["cluster", str(folder), str(gso)]) == 0
    assert main(["rank", str(folder), "3", "2"]) == 0
    ranked = sparkledock.rank(folder, 2, unclustered="refuse")
    written = read_ranking(folder / "rank_by_scoring.list")  # (poses to 3 decimals)
    assert [(r.swarm, r.glowworm, round(r.score, 3)) for r in ranked] == [
        (r.swarm, r.glowworm, r.score) for r in written
    ]
    assert [(r.swarm, r.glowworm) for r in ranked] == [
        (r.swarm, r.glowworm)
        for r in sparkledock.rank(folder, 2)  # (clusters already there)
    ]
    assert len(sparkledock.rank(folder, 2, clusters=False)) == 24
    assert main(["rank", str(folder), "3", "2", "--method", "soft_consensus"]) == 0
    by_consensus = sparkledock.rank(folder, 2, method="soft_consensus")
    written = read_ranking(folder / "rank_by_soft_consensus.list")
    assert [(r.swarm, r.glowworm) for r in by_consensus] == [(r.swarm, r.glowworm) for r in written]

    ranking = folder / "rank_by_scoring.list"
    assert main(["filter", str(folder), str(ranking), str(restraints), "--fnat", "0.2"]) == 0
    filtered = sparkledock.filter_ranking(folder, ranking, restraints, fnat=0.2)
    kept = read_ranking(folder / "rank_filtered.list")
    assert [(r.swarm, r.glowworm) for r in filtered.kept] == [(r.swarm, r.glowworm) for r in kept]
    assert all(r.score > 0 for r in filtered.ranking)
    assert ((filtered.fractions >= 0.2) == filtered.keeps).all()

    assert main(["top", str(folder), str(ranking), "2", "-o", str(tmp_path / "cli")]) == 0
    paths = sparkledock.top(folder, ranking, 2, tmp_path / "api")
    assert [p.name for p in paths] == ["top_1.pdb", "top_2.pdb"]
    for path in paths:
        assert path.read_bytes() == (tmp_path / "cli" / path.name).read_bytes()
    from_list = sparkledock.top(folder, ranked[:1], 5, tmp_path / "list", suffix=".cif")
    assert [p.name for p in from_list] == ["top_1.cif"]
    capsys.readouterr()
    missing = tmp_path / "nothing.list"
    for call, said in (
        (lambda: sparkledock.rank(folder, 2, method="best"), "no such ranking"),
        (lambda: sparkledock.rank(folder, -1), "steps must be an integer from 0"),
        (lambda: sparkledock.filter_ranking(folder, missing, restraints, cutoff=0), "^cutoff must"),
        (lambda: sparkledock.filter_ranking(folder, missing, restraints, fnat=2), "^fnat must"),
        (lambda: sparkledock.filter_ranking(folder, missing, fnat="0.4"), "fnat must be a num"),
        (lambda: sparkledock.filter_ranking(folder, missing, fnatt=0.4), "unknown option.*fnatt"),
        (
            lambda: sparkledock.filter_ranking(folder, missing, molecules=("dna", "all")),
            "^molecules must be two of all, protein, nucleic",
        ),
        (lambda: sparkledock.top(folder, missing, 0), "n must be an integer"),
    ):
        with pytest.raises(SparkledockError, match=said):
            call()


def test_a_refused_option_is_named_by_its_field_in_python_and_by_its_flag_on_the_command_line(
    tmp_path, capsys
):
    """One refusal, two spellings: the API's keyword, the command line's flag (no Python
    caller reads ``--scoring-mode``; no command-line user reads ``scoring_mode``)."""
    from sparkledock.cli import main
    from sparkledock.errors import OptionError

    said = "scoring vdw: no fast mode (only dfire has one); use scoring_mode exact"
    with pytest.raises(OptionError, match=f"^{re.escape(said)}$"):
        sparkledock.dock(REC, LIG, tmp_path / "a", scoring="vdw", scoring_mode="fast")
    with pytest.raises(OptionError, match=r"^rank_method 'best': no such ranking"):
        sparkledock.dock(REC, LIG, tmp_path / "a", rank_method="best")
    argv = ["dock", str(REC), str(LIG), "-o", str(tmp_path / "b")]
    assert main([*argv, "--scoring", "vdw", "--scoring-mode", "fast"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "sparkledock: error: --scoring vdw: no fast mode (only dfire has one); "
        "use --scoring-mode exact"
    )
    assert main(["run", str(tmp_path / "c"), "2", "--translation-step", "0"]) == 1
    assert "error: --translation-step must be positive" in capsys.readouterr().err
    # seeds and rigid-only scoring too
    with pytest.raises(OptionError, match=r"^seed must be an integer from 0 to 2\*\*32 - 1"):
        sparkledock.dock(REC, LIG, tmp_path / "a", seed=-1)
    with pytest.raises(OptionError, match=r"^anm_seed must be an integer"):
        sparkledock.setup(REC, LIG, tmp_path / "a", anm_seed=2**32)
    rigid = r"^scoring mj3h scores rigid bodies only .*\(without anm\)$"
    with pytest.raises(OptionError, match=rigid):
        sparkledock.dock(REC, LIG, tmp_path / "a", scoring="mj3h", anm=True)
    assert main([*argv, "--scoring", "mj3h", "--anm"]) == 1
    assert capsys.readouterr().err.strip().endswith("normal modes (without --anm)")
    assert not any((tmp_path / name).exists() for name in "abc")


def test_errors_and_warnings_that_name_an_option_spell_it_as_their_reader_does(tmp_path, capsys):
    """Not only refused values: an error or warning whose way out is an option (``force``,
    ``skip_unknown``) names its field to a Python caller and its flag on the command line,
    and keeps both across processes (pickled, as MPI and the screen's workers pass them)."""
    import pickle
    import warnings

    from sparkledock.cli import main
    from sparkledock.cli.options import error_text
    from sparkledock.errors import InputFileError, OutOfMemoryError, SparkledockWarning

    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("x")
    with pytest.raises(InputFileError, match=r"use force to replace the docking's files"):
        sparkledock.dock(REC, LIG, full, swarms=1, glowworms=2, steps=1)
    assert main(["dock", str(REC), str(LIG), "-o", str(full), "-s", "1"]) == 1
    err = capsys.readouterr().err
    assert "use --force to replace" in err and "use force " not in err
    error = InputFileError("x: no such thing (use {0} or {1})", ("skip_unknown", "anm"))
    error.echo = True  # (MPI's marks travel with it)
    back = pickle.loads(pickle.dumps(error))
    assert (
        type(back) is InputFileError and str(back) == "x: no such thing (use skip_unknown or anm)"
    )
    assert error_text(back) == "x: no such thing (use --skip-unknown or --anm)" and back.echo
    memory = pickle.loads(pickle.dumps(OutOfMemoryError("too big")))
    assert isinstance(memory, MemoryError) and str(memory) == "too big"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.warn(SparkledockWarning("{0} 5000: many files", "steps"), stacklevel=1)
    assert str(seen[0].message) == "steps 5000: many files"
    assert error_text(seen[0].message) == "--steps 5000: many files"
    # a log line too: a finished docking asked again
    done = tmp_path / "done"
    small = ["-s", "1", "-g", "2", "--steps", "1", "--top", "1"]
    assert main(["dock", str(REC), str(LIG), "-o", str(done), *small]) == 0
    capsys.readouterr()
    assert main(["dock", str(REC), str(LIG), "-o", str(done), *small]) == 0
    assert "there; --force docks it again)" in capsys.readouterr().err
    sparkledock.dock(REC, LIG, done, swarms=1, glowworms=2, steps=1, top=1)
    assert "there; force docks it again)" in capsys.readouterr().err
