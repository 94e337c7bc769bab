"""Hostile input to the features around the core (issue 34): each class refused in one line
before any work (no folder, lock or record left), or read as the user meant."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

import sparkledock
from conftest import BENCH
from sparkledock.cli import main
from sparkledock.docking import DockOptions
from sparkledock.docking.checks import check_docking, check_scoring
from sparkledock.docking.options import with_defaults
from sparkledock.errors import SparkledockError, SparkledockWarning
from sparkledock.molecule.structure import read_structure
from sparkledock.scoring import get_scoring

SRC = BENCH / "2X9A"
TORCH = importlib.util.find_spec("torch") is not None
REC, LIG = SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb"
SMALL = ["--steps", "2", "-g", "5", "-s", "1", "--quiet"]


def _refused(capsys, argv: list[str], says: str) -> None:
    assert main(argv) == 1
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "error" in err[0] and says in err[0], err


@pytest.mark.parametrize("command", ["setup", "dock"])
def test_missing_file_or_folder_as_an_input_is_one_line_before_work(tmp_path, capsys, command):
    (tmp_path / "adir").mkdir()
    out = tmp_path / "out"
    _refused(capsys, [command, str(tmp_path / "nope.pdb"), str(LIG), "-o", str(out)], "no such")
    _refused(capsys, [command, str(tmp_path / "adir"), str(LIG), "-o", str(out)], "a folder")
    argv = [command, str(REC), str(LIG), "-r", str(tmp_path / "adir"), "-o", str(out)]
    _refused(capsys, argv, "adir: a folder, not a restraints file")
    assert not out.exists()


def test_binary_scoring_file_and_meaningless_weights_are_refused(tmp_path, capsys):
    (tmp_path / "w.txt").write_bytes(b"\x8f\x00\x01binary")
    out = tmp_path / "out"
    base = ["dock", str(REC), str(LIG), "-o", str(out), *SMALL]
    _refused(capsys, [*base, "--scoring", str(tmp_path / "w.txt")], "a binary file")
    _refused(capsys, [*base, "--scoring", "dfire:1e308"], "beyond")
    _refused(capsys, [*base, "--scoring", "dfire:0,vdw:0"], "every weight is zero")
    _refused(capsys, [*base, "--scoring", "dfire:1,fastdfire:1"], "the same function")
    assert not out.exists()
    assert get_scoring("dfire:1,vdw:-0.5").terms == [("dfire", 1.0), ("vdw", -0.5)]
    with pytest.warns(SparkledockWarning, match="every weight is negative"):
        check_scoring(with_defaults(DockOptions(scoring="dfire:-1,vdw:-1"), False))


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--scoring", "vdw", "--scoring-mode", "fast"], "no fast mode"),
        (["--scoring", "dfire:1,vdw:1", "--scoring-mode", "fast"], "no fast mode"),
        # (without PyTorch installed, the torch backend itself is refused first)
        (["--scoring", "pisa", "--backend", "torch"], "no 'torch' backend" if TORCH else "PyTorch"),
        (["--rank-method", "paratope"], "needs a docking with --paratope"),
        (["--rank-method", "restraints"], "needs restraints"),
        (["-g", "50000000"], "would need"),
    ],
)
def test_combinations_that_cannot_run_are_refused_before_the_setup(tmp_path, capsys, extra, says):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")  # a non-empty folder is left exactly as it was
    argv = ["dock", str(REC), str(LIG), "-o", str(out), *SMALL, *extra, "--force"]
    _refused(capsys, argv, says)
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]


def test_a_rigid_only_function_docks_without_normal_modes(tmp_path):
    chosen = with_defaults(DockOptions(scoring="mj3h"), restrained=False)
    assert chosen.anm is False and with_defaults(DockOptions(), False).anm is True
    with pytest.raises(SparkledockError, match="rigid bodies only"):
        rigid = with_defaults(DockOptions(scoring="mj3h", anm=True), False)
        check_docking(REC, LIG, None, None, rigid)
    out = tmp_path / "out"
    assert main(["dock", str(REC), str(LIG), "-o", str(out), "--scoring", "mj3h", *SMALL]) == 0
    setup = json.loads((out / "setup" / "setup.json").read_text())
    assert setup["use_anm"] is False and (out / "top_1.pdb").is_file()


def test_a_ranking_function_that_cannot_type_a_partner_is_refused(tmp_path):
    dna = tmp_path / "dna.pdb"
    dna.write_text(
        "ATOM      1  P    DA B   1      10.000  10.000  10.000  1.00  0.00           P\n"
        "ATOM      2  C1'  DA B   1      11.000  10.000  10.000  1.00  0.00           C\n"
    )
    options = with_defaults(DockOptions(rank_method="soft_consensus"), restrained=False)
    with pytest.raises(SparkledockError, match="dfire_soft' scores protein only"):
        check_docking(REC, dna, None, None, options)


def test_huge_glowworm_counts_are_refused_before_allocating(tmp_path, capsys):
    out = tmp_path / "s"
    argv = ["setup", str(REC), str(LIG), "-g", "2000000000", "-o", str(out)]
    _refused(capsys, argv, "would need")
    assert not out.exists()


def test_two_digit_charge_columns_are_read(tmp_path):
    lines = LIG.read_text().splitlines()
    odd = [ln[:78].ljust(78) + "19" if ln.startswith("ATOM") else ln for ln in lines]
    (tmp_path / "l.pdb").write_text("\n".join(odd) + "\n")
    assert (read_structure(tmp_path / "l.pdb").coords == read_structure(LIG).coords).all()


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"steps": "5"}, "steps must be an integer"),
        ({"swarms": "two"}, "swarms must be an integer"),
        ({"glowworms": 2.5}, "glowworms must be an integer"),
        ({"scoring": None}, "scoring must be a string"),
        ({"membrane": True, "transmembrane": True}, "give one of them"),
        ({"scoring_mode": "turbo"}, "no such scoring mode"),
        ({"engine": "gpu"}, "unknown backend"),
    ],
)
def test_the_python_api_checks_its_arguments_like_the_cli(tmp_path, options, says):
    with pytest.raises(SparkledockError, match=says):
        sparkledock.dock(REC, LIG, tmp_path / "out", quiet=True, **options)
    assert not (tmp_path / "out").exists()


def test_the_python_api_takes_an_engine_by_name(tmp_path):
    with pytest.raises(SparkledockError, match="steps must be an integer"):
        sparkledock.run(tmp_path, "5")
    opts = {"engine": "numba", "steps": 2, "glowworms": 4, "swarms": 1, "quiet": True}
    opts["redock_sites"] = 0
    result = sparkledock.dock(REC, LIG, tmp_path / "out", **opts)
    assert result.record["engine"].startswith("numba")


def test_lightdock_pdb_columns_hold_what_setup_writes_or_setup_refuses(tmp_path):
    from dataclasses import replace

    from sparkledock.io.lightdock import format_lightdock_pdb
    from sparkledock.preparation.inputs import check_pdb_columns

    atoms = read_structure(LIG)
    numbered = replace(atoms, serial=atoms.serial + 100_000)
    with pytest.warns(SparkledockWarning, match="wrap round"):
        check_pdb_columns(numbered, LIG)
    lines = format_lightdock_pdb(numbered).splitlines()
    assert [int(ln[6:11]) for ln in lines] == [int(s) % 100_000 for s in numbered.serial]
    assert all(len(ln) == len(lines[0]) for ln in lines)  # the columns do not move
    far = atoms.coords.copy()
    far[3] = [-1000.5, 0.0, 0.0]
    with pytest.raises(SparkledockError, match="beyond PDB's coordinate columns"):
        check_pdb_columns(atoms.with_coords(far), LIG)
    big = replace(atoms, res_seq=atoms.res_seq + 10_000)
    with pytest.raises(SparkledockError, match="four columns"):
        check_pdb_columns(big, LIG)
    chains = atoms.chain.astype(object)
    chains[:] = "AB"
    with pytest.raises(SparkledockError, match="one-character chain"):
        check_pdb_columns(replace(atoms, chain=chains.astype(str)), LIG)


def test_membrane_resolutions_are_checked_before_reading(tmp_path, capsys):
    base = ["lightdock", "lgd_create_membrane.py", str(tmp_path / "missing.pdb"), "A.ALA.1"]
    _refused(capsys, [*base, "-rr", "nan"], "resolutions must be positive numbers")
    _refused(capsys, [*base, "-rr", "1e-9"], "more than a PDB file holds")
    _refused(capsys, [*base, "-ro", "1e12"], "more than a PDB file holds")
    _refused(capsys, [*base, "-ro", "-1"], "offset must be 0 or a positive number")


def test_mmcif_atoms_without_coordinates_are_named(tmp_path):
    from sparkledock.molecule.structure import write_structure

    write_structure(read_structure(LIG), tmp_path / "l.cif")
    text = (tmp_path / "l.cif").read_text().splitlines()
    first = next(i for i, ln in enumerate(text) if ln.startswith("ATOM"))
    fields = text[first].split()
    fields[10] = "?"
    text[first] = " ".join(fields)
    (tmp_path / "l.cif").write_text("\n".join(text) + "\n")
    with pytest.raises(SparkledockError, match="has no finite coordinates"):
        read_structure(tmp_path / "l.cif")


def test_a_missing_extra_is_named_before_any_work(tmp_path, monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "freesasa" else real(name, *a)
    )
    out = tmp_path / "out"
    dock = ["dock", str(REC), str(LIG), "-o", str(out), *SMALL, "--scoring", "cpydock"]
    _refused(capsys, dock, "freesasa")
    assert not out.exists()
    # a setup for a function that cannot run here is refused before its first file
    setup = ["setup", str(REC), str(LIG), "-o", str(out), "--scoring", "cpydock", "--quiet"]
    _refused(capsys, setup, "freesasa")
    assert not out.exists()


@pytest.mark.parametrize(
    "args, says",
    [
        ((None, LIG, "out"), "receptor must be a file or folder path, got None"),
        ((REC, None, "out"), "ligand must be a file or folder path, got None"),
        ((REC, LIG, None), "out must be a file or folder path, got None"),
        ((3, LIG, "out"), "receptor must be a file or folder path, got 3"),
    ],
)
def test_a_path_argument_that_is_not_a_path_is_one_line(tmp_path, monkeypatch, args, says):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SparkledockError, match=says):
        sparkledock.dock(*args, quiet=True)
    with pytest.raises(SparkledockError, match="restraints must be a file or folder path"):
        sparkledock.dock(REC, LIG, "out", restraints=[None], quiet=True)
    with pytest.raises(SparkledockError, match="pairs must be a file or folder path"):
        sparkledock.screen(None, "out", quiet=True)
    assert list(tmp_path.iterdir()) == []


def test_a_file_named_like_a_scoring_function_does_not_shadow_it(tmp_path, monkeypatch):
    """``--scoring dfire`` names the function even with a file ``dfire`` in the working
    folder (a path that is no function's name is still read as a scoring file)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dfire").write_text("dfire 1\n")  # (LightDock's dfire: sparkledock's pydfire)
    (tmp_path / "dfire:1,vdw:2").write_text("")
    assert type(get_scoring("dfire")).__name__ == "DFIRE"
    assert get_scoring("dfire:1,vdw:2").terms == [("dfire", 1.0), ("vdw", 2.0)]
    (tmp_path / "mine.txt").write_text("dfire 1\n")
    assert get_scoring("mine.txt").name == "pydfire"


def test_quiet_surprises_are_said(tmp_path):
    """A file cut inside an atom record, atoms listed twice, an atom far from the rest and
    membrane beads in a ligand are docked as given, with a warning each."""
    from sparkledock.preparation.inputs import read_partners
    from sparkledock.preparation.prepare import SetupOptions

    text = LIG.read_text()
    atoms = [ln for ln in text.splitlines() if ln.startswith("ATOM")]
    (tmp_path / "cut.pdb").write_text("\n".join(atoms)[:-20])  # (inside the occupancy)
    with pytest.warns(SparkledockWarning, match="cut short"):
        read_structure(tmp_path / "cut.pdb")
    half = len(atoms) // 2  # two files pasted into one: what follows END is not read
    pasted = "\n".join([*atoms[:half], "END", *atoms[half:], "END"]) + "\n"
    (tmp_path / "pasted.pdb").write_text(pasted)
    with pytest.warns(
        SparkledockWarning, match=f"{len(atoms) - half} atom record.s. after the END"
    ):
        assert len(read_structure(tmp_path / "pasted.pdb")) == half
    far = f"{atoms[-1][:30]}{200.0:8.3f}{0.0:8.3f}{0.0:8.3f}{atoms[-1][54:]}"
    bead = "ATOM  99999  BJ  MMB Z 999      0.000   0.000   0.000  1.00  0.00           P"
    odd = "\n".join([*atoms, atoms[0], far.replace(" A ", " Z "), bead]) + "\nEND\n"
    (tmp_path / "odd.pdb").write_text(odd)
    with pytest.warns(SparkledockWarning) as caught:
        read_partners(REC, tmp_path / "odd.pdb", None, SetupOptions())
    said = " ".join(str(w.message) for w in caught)
    assert "listed more than once" in said and "from every other atom" in said
    assert "membrane bead(s) (MMB) in the ligand" in said


def test_a_filter_over_nucleotides_of_a_protein_says_so(setups):
    from sparkledock.analysis.filter import satisfaction
    from sparkledock.io.restraints import read_restraints

    setup = setups("2X9A")
    restraints = read_restraints(SRC / "restraints.list")
    poses = np.zeros((1, setup.layout.size))
    poses[0, 3] = 1.0
    with pytest.warns(SparkledockWarning, match="receptor has no nucleotides"):
        assert satisfaction(setup, poses, restraints, molecules=("nucleic", "all"))[0] == 0.0


def test_a_non_finite_score_is_never_written(tmp_path):
    from dataclasses import replace

    from sparkledock.engine import gso
    from sparkledock.engine.checkpoint import save_outputs

    poses = np.zeros((2, 3, 7))
    poses[..., 3] = 1.0
    state = gso.initial_state(poses, gso.GSOParameters())
    scores = np.zeros((2, 3))
    scores[1, 2] = np.inf
    with pytest.raises(SparkledockError, match="swarm 8, step 0: a non-finite score"):
        save_outputs(tmp_path, [4, 8], replace(state, scores=scores))
    assert not list(tmp_path.rglob("gso_*.out"))


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["setup", "{R}", "{L}", "-o", "o", "--fixed-distance", "1e308"], "fixed distance must be"),
        (["setup", "{R}", "{L}", "-o", "o", "--swarm-radius", "5000"], "swarm radius must be at"),
        (["setup", "{R}", "{L}", "-o", "o", "--anm", "--anm-rmsd", "1e308"], "anm rmsd must be"),
        (["dock", "{R}", "{L}", "-o", "o", "--stop-tolerance", "nan"], "0 or a positive"),
        (["dock", "{R}", "{L}", "-o", "o", "--swarm-spacing", "1e308"], "up to 1000"),
    ],
)
def test_meaningless_lengths_and_fractions_are_refused(tmp_path, capsys, argv, says):
    argv = [str(REC) if a == "{R}" else str(LIG) if a == "{L}" else a for a in argv]
    argv = [str(tmp_path / "o") if a == "o" else a for a in argv]
    _refused(capsys, argv, says)
    assert not (tmp_path / "o").exists()


def test_run_steps_and_filter_numbers_are_refused(tmp_path, capsys):
    from conftest import writable_setup

    setup = writable_setup(tmp_path / "s")
    for flag, value, says in (
        ("--translation-step", "inf", "at most 100"),
        ("--rotation-step", "1.5", "at most 1"),
        ("--nmodes-step", "nan", "must be positive"),
    ):
        _refused(capsys, ["run", str(setup), "2", flag, value], says)
    assert not list(setup.glob("swarm_*/gso_2.out"))
    ranking = tmp_path / "rank.list"
    ranking.write_text("")
    for flag, value, says in (("--cutoff", "nan", "--cutoff"), ("--fnat", "inf", "--fnat")):
        argv = ["filter", str(setup), str(ranking), str(SRC / "restraints.list"), flag, value]
        _refused(capsys, argv, says)
