"""Reading, cleaning and writing structures."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from conftest import BENCH
from sparkledock.errors import HeteroGroupWarning, InputFileError
from sparkledock.molecule.structure import (
    Atoms,
    centre_of_coordinates,
    clean,
    read_structure,
    write_structure,
    write_structures,
)

PDB = BENCH / "2X9A" / "2X9A_l_u.pdb"


def same_atoms(a: Atoms, b: Atoms) -> bool:
    return np.array_equal(a.coords, b.coords) and all(
        list(getattr(a, f)) == list(getattr(b, f))
        for f in ("chain", "res_seq", "ins_code", "res_name", "atom_name", "element", "hetero")
    )


def test_read_pdb_matches_columns():
    atoms = read_structure(PDB)
    lines = [ln for ln in PDB.read_text().splitlines() if ln.startswith(("ATOM", "HETATM"))]
    assert len(atoms) == len(lines)
    expected = np.array([[float(ln[30:38]), float(ln[38:46]), float(ln[46:54])] for ln in lines])
    assert np.array_equal(atoms.coords, expected)
    assert list(atoms.atom_name[:3]) == [ln[12:16].strip() for ln in lines[:3]]
    assert atoms.chain[0] == "B"


@pytest.mark.parametrize("suffix", [".cif", ".pdb"])
def test_write_read_round_trip(tmp_path, suffix):
    atoms = read_structure(PDB)
    out = tmp_path / f"copy{suffix}"
    write_structure(atoms, out)
    assert same_atoms(read_structure(out), atoms)


def test_models_from_one_template_equal_gemmis_own_files(tmp_path):
    """write_structures fills a gemmi template's coordinate columns per model: each file is
    gemmi's own for those coordinates, also with chains interleaved (gemmi groups them) and
    for a model outside PDB's columns (written by gemmi)."""
    import gemmi

    from sparkledock.molecule.structure import _to_gemmi

    atoms = read_structure(PDB)
    half = len(atoms) // 2  # chain B, then chain C, then B again
    chain = np.array(["B"] * half + ["C"] * 30 + ["B"] * (len(atoms) - half - 30), dtype=object)
    atoms = Atoms(**{**{f: getattr(atoms, f) for f in atoms.__dataclass_fields__}, "chain": chain})
    rng = np.random.default_rng(7)
    coords = atoms.coords + rng.normal(0.0, 30.0, (3, len(atoms), 3))
    coords[2, 5, 0] = 12345.678  # beyond %8.3f
    paths = [tmp_path / f"m{i}.pdb" for i in range(3)]
    remarks = [[f"REMARK   1 model {i}"] for i in range(3)]
    write_structures(atoms, coords, paths, remarks)
    for i, (xyz, path) in enumerate(zip(coords, paths, strict=True)):
        own = _to_gemmi(atoms.with_coords(xyz)).make_pdb_string(gemmi.PdbWriteOptions(minimal=True))
        assert path.read_text() == f"REMARK   1 model {i}\n" + own + "END\n"


def test_pdb_and_mmcif_give_the_same_model(tmp_path, setups):
    """The same receptor read from PDB and mmCIF scores identically."""
    from conftest import golden
    from sparkledock.molecule.structure import centred
    from sparkledock.molecule.system import Partner
    from sparkledock.scoring import get_scoring

    setup = setups("2X9A")
    src = BENCH / "2X9A" / "lightdock_setup" / "lightdock_2X9A_r_u.pdb"
    cif = tmp_path / "rec.cif"
    write_structure(read_structure(src), cif)
    from_pdb, from_cif = clean(read_structure(src)), clean(read_structure(cif))
    assert same_atoms(from_pdb, from_cif)
    rec = setup.receptor
    cif_partner = Partner(centred(from_cif), rec.modes, rec.mask)
    dfire = get_scoring("dfire")
    poses = golden("2X9A")[0][:8]
    a = dfire.score(dfire.prepare(rec, setup.ligand), poses)
    b = dfire.score(dfire.prepare(cif_partner, setup.ligand), poses)
    assert np.array_equal(a, b)


def test_clean_like_lightdock(tmp_path):
    pdb = tmp_path / "mix.pdb"
    pdb.write_text(
        "ATOM      1  N   ALA A   1       0.000   0.000   0.000  1.00  0.00           N\n"
        "ATOM      2  H   ALA A   1       1.000   0.000   0.000  1.00  0.00           H\n"
        "ATOM      3  CA AALA A   1       2.000   0.000   0.000  0.60  0.00           C\n"
        "ATOM      4  CA BALA A   1       9.000   0.000   0.000  0.40  0.00           C\n"
        "ATOM      5  OXT ALA A   1       3.000   0.000   0.000  1.00  0.00           O\n"
        "HETATM    6  O   HOH A 101       4.000   0.000   0.000  1.00  0.00           O\n"
        "HETATM    7 MG    MG A 102       5.000   0.000   0.000  1.00  0.00          MG\n"
        "END\n"
    )
    atoms = read_structure(pdb)
    assert list(atoms.atom_name) == ["N", "H", "CA", "OXT", "O", "MG"]  # first altloc only
    assert atoms.coords[2, 0] == 2.0
    with pytest.warns(HeteroGroupWarning, match=r"A\.MG\.102"):
        cleaned = clean(atoms, source=str(pdb))
    assert list(cleaned.atom_name) == ["N", "CA"]
    kept = clean(
        atoms, remove_hydrogens=False, remove_water=False, remove_oxt=False, remove_hetero=False
    )
    assert len(kept) == 6


def test_hetero_groups_dropped_with_warning():
    """2GTP's receptor with GDP: the cofactor goes (with a warning), the protein stays."""
    with pytest.warns(HeteroGroupWarning, match="GDP"):
        with_het = clean(read_structure(BENCH / "2GTP" / "2GTP_r_u.with_hetatm.pdb"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plain = clean(read_structure(BENCH / "2GTP" / "2GTP_r_u.pdb"))
    assert same_atoms(with_het, plain)


def test_centre_is_sequential_mean():
    coords = np.random.default_rng(1).normal(size=(1000, 3)) * 30
    total = [0.0, 0.0, 0.0]
    for x, y, z in coords:
        total[0] += x
        total[1] += y
        total[2] += z
    assert np.array_equal(centre_of_coordinates(coords), np.array(total) / len(coords))


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(InputFileError, match="no such file"):
        read_structure(tmp_path / "nope.pdb")
    (tmp_path / "empty.pdb").write_text("")
    with pytest.raises(InputFileError, match="empty"):
        read_structure(tmp_path / "empty.pdb")
    (tmp_path / "noatoms.pdb").write_text("REMARK nothing here\nEND\n")
    with pytest.raises(InputFileError, match="no atoms"):
        read_structure(tmp_path / "noatoms.pdb")


def test_malformed_coordinate_line_names_the_line(tmp_path):
    lines = PDB.read_text().splitlines()
    idx = next(i for i, ln in enumerate(lines) if ln.startswith("ATOM")) + 4
    lines[idx] = lines[idx][:30] + "  12x.45" + lines[idx][38:]
    bad = tmp_path / "bad.pdb"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputFileError, match=rf"bad\.pdb:{idx + 1}: malformed coordinates"):
        read_structure(bad)


def test_write_is_atomic(tmp_path, monkeypatch):
    """A failed write leaves the previous file intact and no temporary behind."""
    import sparkledock.fileutil as fileutil

    target = tmp_path / "out.pdb"
    target.write_text("previous content\n")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(fileutil.os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        write_structure(read_structure(PDB), target)
    assert target.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.pdb"]
