"""LightDock's other scoring functions: parity with LightDock 0.9.4 on golden poses (scores
made with LightDock in its own venv: benchmarks/scoring_functions.py --write-golden), the
numba kernels against the all-pairs NumPy oracles, and clear errors on what a function cannot
type."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from conftest import BENCH, DATA, golden
from sparkledock.errors import UnsupportedAtomError
from sparkledock.io.restraints import read_restraints
from sparkledock.molecule.system import Partner
from sparkledock.scoring import get_scoring

GOLDEN = DATA / "golden_scoring"
CASES = sorted(p.stem.split("_", 1) for p in GOLDEN.glob("*.json"))


@pytest.mark.parametrize(("function", "complex_name"), CASES)
@pytest.mark.parametrize("restrained", [False, True])
def test_scores_equal_lightdock(setups, function, complex_name, restrained):
    setup = setups(complex_name)
    record = json.loads((GOLDEN / f"{function}_{complex_name}.json").read_text())
    expected = np.array(record["scores"]["restraints" if restrained else "plain"])
    restraints = read_restraints(BENCH / complex_name / "restraints.list") if restrained else None
    scoring = get_scoring(function)
    receptor, ligand = setup.receptor, setup.ligand
    poses, _ = golden(complex_name)
    if record.get("rigid"):  # LightDock scores these without normal modes
        receptor, ligand = Partner.rigid(receptor.atoms), Partner.rigid(ligand.atoms)
        poses = poses[:, :7]
    model = scoring.prepare(receptor, ligand, restraints)
    got = scoring.score(model, poses)
    assert np.max(np.abs(got - expected) / np.maximum(np.abs(expected), 1e-300)) < 1e-12
    plain = scoring.score(scoring.prepare(receptor, ligand), poses)
    never = ("mj3h", "tobi", "sipper")  # LightDock's never count a restraint (their notes)
    if restrained and function not in never:  # the restraint terms changed something
        assert not np.allclose(plain, got)
    if function in never:
        assert np.array_equal(plain, got)


@pytest.mark.parametrize("function", sorted({f for f, _ in CASES} - {"mj3h", "tobi", "sipper"}))
def test_numba_equals_the_numpy_oracle(setups, function):
    setup = setups("2X9A")
    scoring = get_scoring(function)
    model = scoring.prepare(
        setup.receptor, setup.ligand, read_restraints(BENCH / "2X9A" / "restraints.list")
    )
    poses, _ = golden("2X9A")
    rng = np.random.default_rng(3)
    jittered = poses.copy()
    jittered[:, :3] += rng.uniform(-2.0, 2.0, jittered[:, :3].shape)
    jittered[:, 7:] += rng.uniform(-0.5, 0.5, jittered[:, 7:].shape)
    for batch in (poses, jittered):
        fast = scoring.score(model, batch, backend="numba", threads=2)
        oracle = scoring.score(model, batch, backend="numpy")
        np.testing.assert_allclose(fast, oracle, rtol=1e-11, atol=1e-9)
        one = scoring.score(model, batch, backend="numba", threads=1)
        assert np.array_equal(fast, one)  # thread count never changes a bit


@pytest.mark.parametrize("function", ["vdw", "cpydock", "dna", "pisa", "sd", "pydfire"])
def test_an_atom_without_parameters_is_a_one_line_error(setups, function):
    setup = setups("2X9A")
    atoms = setup.ligand.atoms
    names = atoms.atom_name.copy()
    names[5] = "XX9"
    ligand = Partner(replace(atoms, atom_name=names), setup.ligand.modes, setup.ligand.mask)
    scoring = get_scoring(function)
    with pytest.raises(UnsupportedAtomError) as err:
        scoring.prepare(setup.receptor, ligand, names=("receptor.pdb", "ligand.pdb"))
    message = str(err.value)
    assert "\n" not in message and "ligand.pdb" in message and "XX9" in message
    assert f"{atoms.res_name[5]} {atoms.res_seq[5]}" in message
    with pytest.warns(UserWarning, match="skipped"):
        model = scoring.prepare(setup.receptor, ligand, skip_unknown=True)
    pairs = getattr(model, "pairs", model)
    assert len(pairs.lig_xyz) == len(atoms) - 1


@pytest.mark.parametrize("function", ["cpydock", "dna"])
def test_pydock_electrostatics_warns_about_missing_hydrogens(setups, function):
    """pyDock's all-atom charges on a protein without hydrogens leave about -0.9 e per
    residue: a warning names the partner; a partner with hydrogens gets none."""
    import warnings

    from sparkledock.errors import SparkledockWarning

    setup = setups("2X9A")
    scoring = get_scoring(function)
    with pytest.warns(SparkledockWarning, match="receptor.pdb: no hydrogens") as caught:
        model = scoring.prepare(setup.receptor, setup.ligand, names=("receptor.pdb", "l.pdb"))
    assert any("l.pdb: no hydrogens" in str(w.message) for w in caught)
    total = float(model.pairs.rec_charge.sum())
    assert total < -0.5 * len(setup.receptor.atoms.residue_starts())  # (what it warns of)
    atoms = setup.ligand.atoms
    element = atoms.element.copy()
    element[0] = "H"  # (the typing reads names; the hydrogen test reads the element too)
    ligand = Partner(replace(atoms, element=element), setup.ligand.modes, setup.ligand.mask)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scoring.prepare(setup.receptor, ligand, names=("receptor.pdb", "l.pdb"))
    said = [str(w.message) for w in caught if issubclass(w.category, SparkledockWarning)]
    assert any("receptor.pdb" in m for m in said) and not any("l.pdb" in m for m in said)


def test_dfire2_leaves_untyped_atoms_out_as_lightdock_does(setups):
    setup = setups("2X9A")
    atoms = setup.ligand.atoms
    names = atoms.atom_name.copy()
    names[5] = "XX9"
    ligand = Partner(replace(atoms, atom_name=names), setup.ligand.modes, setup.ligand.mask)
    model = get_scoring("dfire2").prepare(setup.receptor, ligand)
    assert len(model.lig_xyz) == len(atoms) - 1


# (sd's scores of ~1e9, printed to 8 decimals, show every bit: its trajectory is the test that
# the GSO step's arithmetic, not only the scores, is LightDock's to the last bit)
@pytest.mark.parametrize("function", ["vdw", "cpydock", "dna", "dfire2", "pisa", "pydfire", "sd"])
def test_exact_run_reproduces_lightdocks_trajectory(tmp_path, function):
    """``sparkledock run --exact --scoring F`` writes LightDock's own gso file, byte for byte."""
    from conftest import writable_setup
    from sparkledock.cli import main

    setup_dir = writable_setup(tmp_path / "setup")
    argv = ["run", str(setup_dir), "10", "--scoring", function, "--swarms", "0", "--exact"]
    assert main([*argv, "--quiet"]) == 0
    reference = DATA / "lightdock_runs" / f"2X9A_swarm0_{function}_seed324324" / "gso_10.out"
    assert (setup_dir / "swarm_0" / "gso_10.out").read_text() == reference.read_text()


def test_lightdocks_two_dfires_are_two_functions(setups):
    """LightDock's Python dfire (pydfire) and its C fastdfire (dfire) score the same poses
    differently (each equals LightDock's own: the golden tests), by up to a few per cent."""
    setup = setups("2X9A")
    poses, _ = golden("2X9A")
    python, c = (
        get_scoring(n).score(get_scoring(n).prepare(setup.receptor, setup.ligand), poses)
        for n in ("pydfire", "dfire")
    )
    relative = np.abs(python - c) / np.abs(c)
    assert 1e-3 < relative.max() < 0.1


def test_exact_run_with_a_scoring_file_reproduces_lightdock(tmp_path):
    """A LightDock scoring file (fastdfire 1.0, vdw 0.5): the weighted sum per glowworm and
    LightDock's two conformer draws per function give its own trajectory, byte for byte."""
    from conftest import writable_setup
    from sparkledock.cli import main

    ref = DATA / "lightdock_runs" / "2X9A_swarm0_dfire1_vdw0.5_seed324324"
    setup_dir = writable_setup(tmp_path / "setup")
    argv = ["run", str(setup_dir), "10", "--scoring", str(ref / "scoring.conf")]
    assert main([*argv, "--swarms", "0", "--exact", "--quiet"]) == 0
    assert (setup_dir / "swarm_0" / "gso_10.out").read_text() == (ref / "gso_10.out").read_text()


def test_a_combination_is_the_weighted_sum_of_its_terms(setups):
    setup = setups("2X9A")
    restraints = read_restraints(BENCH / "2X9A" / "restraints.list")
    poses, _ = golden("2X9A")
    combo = get_scoring("dfire:1,vdw:0.5")
    model = combo.prepare(setup.receptor, setup.ligand, restraints)
    parts = combo.term_scores(model, poses)
    dfire, vdw = get_scoring("dfire"), get_scoring("vdw")
    d = dfire.score(dfire.prepare(setup.receptor, setup.ligand, restraints), poses)
    v = vdw.score(vdw.prepare(setup.receptor, setup.ligand, restraints), poses)
    assert np.array_equal(parts["dfire"], d) and np.array_equal(parts["vdw"], v * 0.5)
    assert np.array_equal(combo.score(model, poses), d + v * 0.5)
    # one function with a weight is a combination too; weight 1 is the function itself
    double = get_scoring("vdw:2")
    assert np.array_equal(
        double.score(double.prepare(setup.receptor, setup.ligand, restraints), poses), v * 2
    )
    assert type(get_scoring("vdw:1")) is type(vdw)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("dfire:1,nosuch:2", "unknown scoring function 'nosuch'"),
        ("dfire:abc", "weight 'abc' is not a number"),
        ("dfire:1,dfire:2", "dfire is listed twice"),
        ("ddna", "is in no LightDock package on PyPI"),
    ],
)
def test_bad_scoring_specs_are_one_line_errors(spec, needle):
    from sparkledock.errors import SparkledockError

    with pytest.raises(SparkledockError, match=needle) as err:
        get_scoring(spec)
    assert "\n" not in str(err.value)


def test_a_bad_line_in_a_scoring_file_names_file_and_line(tmp_path, capsys):
    from sparkledock.cli import main

    bad = tmp_path / "scoring.conf"
    bad.write_text("# weights\nfastdfire 1.0\nvdw half\n")
    setup = BENCH / "2X9A" / "lightdock_setup"
    poses = tmp_path / "poses.dat"
    poses.write_text(" ".join(["0"] * 27) + "\n")
    assert main(["score", str(setup), str(poses), "--scoring", str(bad)]) != 0
    err = capsys.readouterr().err.strip()
    assert f"{bad}:3" in err and "half" in err and len(err.splitlines()) == 1


def test_score_terms_csv_and_scoring_list(tmp_path, capsys):
    from sparkledock.cli import main

    poses, _ = golden("2X9A")
    path = tmp_path / "poses.dat"
    path.write_text("".join(" ".join(map(repr, p.tolist())) + "\n" for p in poses[:5]))
    setup = str(BENCH / "2X9A" / "lightdock_setup")
    assert main(["score", setup, str(path), "--scoring", "dfire:1,vdw:0.5", "--terms"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "score,dfire,vdw"
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    assert np.array_equal(rows[:, 0], rows[:, 1] + rows[:, 2]) and len(rows) == 5
    assert main(["score", setup, str(path), "--scoring", "vdw"]) == 0
    vdw = np.array([float(v) for v in capsys.readouterr().out.split()])
    assert np.array_equal(rows[:, 2], vdw * 0.5)
    assert main(["scoring", "list"]) == 0
    listing = capsys.readouterr().out
    assert "vdw" in listing and "numba, numpy" in listing and "dfire" in listing


@pytest.mark.parametrize("function", ["vdw", "cpydock", "dna", "dfire2"])
def test_torch_kernels_agree_with_numba(setups, function):
    pytest.importorskip("torch")
    from sparkledock.backend import resolve_engine

    setup = setups("2X9A")
    scoring = get_scoring(function)
    model = scoring.prepare(
        setup.receptor, setup.ligand, read_restraints(BENCH / "2X9A" / "restraints.list")
    )
    poses, _ = golden("2X9A")
    ref = scoring.score(model, poses)
    for precision, rtol in (("fp64", 1e-12), ("fp32", 1e-4)):
        got = scoring.score(model, poses, engine=resolve_engine("torch", "cpu", precision))
        assert np.max(np.abs(got - ref) / np.abs(ref)) < rtol, precision


def test_dfire2_on_torch_does_not_depend_on_chunks_or_rigid_partners(setups):
    """dfire2's device scorer in small pieces (poses and rows of pairs), with and without
    normal modes (rigid partners' internal pairs are summed once): numba's scores."""
    torch = pytest.importorskip("torch")
    from sparkledock.backend import resolve_engine

    setup = setups("2X9A")
    scoring = get_scoring("dfire2")
    poses, _ = golden("2X9A")
    restraints = read_restraints(BENCH / "2X9A" / "restraints.list")
    engine = resolve_engine("torch", "cpu", "fp64")
    for receptor, ligand, p in (
        (setup.receptor, setup.ligand, poses[:6]),
        (Partner.rigid(setup.receptor.atoms), Partner.rigid(setup.ligand.atoms), poses[:6, :7]),
    ):
        model = scoring.prepare(receptor, ligand, restraints)
        small = scoring.device_scorer(model, engine, workspace_bytes=2_000_000)
        got = small.score(torch.as_tensor(p, dtype=torch.float64)).numpy()
        ref = scoring.score(model, p)
        assert np.max(np.abs(got - ref) / np.abs(ref)) < 1e-12


def test_gso_on_torch_with_a_combination_equals_numba(tmp_path):
    """``run --backend torch`` with cpydock and vdw weighted: the same gso files as numba."""
    pytest.importorskip("torch")
    pytest.importorskip("freesasa")  # (cpydock's extra: sparkledock[pydock], installed in CI)
    from conftest import writable_setup
    from sparkledock.cli import main

    texts = []
    for backend in ("numba", "torch"):
        setup_dir = writable_setup(tmp_path / backend)
        argv = ["run", str(setup_dir), "5", "--scoring", "cpydock:1,vdw:0.2", "--swarms", "0"]
        assert main([*argv, "--backend", backend, "--quiet"]) == 0
        texts.append((setup_dir / "swarm_0" / "gso_5.out").read_text())
    assert texts[0] == texts[1]


def test_dock_with_a_combination_keeps_each_term_in_ranking_csv(tmp_path):
    from sparkledock.cli import main

    src, out = BENCH / "2X9A", tmp_path / "out"
    argv = ["dock", str(src / "2X9A_r_u.pdb"), str(src / "2X9A_l_u.pdb"), "-o", str(out)]
    argv += ["-r", str(src / "restraints.list"), "--scoring", "dfire:1,vdw:0.5"]
    assert main([*argv, "--steps", "3", "-g", "10", "-s", "3", "--top", "2", "--quiet"]) == 0
    import csv

    rows = list(csv.DictReader((out / "ranking.csv").open()))
    assert list(rows[0])[:9] == [
        "rank", "score", "model", "swarm", "glowworm", "cluster_size", "restraints",
        "score_dfire", "score_vdw",
    ]  # fmt: skip
    for row in rows:
        total = float(row["score_dfire"]) + float(row["score_vdw"])
        # each column is rounded to 3 decimals, and the terms score the pose as the gso file
        # keeps it (7 decimals), which moves a clash's r^-12 term by up to ~1e-5 of its value
        assert abs(total - float(row["score"])) <= 2e-3 + 1e-5 * abs(float(row["score"]))
    assert any(float(r["score_vdw"]) != 0.0 for r in rows)


@pytest.mark.parametrize("function", ["mj3h", "tobi"])
def test_rigid_only_functions_refuse_normal_modes_in_one_line(setups, function):
    from sparkledock.errors import SparkledockError

    setup = setups("2X9A")
    with pytest.raises(SparkledockError, match="no normal-mode support") as err:
        get_scoring(function).prepare(setup.receptor, setup.ligand, names=("rec.pdb", "lig.pdb"))
    assert "\n" not in str(err.value) and "rec.pdb" in str(err.value)
