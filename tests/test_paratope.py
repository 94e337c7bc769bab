"""Antibody docking on the CDRs (``--paratope``): variable domains and CDRs found from the
sequence, swarms placed on them, the paratope ranking, and one-line refusals."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from scipy.spatial import cKDTree

from conftest import BENCH
from sparkledock.analysis import ranking
from sparkledock.analysis.features import rescore
from sparkledock.cli import main
from sparkledock.molecule.structure import read_structure
from sparkledock.preparation.paratope import cdr_residues, variable_domains

#: 2VXT's antibody (PDB 2VXT, chain A of BM5's unbound receptor), its heavy variable domain
#: then its light one, as they follow each other in that chain
HEAVY = (
    "EIQLQQSGPELVKPGAVKVSCKASGYFTDYFIYWVKQSHLEWIGDIDPYNGDTYNQKFRDKATLTVSTTAFMHLNSLTEDSAVYF"
    "CARRFWGQGTLVTVSA"
)
LIGHT = (
    "DIQMTQSPSLSASLGRVLTCRASQDIGKLYWLQQEPDGTFKRLIYATSSLDSGVPKRFSGSRSGSDYSLTISSLESEDFVDYYCLQY"
    "ASPYTFGGGTK"
)


def test_variable_domains_and_their_cdrs_from_the_sequence():
    found = variable_domains(HEAVY + "ASTKGPSVFPLAP" + LIGHT)
    assert [d.chain for d in found] == ["heavy", "light"]
    seq = HEAVY + "ASTKGPSVFPLAP" + LIGHT
    h1, h2, h3 = (seq[a:b] for a, b in found[0].cdrs)
    l1, l2, l3 = (seq[a:b] for a, b in found[1].cdrs)
    # CDR1 ends before framework 2's Trp, CDR3 runs from after the second Cys to W/F-G-x-G
    assert h1 == "SGYFTDYFIY" and h3 == "ARRF" and h2 == "GDIDPYNGDTYNQKFRD"
    assert l1 == "SQDIGKLY" and l3 == "LQYASPYT" and l2 == "IYATSSLD"
    alone = variable_domains(LIGHT)
    assert [(d.chain, [LIGHT[a:b] for a, b in d.cdrs]) for d in alone] == [("light", [l1, l2, l3])]


def test_no_cdrs_in_proteins_that_are_not_antibodies():
    for name in ("2X9A_r_u.pdb", "2X9A_l_u.pdb"):
        assert cdr_residues(read_structure(BENCH / "2X9A" / name)) == []
    assert variable_domains("C" + "A" * 200) == []


def test_cdr_residues_of_an_antibody_structure():
    ids = cdr_residues(read_structure(BENCH / "2VXT" / "2VXT_r_u.pdb"))
    assert ids[:3] == ["A.SER.24", "A.GLY.25", "A.TYR.26"]
    assert len(ids) == 10 + 17 + 4 + 8 + 8 + 8 == 55
    assert len(set(ids)) == len(ids)


def test_the_benchmark_antibodies_and_only_they_have_cdrs():
    """Of the forty partner structures of ../shared/bench and bench5, the four antibody
    receptors have CDRs (a heavy and a light domain each), no other structure has any."""
    from conftest import SHARED

    expected = {"2VXT": 55, "2W9E": 62, "3V6Z": 77, "4G6J": 65}
    found = {}
    for folder in sorted([*(SHARED / "bench").iterdir(), *(SHARED / "bench5").iterdir()]):
        files = sorted(folder.glob("*_[rl]_u.pdb")) + sorted(folder.glob("*_[AB]_noh.pdb"))
        for path in files:
            ids = cdr_residues(read_structure(path))
            if ids:
                found[folder.name] = len(ids)
                assert path.name.startswith(f"{folder.name}_") and "_l_" not in path.name
                assert "_B_" not in path.name  # the receptor, never the antigen
    assert found == expected


def test_paratope_ranking_adds_the_cdr_share_to_the_consensus():
    """The mean of the DFIRE, dfire_soft, MJ3h and CDR-share ranks; equal shares share their
    mean rank (not the input order)."""
    features = {
        "score": np.array([5.0, 9.0, 7.0, 8.0]),
        "dfire_soft": np.array([6.0, 9.0, 12.0, 10.0]),
        "mj3h": np.array([-1.0, 4.0, -2.0, 2.0]),
        "paratope": np.array([1.0, 0.0, 0.0, 1.0]),
    }
    # soft_consensus rank sums 8, 2, 5, 3 (test_ranking); share ranks 0.5, 2.5, 2.5, 0.5
    assert ranking.order("soft_consensus", features).tolist() == [1, 3, 2, 0]
    assert ranking.order("paratope", features).tolist() == [3, 1, 2, 0]
    np.testing.assert_array_equal(ranking.tied_ranks([1.0, 0.0, 0.0, 1.0]), [0.5, 2.5, 2.5, 0.5])
    assert ranking.default_method(restrained=False, paratope=True) == "paratope"
    assert ranking.default_method(restrained=True, paratope=True) == "learned"


def test_paratope_docking_places_swarms_on_the_cdrs_and_ranks_by_them(tmp_path):
    src = BENCH / "2VXT"
    out = tmp_path / "ab"
    argv = ["dock", str(src / "2VXT_r_u.pdb"), str(src / "2VXT_l_u.pdb"), "-o", str(out)]
    argv += ["--paratope", "--steps", "3", "-g", "8", "-s", "6", "--top", "2", "--quiet"]
    assert main(argv) == 0
    setup = json.loads((out / "setup" / "setup.json").read_text())
    receptor = read_structure(src / "2VXT_r_u.pdb")
    assert setup["paratope"] == cdr_residues(receptor)
    # every swarm centre is nearer a CDR atom than any blind placement needs to be
    from sparkledock.io.lightdock import load_setup

    loaded = load_setup(out / "setup")
    atoms = loaded.receptor.atoms
    cdr = np.isin(atoms.residue_ids(), setup["paratope"])
    centres = np.array(
        [
            [float(line[30:38]), float(line[38:46]), float(line[46:54])]
            for line in (out / "setup" / "init" / "swarm_centers.pdb").read_text().splitlines()
            if line.startswith(("ATOM", "HETATM"))
        ]
    )
    to_cdr = cKDTree(atoms.coords[cdr]).query(centres)[0]
    to_rest = cKDTree(atoms.coords[~cdr]).query(centres)[0]
    assert len(centres) == 6 and (to_cdr < to_rest + 10.0).all()
    record = json.loads((out / "run.json").read_text())
    assert record["options"]["rank_method"] == "paratope"
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    poses = np.array([[float(x) for x in r["pose"].split()] for r in rows])
    share = ranking.paratope_share(loaded, poses, setup["paratope"])
    assert ((share >= 0) & (share <= 1)).all() and share.max() > 0
    features = {"score": np.array([float(r["score"]) for r in rows]), "paratope": share}
    for function in ("dfire_soft", "mj3h"):
        features[function] = rescore(loaded, poses, function)
    assert ranking.order("paratope", features).tolist() == list(range(len(rows)))


def test_paratope_refusals_are_one_line(tmp_path, capsys):
    src = BENCH / "2X9A"
    argv = ["dock", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"), "-o", str(tmp_path / "a")]
    assert main([*argv, "--paratope"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "no antibody variable domain found" in err
    assert not (tmp_path / "a" / "setup").exists()
    ab = BENCH / "2VXT"
    argv = ["dock", str(ab / "2VXT_r_u.pdb"), str(ab / "2VXT_l_u.pdb"), "-o", str(tmp_path / "b")]
    assert main([*argv, "--paratope", "-r", str(ab / "restraints.list")]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "give one" in err
    with pytest.raises(SystemExit):
        main([*argv, "--paratope", "--membrane"])  # one placement at most
