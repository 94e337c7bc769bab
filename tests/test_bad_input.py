"""Bad or unusual input: a clear one-line error before any work, or a warning and the
expected reading; never a traceback, never a silently wrong result."""

from __future__ import annotations

import gzip
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.analysis.evaluate import evaluate
from sparkledock.analysis.models import write_models
from sparkledock.cli import main
from sparkledock.docking.screen import read_pairs
from sparkledock.engine.memory import plan_groups
from sparkledock.errors import (
    InputFileError,
    ModifiedResidueWarning,
    MultiModelWarning,
    OutOfMemoryError,
    RestraintError,
    SparkledockError,
)
from sparkledock.io.lightdock import load_setup
from sparkledock.io.restraints import read_haddock_restraints, read_restraints
from sparkledock.molecule.structure import clean, read_structure, write_structure
from sparkledock.preparation.prepare import SetupOptions, prepare_setup

SRC = BENCH / "2X9A"
REC, LIG = SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb"


def _one_line_error(capsys, argv: list[str], says: str) -> None:
    assert main(argv) == 1
    err = [ln for ln in capsys.readouterr().err.splitlines() if "error" in ln]
    assert len(err) == 1 and says in err[0], err


def test_gzipped_pdb_and_mmcif_and_latin1_read_as_the_plain_file(tmp_path):
    plain = read_structure(LIG)
    (tmp_path / "l.pdb.gz").write_bytes(gzip.compress(LIG.read_bytes()))
    write_structure(plain, tmp_path / "l.cif")
    (tmp_path / "l.cif.gz").write_bytes(gzip.compress((tmp_path / "l.cif").read_bytes()))
    text = LIG.read_bytes()
    (tmp_path / "latin1.pdb").write_bytes(b"REMARK   Universit\xe4t M\xfcnster\n" + text)
    for name in ("l.pdb.gz", "l.cif.gz", "latin1.pdb"):
        atoms = read_structure(tmp_path / name)
        assert np.array_equal(atoms.coords, plain.coords), name
        assert list(atoms.atom_name) == list(plain.atom_name)
    out = prepare_setup(REC, tmp_path / "l.cif.gz", tmp_path / "s", options=SetupOptions(4, 2))
    assert (out / "lightdock_l.pdb").is_file() and (out / "l.pdb").is_file()


def test_binary_files_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "x.pdb").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (tmp_path / "r.list").write_bytes(b"R A.ILE.16\n\x00\x01\x02")
    _one_line_error(
        capsys,
        ["setup", str(REC), str(tmp_path / "x.pdb"), "-o", str(tmp_path / "s")],
        "x.pdb: a binary file",
    )
    _one_line_error(
        capsys,
        ["setup", str(REC), str(LIG), "-r", str(tmp_path / "r.list"), "-o", str(tmp_path / "s")],
        "r.list: a binary file",
    )
    assert not (tmp_path / "s").exists()
    (tmp_path / "poses.dat").write_bytes(b"\x00\x01 binary poses")
    _one_line_error(
        capsys,
        ["score", str(SRC / "lightdock_setup"), str(tmp_path / "poses.dat")],
        "poses.dat: a binary file",
    )
    (tmp_path / "pairs.csv").write_bytes(b"name,receptor,ligand\n\xff\xfe")
    with pytest.raises(InputFileError, match=r"pairs\.csv:2: not UTF-8"):
        read_pairs(tmp_path / "pairs.csv")


def test_multi_model_file_uses_the_first_with_a_warning(tmp_path):
    body = [ln for ln in LIG.read_text().splitlines() if ln.startswith("ATOM")]
    moved = [ln[:30] + f"{float(ln[30:38]) + 5:8.3f}" + ln[38:] for ln in body]
    text = "MODEL        1\n" + "\n".join(body) + "\nENDMDL\nMODEL        2\n"
    (tmp_path / "nmr.pdb").write_text(text + "\n".join(moved) + "\nENDMDL\nEND\n")
    with pytest.warns(MultiModelWarning, match="2 models; using the first"):
        atoms = read_structure(tmp_path / "nmr.pdb")
    assert np.array_equal(atoms.coords, read_structure(LIG).coords)


def _modified(tmp_path: Path) -> tuple[Path, int, int]:
    """The receptor with its first MET as MSE (SD -> SE) and first SER as SEP (plus a
    phosphate), both HETATM; returns the file and the two residue numbers."""
    lines = REC.read_text().splitlines()
    met = next(int(ln[22:26]) for ln in lines if ln.startswith("ATOM") and ln[17:20] == "MET")
    ser = next(int(ln[22:26]) for ln in lines if ln.startswith("ATOM") and ln[17:20] == "SER")
    out = []
    for ln in lines:
        if ln.startswith("ATOM") and int(ln[22:26]) == met:
            ln = "HETATM" + ln[6:17] + "MSE" + ln[20:]
            if ln[12:16] == " SD ":
                ln = ln[:12] + "SE  " + ln[16:76] + "SE"
        if ln.startswith("ATOM") and int(ln[22:26]) == ser:
            ln = "HETATM" + ln[6:17] + "SEP" + ln[20:]
            if ln[12:16] == " OG ":
                out.append(ln)
                ln = (
                    ln[:12]
                    + " P  "
                    + ln[16:30]
                    + f"{float(ln[30:38]) + 1.6:8.3f}"
                    + ln[38:76]
                    + " P"
                )
        out.append(ln)
    path = tmp_path / "mod.pdb"
    path.write_text("\n".join(out) + "\n")
    return path, met, ser


def test_modified_residues_read_as_their_parents(tmp_path):
    path, met, ser = _modified(tmp_path)
    with pytest.warns(ModifiedResidueWarning, match=f"MSE A.{met}.*SEP A.{ser}"):
        atoms = clean(read_structure(path))
    reference = clean(read_structure(REC))
    assert list(atoms.res_name) == list(reference.res_name)
    assert list(atoms.atom_name) == list(reference.atom_name)  # SE -> SD, P dropped
    assert np.array_equal(atoms.coords, reference.coords) and not atoms.hetero.any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dropped = clean(read_structure(path), map_modified=False)
    assert met not in set(dropped.res_seq) and ser not in set(dropped.res_seq)
    # the setup docks the parent amino acids
    with pytest.warns(ModifiedResidueWarning):
        out = prepare_setup(path, LIG, tmp_path / "s", options=SetupOptions(glowworms=4, swarms=2))
    assert len(load_setup(out).receptor.atoms) == len(reference)


def test_selenomethionine_named_met_reads_its_selenium_as_sd(tmp_path):
    """A MET whose SD is an SE atom (a selenomethionine renamed MET, as in 1KKL's unbound
    receptor): read as MET's SD with one warning naming it, so DFIRE types it; the same
    atoms, names and coordinates as the file with SD."""
    lines = REC.read_text().splitlines()
    met = next(int(ln[22:26]) for ln in lines if ln.startswith("ATOM") and ln[17:20] == "MET")
    swapped = [
        ln[:12] + "SE  " + ln[16:76] + "SE"
        if ln.startswith("ATOM") and int(ln[22:26]) == met and ln[12:16] == " SD "
        else ln
        for ln in lines
    ]
    path = tmp_path / "se.pdb"
    path.write_text("\n".join(swapped) + "\n")
    assert path.read_text() != REC.read_text()
    with pytest.warns(ModifiedResidueWarning, match=rf"SE atom of MET A\.{met} .*as SD"):
        atoms = clean(read_structure(path))
    reference = clean(read_structure(REC))
    assert list(atoms.atom_name) == list(reference.atom_name)
    assert np.array_equal(atoms.coords, reference.coords)
    with pytest.warns(ModifiedResidueWarning):
        out = prepare_setup(path, LIG, tmp_path / "s", options=SetupOptions(glowworms=4, swarms=2))
    assert len(load_setup(out).receptor.atoms) == len(reference)


def test_receptor_of_hetero_groups_only(tmp_path, capsys):
    (tmp_path / "het.pdb").write_text(REC.read_text().replace("ATOM  ", "HETATM"))
    _one_line_error(
        capsys,
        ["setup", str(tmp_path / "het.pdb"), str(LIG), "-o", str(tmp_path / "s")],
        "nothing left to dock",
    )
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "no restraints in the file"),
        ("# only a comment\n\n", "no restraints in the file"),
        ("R AB.ILE.16\n", "restraint AB.ILE.16 not found"),
        ("R A.GLYCINE.16\n", "restraint A.GLYCINE.16 not found"),
        ("R A.ILE\n", "malformed residue"),
        ("X A.ILE.16\n", "expected 'R|L"),
    ],
)
def test_lightdock_restraint_files_are_read_exactly(tmp_path, capsys, text, says):
    (tmp_path / "r.list").write_text(text)
    argv = ["setup", str(REC), str(LIG), "-r", str(tmp_path / "r.list"), "-o", str(tmp_path / "s")]
    _one_line_error(capsys, argv, says)
    assert not (tmp_path / "s").exists()


@pytest.fixture(scope="module")
def partners():
    setup = load_setup(SRC / "lightdock_setup")
    return setup.receptor.atoms, setup.ligand.atoms


@pytest.mark.parametrize(
    ("table", "active", "passive"),
    [
        # reversed attribute order, abbreviations and capitals
        (
            "ASSIGN (SEGI A AND RESI 16) ((segid B and resid 15)) 2.0 2.0 0.0",
            ["A.ILE.16"],
            ["B.*.15"],
        ),
        # a residue range and an atom name
        (
            "assign (resid 16:17 and segid A and name CA) (resid 15 and segid B) 2 2 0",
            ["A.ILE.16", "A.ASN.17"],
            ["B.*.15"],
        ),
        # braces comments, nested parentheses, 'or' across lines
        (
            "{ an AIR }\nassign ((resid 16 and segid A))\n ( (resid 15 and segid B)\n or\n"
            " (resid 16 and segid B) ) 2.0 2.0 0.0",
            ["A.ILE.16"],
            ["B.*.15", "B.*.16"],
        ),
    ],
)
def test_haddock_selections_follow_cns(tmp_path, partners, table, active, passive):
    path = tmp_path / "air.TBL"
    path.write_text(table + "\n")
    got = read_haddock_restraints(path, *partners)
    assert got.receptor.active == active and got.receptor.passive == []
    assert got.ligand.active == []
    assert [p.split(".")[2] for p in got.ligand.passive] == [p.split(".")[2] for p in passive]
    # the capital .TBL suffix is read as HADDOCK's format by setup too
    out = prepare_setup(REC, LIG, tmp_path / "s", restraints=path, options=SetupOptions(4, 2))
    assert read_restraints(out / "restraints.list").receptor.active == active


@pytest.mark.parametrize(
    ("table", "line", "says"),
    [
        ("assign (resid 16 and segid A\n (resid 15 and segid B) 2 2 0\n", 2, "expected ')'"),
        ("assign (resid 16 and segid A)\n (resid 15 and segid B\n", 2, "got the end"),
        (
            "assign (resid 16 and segid A)\n (byres (resid 15 and segid B)) 2 2 0\n",
            2,
            "unsupported selection 'byres'",
        ),
        ("assign (resid 16 and segid A) (resid 15 and segid Q) 2 2 0\n", 1, "matches no atom"),
        (
            "assign (resid x16 and segid A) (resid 15 and segid B) 2 2 0\n",
            1,
            "malformed residue number",
        ),
        (
            "assign (resid 16 and segid A) (resid 15 and segid B) 2 2 0 or (resid 1)\n",
            1,
            "expected 'assign', got 'or'",
        ),
    ],
)
def test_haddock_tables_that_cannot_be_read_are_refused_with_the_line(
    tmp_path, partners, table, line, says
):
    path = tmp_path / "air.tbl"
    path.write_text(table)
    with pytest.raises(RestraintError, match=f"air.tbl:{line}: .*{re.escape(says)}"):
        read_haddock_restraints(path, *partners)


def test_targets_are_never_promoted_to_active(tmp_path, partners):
    path = tmp_path / "air.tbl"
    path.write_text(
        "assign (resid 16 and segid A) ((resid 15 and segid B) or (name CA and resid 3 and "
        "segid B)) 2.0 2.0 0.0\n"
    )
    got = read_haddock_restraints(path, *partners)
    assert got.receptor.active == ["A.ILE.16"] and got.ligand.active == []
    assert sorted(p.split(".")[2] for p in got.ligand.passive) == ["15", "3"]


def test_normal_modes_refusals_leave_no_files(tmp_path, capsys):
    lines = [ln for ln in LIG.read_text().splitlines() if ln.startswith("ATOM")]
    first = int(lines[0][22:26])
    (tmp_path / "one.pdb").write_text("\n".join(ln for ln in lines if int(ln[22:26]) == first))
    _one_line_error(
        capsys,
        ["setup", str(REC), str(tmp_path / "one.pdb"), "--anm", "-o", str(tmp_path / "s1")],
        "too few for 10 normal modes",
    )
    no_ca = [ln for ln in lines if not (int(ln[22:26]) == first + 2 and ln[12:16] == " CA ")]
    (tmp_path / "noca.pdb").write_text("\n".join(no_ca) + "\n")
    (tmp_path / "s2").mkdir()
    _one_line_error(
        capsys,
        ["setup", str(REC), str(tmp_path / "noca.pdb"), "--anm", "-o", str(tmp_path / "s2")],
        "0 CA atoms",
    )
    assert not (tmp_path / "s1").exists()
    assert list((tmp_path / "s2").iterdir()) == []  # nothing of a setup, no lock left


def test_backbone_remnants_are_dropped_for_normal_modes_only(tmp_path):
    """A lone N closing the ligand's chain (a cut chain's remnant, as 7 of the 175 training
    complexes have) cannot be a normal-mode node: with --anm the setup drops it with one
    warning naming it and docks the rest; without modes it is kept, as LightDock keeps it.
    A residue that lost its C-alpha but kept its side chain is still refused (above)."""
    from sparkledock.errors import RemnantWarning

    lines = [ln for ln in LIG.read_text().splitlines() if ln.startswith("ATOM")]
    last = lines[-1]
    lone = last[:12] + " N   ALA" + last[20:22] + "9999" + last[26:]
    (tmp_path / "lig.pdb").write_text("\n".join([*lines, lone, "END"]) + "\n")
    reference = clean(read_structure(LIG))
    options = SetupOptions(glowworms=4, swarms=2, anm=True)
    with pytest.warns(RemnantWarning, match=rf"lig.pdb: dropped backbone remnant\(s\) "
                      rf"{last[21]}\.ALA\.9999 \(no C-alpha"):  # fmt: skip
        out = prepare_setup(REC, tmp_path / "lig.pdb", tmp_path / "s", options=options)
    setup = load_setup(out)
    assert len(setup.ligand.atoms) == len(reference) and setup.ligand.n_modes == 10
    with warnings.catch_warnings():
        warnings.simplefilter("error", RemnantWarning)
        rigid = prepare_setup(
            REC, tmp_path / "lig.pdb", tmp_path / "r", options=SetupOptions(glowworms=4, swarms=2)
        )
    assert len(load_setup(rigid).ligand.atoms) == len(reference) + 1


def test_shared_chain_ids_stay_apart_in_models(tmp_path, recwarn):
    text = LIG.read_text()
    renamed = "\n".join(
        ln[:21] + "A" + ln[22:] if ln.startswith(("ATOM", "HETATM")) else ln
        for ln in text.splitlines()
    )
    (tmp_path / "ligA.pdb").write_text(renamed + "\n")
    options = SetupOptions(glowworms=4, swarms=2)
    same = prepare_setup(REC, tmp_path / "ligA.pdb", tmp_path / "same", options=options)
    assert any("chain A is also a chain" in str(w.message) for w in recwarn)
    apart = prepare_setup(REC, LIG, tmp_path / "apart", options=options)
    setup = load_setup(same)
    pose = np.zeros(setup.layout.size)
    pose[3] = 1.0
    write_models(setup, pose[None], [tmp_path / "same.pdb"])
    write_models(load_setup(apart), pose[None], [tmp_path / "apart.pdb"])
    model = read_structure(tmp_path / "same.pdb")
    n_rec = len(setup.receptor.atoms)
    assert set(model.chain[:n_rec]) == {"A"} and set(model.chain[n_rec:]) == {"B"}
    ours = evaluate(tmp_path / "same.pdb", SRC / "2X9A_target.pdb")
    assert ours == evaluate(tmp_path / "apart.pdb", SRC / "2X9A_target.pdb")


def test_out_of_memory_is_a_one_line_error():
    with pytest.raises(OutOfMemoryError) as caught:
        plan_groups(10, 256, 27, model_bytes=2**30, workspace_bytes=2**20, budget_bytes=2**29)
    assert isinstance(caught.value, SparkledockError) and isinstance(caught.value, MemoryError)


def test_screen_warns_of_columns_it_ignores(tmp_path):
    shutil.copy(REC, tmp_path / "r.pdb")
    shutil.copy(LIG, tmp_path / "l.pdb")
    (tmp_path / "pairs.csv").write_text("name,receptor,ligand,notes\np,r.pdb,l.pdb,hello\n")
    with pytest.warns(UserWarning, match="column 'notes' is not one screen reads"):
        assert len(read_pairs(tmp_path / "pairs.csv")) == 1
    (tmp_path / "pairs.csv").write_text("name,receptor,ligand\np,r.pdb,l.pdb,extra\n")
    with pytest.raises(InputFileError, match=r"pairs\.csv:2: more fields"):
        read_pairs(tmp_path / "pairs.csv")


def test_a_reference_of_one_chain_is_refused_before_docking(tmp_path, capsys):
    one = tmp_path / "one.pdb"
    lines = (SRC / "2X9A_target.pdb").read_text().splitlines()
    one.write_text("\n".join(ln for ln in lines if ln.startswith("ATOM") and ln[21] == "A"))
    argv = ["dock", str(REC), str(LIG), "--steps", "1", "-g", "4", "-s", "2", "--quiet"]
    _one_line_error(
        capsys,
        [*argv, "--reference", str(one), "-o", str(tmp_path / "d")],
        "needs both partners' chains, it has 1",
    )
    assert not (tmp_path / "d").exists()


def test_more_swarms_than_the_surface_holds_is_said(tmp_path):
    with pytest.warns(UserWarning, match="100000 swarms asked, the receptor surface holds"):
        prepare_setup(REC, LIG, tmp_path / "s", options=SetupOptions(glowworms=2, swarms=100000))


def test_engine_and_scoring_conflicts_are_the_packages_errors():
    from sparkledock.backend import resolve_engine
    from sparkledock.errors import EngineError
    from sparkledock.scoring import get_scoring

    for call in (
        lambda: resolve_engine("numba", "cuda", "fp64"),
        lambda: resolve_engine("numba", None, "fp32"),
        lambda: resolve_engine("gpu", None, "fp64"),
        lambda: get_scoring("nosuch"),
        lambda: get_scoring("dfire").kernel("opencl"),
    ):
        with pytest.raises(EngineError) as caught:
            call()
        assert isinstance(caught.value, SparkledockError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--seed", "-1"], "--seed must be an integer from 0 to 2\\*\\*32 - 1, got -1"),
        (["--seed", str(2**32)], "--seed must be an integer from 0 to 2\\*\\*32 - 1"),
        (["--anm", "--anm-seed", "-3"], "--anm-seed must be an integer"),
        (["-sd", "nan"], "surface density must be a finite number, got nan"),
        (["-sd", "inf"], "surface density must be a finite number, got inf"),
        (["--anm", "--anm-rmsd", "nan"], "anm rmsd must be a finite number"),
    ],
)
def test_setup_refuses_bad_seeds_and_non_finite_numbers_before_any_work(
    tmp_path, capsys, flags, message
):
    """A seed the generators cannot take, or a NaN or infinite number, is one line naming the
    option and nothing is written (no traceback from NumPy's seeding, no NaN in setup.json)."""
    src = BENCH / "2X9A"
    out = tmp_path / "setup"
    argv = ["setup", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"), "-o", str(out)]
    assert main([*argv, "-s", "2", "-g", "4", *flags]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and re.search(message, err[0]), err
    assert not out.exists()


def test_run_refuses_a_seed_out_of_range(tmp_path, capsys):
    folder = shutil.copytree(BENCH / "2X9A" / "lightdock_setup", tmp_path / "setup")
    assert main(["run", str(folder), "2", "--seed", str(2**40), "--swarms", "0"]) == 1
    assert "--seed must be an integer from 0 to 2**32 - 1" in capsys.readouterr().err
    assert not list(folder.glob("swarm_0/gso_*.out"))
