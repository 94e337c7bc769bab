"""The option schema (``sparkledock.schema``): each option is one dataclass field, from which
the command line's parser, the Python API's type check, the run record and the resume key
are derived."""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, fields

import pytest

from sparkledock.cli.commands import dock_options as dock_options_from
from sparkledock.cli.options import add_fields
from sparkledock.cli.parser import build_parser
from sparkledock.docking import DockOptions
from sparkledock.docking.options import key_options
from sparkledock.errors import SparkledockError
from sparkledock.runlog import _plain
from sparkledock.schema import CLI, check_fields, option

#: Fields the command line sets through other options (the engine's, the logging ones).
ELSEWHERE = {"engine": "--backend", "quiet": "--quiet"}


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


@pytest.mark.parametrize("command", ["dock", "screen"])
def test_every_dock_option_has_one_spelling_on_dock_and_screen(command):
    """A field of DockOptions is on the command line of both docking commands, under its own
    name, and not given it is None (the dataclass's default, or the protocol's, applies)."""
    parser = _subparser(command)
    dests = {a.dest: a for a in parser._actions}
    for f in fields(DockOptions):
        if f.name in ELSEWHERE:
            assert f.metadata[CLI] is None
            assert any(ELSEWHERE[f.name] in a.option_strings for a in parser._actions)
            continue
        assert f.name in dests, f.name
        assert dests[f.name].default is None, f.name


def test_command_line_and_api_give_the_same_options():
    """Every option given on the command line reaches DockOptions with its value, as the
    same keyword of the Python API gives it; options not given keep the defaults."""
    argv = [
        "dock", "r.pdb", "l.pdb", "--steps", "7", "-g", "9", "-s", "3", "--no-anm", "--top",
        "2", "--seed", "5", "--threads", "1", "--no-map-modified", "--scoring", "mj3h",
        "--scoring-mode", "exact", "--rank-method", "dfire", "--diverse", "--paratope",
        "--protocol", "lightdock", "--swarm-spacing", "6", "--stop-tolerance", "0.02",
        "--quiet", "--backend", "numba",
    ]  # fmt: skip
    args = build_parser().parse_args(argv)
    given = dock_options_from(args)
    expected = DockOptions(
        steps=7, glowworms=9, swarms=3, anm=False, top=2, seed=5, threads=1, quiet=True,
        engine=given.engine, map_modified=False, scoring="mj3h", scoring_mode="exact",
        rank_method="dfire", diverse=True, paratope=True, protocol="lightdock",
        swarm_spacing=6.0, stop_tolerance=0.02,
    )  # fmt: skip
    assert given == expected
    untouched = dock_options_from(build_parser().parse_args(["dock", "r.pdb", "l.pdb"]))
    assert dataclasses.replace(untouched, engine=None) == DockOptions()
    # the API's default engine is the command line's (--backend auto): same resume key
    from sparkledock.stages.checks import options_of

    api = options_of({"steps": 7}, DockOptions, "dock")
    cli = dock_options_from(build_parser().parse_args(["dock", "r", "l", "--steps", "7"]))
    assert api == cli and key_options(api) == key_options(cli)


def test_a_new_option_is_one_field():
    """A dataclass with an option field: the parser has its flag (help with its default), the
    type check judges it, the resume key takes it by its rule."""

    @dataclass(frozen=True)
    class Toy:
        depth: int = option(3, "--depth", help="how deep", type=int, key="always")
        loud: bool = option(False, "--loud", help="say more", action="store_true")

    parser = argparse.ArgumentParser()
    add_fields(parser, Toy, given_only=False)
    assert parser.parse_args(["--depth", "4", "--loud"]) == argparse.Namespace(depth=4, loud=True)
    assert "how deep (default: 3)" in " ".join(parser.format_help().split())
    with pytest.raises(SparkledockError, match="depth must be an integer"):
        check_fields(Toy(depth="4"), "toy")
    assert [f.metadata["key"] for f in fields(Toy)] == ["always", None]


def test_resume_key_and_record_follow_the_fields():
    """The resume key holds exactly the fields whose metadata put them in it (``unless``
    ones only away from their off value), and a run record's options are the fields."""
    chosen = key_options(DockOptions())
    rules = {f.name: f.metadata["key"] for f in fields(DockOptions)}
    always = {n for n, r in rules.items() if r == "always"}
    assert set(chosen) == always | {"scoring_mode"}  # (None is not its off value, exact)
    exact = key_options(DockOptions(scoring_mode="exact"))
    assert set(exact) == always
    membrane = key_options(DockOptions(membrane=True, scoring_mode="fast"))
    assert set(membrane) == always | {"membrane", "scoring_mode"}
    record = _plain(DockOptions(steps=3, engine=None))
    assert list(record) == list(rules) and record["steps"] == 3


def test_every_setup_option_is_on_setups_command_line_with_its_default():
    """Each SetupOptions field is spelled on ``sparkledock setup`` under its own name and
    defaults to the field's default (swarm_spacing comes from --swarm-spacing and --protocol,
    lightdock_area from --protocol alone), so parsing no option gives SetupOptions' defaults."""
    from sparkledock.cli.options import setup_options
    from sparkledock.preparation.prepare import SetupOptions

    parser = _subparser("setup")
    dests = {a.dest: a for a in parser._actions}
    for f in fields(SetupOptions):
        if f.name == "swarm_spacing":
            assert f.metadata[CLI] is None and dests["swarm_spacing"].default is None
            continue
        if f.name == "lightdock_area":
            assert f.metadata[CLI] is None and f.name not in dests
            continue
        assert dests[f.name].default == f.default, f.name
    args = build_parser().parse_args(["setup", "r.pdb", "l.pdb"])
    assert setup_options(vars(args)) == SetupOptions()
    args = build_parser().parse_args(["setup", "r.pdb", "l.pdb", "--protocol", "lightdock"])
    assert setup_options(vars(args)) == SetupOptions(lightdock_area=True)
    # dock's setup: LightDock's swarm count under its protocol only
    from sparkledock.docking.options import dock_setup_options, with_defaults

    for protocol in ("sparkledock", "lightdock"):
        options = with_defaults(DockOptions(protocol=protocol, engine=None), restrained=False)
        assert dock_setup_options(options).lightdock_area is (protocol == "lightdock")
    args = build_parser().parse_args(["setup", "r.pdb", "l.pdb", "-sp", "--no-map-modified"])
    chosen = setup_options(vars(args))
    assert chosen.write_starting_positions is True and chosen.map_modified is False


def test_dock_shares_setups_spelling_of_shared_options():
    from sparkledock.preparation.prepare import SetupOptions
    from sparkledock.schema import flag_of

    for name in ("membrane", "transmembrane", "paratope", "map_modified"):
        assert flag_of(DockOptions, name) is flag_of(SetupOptions, name)


def test_dock_parses_each_input_once(tmp_path, monkeypatch):
    """The checks read the partners and restraints; the setup takes them as read (issue 33:
    objects between stages), so each input structure is parsed once per docking."""
    import sparkledock.docking.checks as checks
    import sparkledock.preparation.inputs as inputs
    from sparkledock import example_files
    from sparkledock.cli import main

    reads: list[str] = []
    original = inputs.read_structure

    def counted(path):
        reads.append(str(path))
        return original(path)

    monkeypatch.setattr(checks, "read_structure", counted)
    monkeypatch.setattr(inputs, "read_structure", counted)
    files = example_files()
    argv = ["dock", str(files["receptor"]), str(files["ligand"]), "-r", str(files["restraints"])]
    argv += ["-o", str(tmp_path / "out"), "-s", "2", "-g", "6", "--steps", "3", "--quiet"]
    assert main(argv) == 0
    assert sorted(reads) == sorted([str(files["receptor"]), str(files["ligand"])])


def test_the_docking_setup_takes_every_option_the_two_stages_share():
    """dock's setup options come from DockOptions by field name: a shared option given to
    dock reaches the setup, and the setup drops OXT, hydrogens and waters."""
    from sparkledock.docking.options import dock_setup_options
    from sparkledock.preparation.prepare import SetupOptions

    chosen = DockOptions(
        glowworms=7, swarms=3, anm=False, seed=9, map_modified=False, scoring="mj3h",
        transmembrane=True, swarm_spacing=6.0,
    )  # fmt: skip
    setup = dock_setup_options(chosen)
    shared = {f.name for f in fields(SetupOptions)} & {f.name for f in fields(DockOptions)}
    assert shared >= {"glowworms", "swarms", "seed", "scoring", "membrane", "paratope"}
    for name in shared:
        assert getattr(setup, name) == getattr(chosen, name), name
    assert setup.noxt and setup.noh and setup.now


def test_rank_options_are_one_schema_for_the_command_and_the_api(tmp_path):
    """``sparkledock rank``'s options are RankOptions' fields with their defaults (parsing
    none gives the API's defaults but the unclustered rule the command sets), and a bad
    value is refused naming the field in Python and the flag on the command line."""
    import sparkledock
    from sparkledock.analysis.ranking_options import RankOptions
    from sparkledock.cli.options import error_text, options_by_name
    from sparkledock.errors import OptionError

    parser = _subparser("rank")
    dests = {a.dest: a for a in parser._actions}
    for f in fields(RankOptions):
        if f.name == "unclustered":
            assert f.metadata[CLI] is None and f.name not in dests
            continue
        assert dests[f.name].default == f.default, f.name
    args = build_parser().parse_args(["rank", "s", "3", "10"])
    assert RankOptions(**options_by_name(RankOptions, vars(args))) == RankOptions()
    args = build_parser().parse_args(["rank", "s", "3", "10", "--ignore-clusters", "--diverse"])
    chosen = options_by_name(RankOptions, vars(args))
    assert chosen["clusters"] is False and chosen["diverse"] is True
    with pytest.raises(OptionError, match=r"^unclustered must be one of cluster, all, refuse"):
        sparkledock.rank(tmp_path, 1, unclustered="skip")
    with pytest.raises(OptionError) as refused:
        sparkledock.rank(tmp_path, 1, method="best")
    assert str(refused.value).startswith("method 'best': no such ranking")
    assert error_text(refused.value).startswith("--method 'best': no such ranking")
    with pytest.raises(SparkledockError, match=r"^rank: diverse must be True or False"):
        sparkledock.rank(tmp_path, 1, diverse="yes")


def test_evaluate_options_are_one_schema_for_the_command_and_the_api(tmp_path, capsys):
    """``--receptor-chains H,L`` is EvaluateOptions' field as the API takes it (a list of
    chain names); a string or an empty name is refused before any file is read, naming the
    field in Python and the flag on the command line."""
    import sparkledock
    from sparkledock.analysis.options import EvaluateOptions
    from sparkledock.errors import OptionError

    args = build_parser().parse_args(["evaluate", "ref.pdb", "m.pdb", "--receptor-chains", "H,L"])
    assert args.receptor_chains == ("H", "L")
    assert build_parser().parse_args(["evaluate", "r", "m"]).receptor_chains is None
    assert EvaluateOptions().receptor_chains is None
    ref, model = tmp_path / "ref.pdb", tmp_path / "m.pdb"
    for path in (ref, model):
        path.write_text("END\n")
    for bad in ("H,L", ["H", ""], []):
        with pytest.raises(OptionError, match=r"^receptor_chains must be one or more chain"):
            sparkledock.evaluate(ref, model, bad)
    from sparkledock.cli import main

    assert main(["evaluate", str(ref), str(model), "--receptor-chains", "H,,L"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""  # (refused before the table's header)
    assert "error: --receptor-chains must be one or more chain names" in captured.err


def test_model_options_are_one_schema_for_top_generate_and_the_api(tmp_path):
    """``--format pdb|cif`` of ``top`` and ``generate`` is ModelOptions' ``suffix`` as the
    API takes it; another format is refused before any file is read, by field in Python."""
    import sparkledock
    from sparkledock.analysis.options import ModelOptions
    from sparkledock.errors import OptionError
    from sparkledock.workflow.commands import generate_models

    for command in (["top", "s", "r", "3"], ["generate", "s", "g", "3"]):
        assert build_parser().parse_args(command).suffix == ModelOptions().suffix == ".pdb"
        assert build_parser().parse_args([*command, "--format", "cif"]).suffix == ".cif"
        with pytest.raises(SystemExit):
            build_parser().parse_args([*command, "--format", "xyz"])
    missing = tmp_path / "nothing"
    with pytest.raises(OptionError, match=r"^top: suffix must be \.pdb or \.cif, got '\.xyz'"):
        sparkledock.top(missing, missing / "ranking", 1, suffix=".xyz")
    with pytest.raises(OptionError, match=r"^generate: suffix must be \.pdb or \.cif"):
        generate_models(missing, missing / "gso_1.out", 1, ".pdf")


def test_score_options_are_one_schema_for_the_command_and_the_api(tmp_path, capsys):
    """``sparkledock score``'s options are ScoreOptions' fields with their defaults
    (``--no-lightdock-compat`` turns ``lightdock_compat`` off); a bad value is refused before
    any file is read, naming the field in Python and the flag on the command line."""
    import sparkledock
    from sparkledock.cli import main
    from sparkledock.cli.options import options_by_name
    from sparkledock.errors import OptionError
    from sparkledock.scoring.options import ScoreOptions

    parser = _subparser("score")
    dests = {a.dest: a for a in parser._actions}
    for f in fields(ScoreOptions):
        assert dests[f.name].default == f.default, f.name
    args = build_parser().parse_args(["score", "s", "p"])
    assert ScoreOptions(**options_by_name(ScoreOptions, vars(args))) == ScoreOptions()
    args = build_parser().parse_args(["score", "s", "p", "--no-lightdock-compat", "--terms"])
    chosen = options_by_name(ScoreOptions, vars(args))
    assert chosen["lightdock_compat"] is False and chosen["terms"] is True
    missing = tmp_path / "nothing"  # (refused before it is read)
    with pytest.raises(OptionError, match=r"^threads must be at least 1, got 0"):
        sparkledock.score_poses(missing, missing, threads=0)
    with pytest.raises(SparkledockError, match=r"^score: skip_unknown must be True or False"):
        sparkledock.score_poses(missing, missing, skip_unknown="yes")
    assert main(["score", str(missing), str(missing), "--scoring", " "]) == 1
    captured = capsys.readouterr()
    assert "error: --scoring must name a scoring function" in captured.err
