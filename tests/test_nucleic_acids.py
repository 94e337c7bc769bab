"""Nucleic acids end to end: LightDock's own protein–DNA regression cases (1DIZ, its package's
golden data) through ``lightdock3.py``, dna and vdw scores of 1DIZ against LightDock 0.9.4,
normal modes on C4' atoms, nucleotides read and mapped, and one-line refusals."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import DATA
from sparkledock.analysis.filter import satisfaction
from sparkledock.cli import main as cli_main
from sparkledock.errors import ModifiedResidueWarning, UnsupportedAtomError
from sparkledock.io.lightdock import load_setup
from sparkledock.io.restraints import read_restraints
from sparkledock.lightdock.commands import main as lightdock
from sparkledock.molecule.anm import node_mask, normal_modes
from sparkledock.molecule.restraints import Restraints, SideRestraints
from sparkledock.molecule.structure import Atoms, clean, read_structure
from sparkledock.scoring import check_molecules, get_scoring

REGRESSION = DATA / "lightdock_regression"
STRUCTURES = REGRESSION / "1DIZ"


def case_folder(tmp_path: Path, case: str) -> Path:
    """A LightDock setup folder of one regression case (golden outputs moved aside)."""
    folder = tmp_path / case
    folder.mkdir()
    for path in STRUCTURES.iterdir():
        shutil.copy(path, folder)
    shutil.copytree(REGRESSION / case, folder, dirs_exist_ok=True)
    for path in (folder / "swarm_0").iterdir():
        path.unlink()
    return folder


@pytest.mark.parametrize(("case", "steps"), [("dna_short", 10), ("dna_restraints", 30)])
def test_lightdocks_dna_regression_cases_are_reproduced(tmp_path, monkeypatch, case, steps):
    """LightDock's own test: ``lightdock3.py -c 1 -s dna setup.json STEPS -l 0`` writes its
    golden gso files byte for byte (protein with hydrogens against DNA, normal modes on both;
    the second case with receptor restraints)."""
    folder = case_folder(tmp_path, case)
    monkeypatch.chdir(folder)
    assert lightdock("lightdock3.py", f"-c 1 -s dna setup.json {steps} -l 0".split()) == 0
    golden = sorted((REGRESSION / case / "swarm_0").glob("gso_*.out"))
    assert len(golden) >= 2
    for path in golden:
        assert (folder / "swarm_0" / path.name).read_bytes() == path.read_bytes(), path.name


@pytest.fixture(scope="module")
def dna_setup(tmp_path_factory):
    folder = case_folder(tmp_path_factory.mktemp("1diz"), "dna_restraints")
    return load_setup(folder)


def starting_poses() -> np.ndarray:
    return np.concatenate(
        [np.loadtxt(REGRESSION / c / "init" / "initial_positions_0.dat") for c in REGRESSION_CASES]
    )


REGRESSION_CASES = ("dna_short", "dna_restraints")


@pytest.mark.parametrize("function", ["dna", "vdw"])
@pytest.mark.parametrize("restrained", [False, True])
def test_protein_dna_scores_equal_lightdock(dna_setup, function, restrained):
    record = json.loads((STRUCTURES / "golden_scores.json").read_text())
    expected = np.array(record["scores"][function + ("_restraints" if restrained else "")])
    restraints = (
        read_restraints(REGRESSION / "dna_restraints" / "restraints.list") if restrained else None
    )
    scoring = get_scoring(function)
    model = scoring.prepare(dna_setup.receptor, dna_setup.ligand, restraints)
    got = scoring.score(model, starting_poses())
    assert np.max(np.abs(got - expected) / np.abs(expected)) < 1e-12
    # the NumPy oracle on a sample (it is slow: every pair of every pose)
    sample = np.r_[0:3, 25:28]  # both cases
    again = scoring.score(model, starting_poses()[sample], backend="numpy")
    np.testing.assert_allclose(again, got[sample], rtol=1e-9)


def test_centres_leave_hydrogens_out_as_lightdock_does(dna_setup):
    """LightDock centres a molecule on its heavy atoms: the receptor (with hydrogens) is not
    centred on all its atoms, the heavy atoms are at the origin."""
    atoms = dna_setup.receptor.atoms
    heavy = np.array([str(e) != "H" for e in atoms.element])
    assert np.abs(atoms.coords[heavy].mean(axis=0)).max() < 1e-9
    assert np.abs(atoms.coords.mean(axis=0)).max() > 0.05


def test_dna_normal_modes_use_c4_prime_nodes_and_equal_lightdocks():
    ligand = read_structure(STRUCTURES / "lightdock_1DIZ_lig.pdb")
    nodes = node_mask(ligand)
    assert set(ligand.atom_name[nodes]) == {"C4'"}
    assert nodes.sum() == len(ligand.residue_starts())
    modes, mask = normal_modes(ligand, n_modes=10, rmsd=0.5, seed=324324)
    assert mask.all()
    reference = np.load(STRUCTURES / "lightdock_lig.nm.npy")
    assert modes.shape == reference.shape
    assert np.abs(modes - reference).max() < 1e-9 * np.abs(reference).max()


def test_a_protein_dna_complex_as_one_partner_gets_modes():
    """Beyond LightDock (whose ProDy extension fails on a partner with both): every residue
    has its own node, CA or C4'."""
    complex_ = Atoms.concatenate(
        [
            read_structure(STRUCTURES / "lightdock_1DIZ_rec.pdb"),
            read_structure(STRUCTURES / "lightdock_1DIZ_lig.pdb"),
        ]
    )
    complex_ = clean(complex_, remove_hydrogens=True)
    modes, mask = normal_modes(complex_, n_modes=4)
    assert mask.all() and modes.shape == (4, len(complex_), 3)
    assert np.isfinite(modes).all() and (np.abs(modes).sum(axis=(1, 2)) > 0).all()


def test_protein_only_functions_refuse_a_nucleic_acid_in_one_line(dna_setup):
    for name in ("dfire", "cpydock", "pisa", "dna:1,dfire:1"):
        with pytest.raises(UnsupportedAtomError) as info:
            check_molecules(get_scoring(name), dna_setup.ligand, "lig.pdb")
        message = str(info.value)
        assert "\n" not in message and "lig.pdb" in message
        assert "chain B DT 1 is DNA" in message and "dna, vdw" in message
    check_molecules(get_scoring("dna"), dna_setup.ligand, "lig.pdb")  # no error


def test_setup_for_dfire_refuses_dna_and_setup_for_dna_docks(tmp_path, capsys):
    rec, lig = STRUCTURES / "lightdock_1DIZ_rec.pdb", STRUCTURES / "lightdock_1DIZ_lig.pdb"
    out = tmp_path / "dfire"
    argv = ["setup", str(rec), str(lig), "-g", "4", "-s", "2", "--noh", "--skip-unknown"]
    argv += ["-o", str(out)]
    assert cli_main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "scoring 'dfire' scores protein only" in err and "DT 1 is DNA" in err
    assert not (out / "setup.json").exists()
    out = tmp_path / "dna"
    argv[-1] = str(out)
    assert cli_main([*argv, "--scoring", "dna", "--anm"]) == 0
    assert cli_main(["run", str(out), "2", "--scoring", "dna"]) == 0
    scores = [float(line.split()[-1]) for line in (out / "swarm_1" / "gso_2.out").open()
              if line.startswith("(")]  # fmt: skip
    assert len(scores) == 4 and all(np.isfinite(scores))


PSEUDO_RNA = """\
ATOM      1  P     G R   1      10.000  10.000  10.000  1.00  0.00           P
ATOM      2  C4'   G R   1      11.000  10.000  10.000  1.00  0.00           C
HETATM    3  P   PSU R   2      14.000  10.000  10.000  1.00  0.00           P
HETATM    4  C4' PSU R   2      15.000  10.000  10.000  1.00  0.00           C
HETATM    5  N1  PSU R   2      16.000  10.000  10.000  1.00  0.00           N
HETATM    6  P   5MC R   3      18.000  10.000  10.000  1.00  0.00           P
HETATM    7  C4' 5MC R   3      19.000  10.000  10.000  1.00  0.00           C
HETATM    8  CM5 5MC R   3      20.000  10.000  10.000  1.00  0.00           C
HETATM    9 MG    MG R 101      30.000  10.000  10.000  1.00  0.00          MG
END
"""


def test_modified_nucleotides_are_read_as_their_parents(tmp_path):
    path = tmp_path / "rna.pdb"
    path.write_text(PSEUDO_RNA)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        atoms = clean(read_structure(path), source=str(path))
    assert list(atoms.res_name) == ["G", "G", "U", "U", "U", "C", "C"]
    assert list(atoms.atom_name) == ["P", "C4'", "P", "C4'", "N1", "P", "C4'"]  # CM5 dropped
    assert not atoms.hetero.any()  # the ion went with the hetero groups
    mapped = [w for w in caught if issubclass(w.category, ModifiedResidueWarning)]
    assert len(mapped) == 1 and "PSU R.2" in str(mapped[0].message)


def test_filter_counts_nucleotides_with_lnuc(dna_setup):
    """LightDock's lgd_filter_restraints selects the ligand's amino acids unless --lnuc: a
    restraint on a nucleotide is satisfied only when nucleotides count."""
    restraints = read_restraints(REGRESSION / "dna_restraints" / "restraints.list")
    gso = REGRESSION / "dna_restraints" / "swarm_0" / "gso_30.out"
    poses = np.array(
        [
            [float(v) for v in line[1 : line.index(")")].split(",")]
            for line in gso.read_text().splitlines()
            if line.startswith("(")
        ]
    )
    on_dna = Restraints(restraints.receptor, SideRestraints(active=["B.DT.1"]))
    everything = satisfaction(dna_setup, poses, on_dna)
    nucleic = satisfaction(dna_setup, poses, on_dna, molecules=("protein", "nucleic"))
    protein = satisfaction(dna_setup, poses, on_dna, molecules=("protein", "protein"))
    assert np.array_equal(everything, nucleic)
    assert everything.max() > 0
    assert protein.max() <= 0.5 * everything.max()  # the DNA ligand's atoms never count


def rna_from_dna(source: Path, target: Path, names: dict[str, str]) -> Path:
    """1DIZ's DNA rewritten as RNA (its heavy atoms; thymine's methyl dropped, an O2' added
    beside each C2'), with residue names ``names`` (DNA name -> RNA name)."""
    out = []
    for line in source.read_text().splitlines():
        res, atom = line[17:20].strip(), line[12:16].strip()
        if not line.startswith("ATOM") or res not in names or atom.startswith("H"):
            continue
        if res == "DT" and atom == "C7":
            continue
        new = f"{line[:17]}{names[res]:>3}{line[20:]}"
        out.append(new)
        if atom == "C2'":
            x, y, z = (float(line[a:b]) for a, b in ((30, 38), (38, 46), (46, 54)))
            xyz = f"{x + 1.0:8.3f}{y + 0.9:8.3f}{z + 0.3:8.3f}"
            out.append(f"{new[:12]} O2'{new[16:30]}{xyz}{new[54:]}")
    target.write_text("\n".join(out) + "\nEND\n")
    return target


@pytest.mark.parametrize(
    "names",
    [
        {"DA": "A", "DC": "C", "DG": "G", "DT": "U"},
        {"DA": "RA", "DC": "RC", "DG": "RG", "DT": "RU"},
    ],
    ids=["plain", "force-field"],
)
def test_rna_docks_with_the_functions_for_nucleic_acids(tmp_path, names):
    rec = STRUCTURES / "lightdock_1DIZ_rec.pdb"
    rna = rna_from_dna(STRUCTURES / "lightdock_1DIZ_lig.pdb", tmp_path / "rna.pdb", names)
    for scoring in ("dna", "vdw"):
        out = tmp_path / scoring
        argv = ["dock", str(rec), str(rna), "-o", str(out), "--scoring", scoring]
        assert cli_main([*argv, "-g", "4", "-s", "1", "--steps", "2", "--quiet"]) == 0
        with (out / "ranking.csv").open() as handle:
            scores = [float(row.split(",")[1]) for row in list(handle)[1:]]
        assert scores and all(np.isfinite(scores))


def test_a_partner_nothing_of_which_can_be_typed_is_refused(tmp_path, capsys):
    rec = STRUCTURES / "lightdock_1DIZ_rec.pdb"
    junk = rna_from_dna(STRUCTURES / "lightdock_1DIZ_lig.pdb", tmp_path / "x.pdb",
                        dict.fromkeys(("DA", "DC", "DG", "DT"), "XNA"))  # fmt: skip
    out = tmp_path / "s"
    argv = ["setup", str(rec), str(junk), "--scoring", "dna", "--skip-unknown", "-o", str(out)]
    assert cli_main(argv) == 1
    assert "can type none of its" in capsys.readouterr().err and not out.exists()
