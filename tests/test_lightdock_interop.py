"""A sparkledock setup is a LightDock setup: its files, LightDock's command lines (the HADDOCK3
route among them) and LightDock's own fastdfire regression cases."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import BENCH, DATA
from sparkledock.analysis.models import write_models
from sparkledock.engine.checkpoint import starting_files
from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup
from sparkledock.io.restraints import read_restraints
from sparkledock.lightdock.commands import install_commands, main
from sparkledock.molecule.structure import centre_of_coordinates, clean, read_structure
from sparkledock.preparation.prepare import SetupOptions, prepare_setup

REGRESSION = DATA / "lightdock_regression"
SRC = BENCH / "2X9A"


def _coords(path: Path) -> np.ndarray:
    return read_structure(path).coords


def _regression_case(tmp_path: Path, case: str) -> Path:
    """A LightDock regression case laid out as LightDock left it: every starting file's name
    is there (empty but for the one the checked swarm starts from)."""
    dest = tmp_path / case
    shutil.copytree(REGRESSION / case, dest)
    for path in (REGRESSION / "common").iterdir():
        shutil.copy(path, dest)
    n = json.loads((dest / "setup.json").read_text())["swarms"]
    for i in range(n):
        (dest / "init" / f"initial_positions_{i}.dat").touch(exist_ok=True)
    return dest


@pytest.mark.parametrize(
    ("case", "swarm", "steps", "outputs"),
    [
        ("short", 10, 5, ["gso_0.out", "gso_5.out"]),
        ("restraints", 0, 5, ["gso_0.out", "gso_5.out"]),
        ("long", 100, 40, ["gso_0.out", "gso_40.out"]),
    ],
)
def test_lightdock_fastdfire_regression_cases_pass(
    tmp_path, monkeypatch, case, swarm, steps, outputs
):
    """LightDock's own regression command lines give LightDock's golden files byte for byte
    (swarm 10 of 100 starts from initial_positions_18.dat, as in LightDock)."""
    root = _regression_case(tmp_path, case)
    golden = {name: (root / f"swarm_{swarm}" / name).read_bytes() for name in outputs}
    shutil.rmtree(root / f"swarm_{swarm}")
    monkeypatch.chdir(root)
    argv = ["-c", "1", "-s", "fastdfire", "setup.json", str(steps), "-l", str(swarm)]
    assert main("lightdock3.py", argv) == 0
    for name, data in golden.items():
        assert (root / f"swarm_{swarm}" / name).read_bytes() == data, name


@pytest.mark.parametrize("function", ["mj3h", "tobi", "pisa"])
def test_lightdock_gso_configuration_regression_cases_pass(tmp_path, monkeypatch, function):
    """LightDock's ``-f glowworm.conf`` cases (vision ranges 15–40 Å, beta 0.16): byte for
    byte, mj3h and tobi with LightDock's reference point (the ellipsoid centre of the
    ligand's residue beads, not of its atoms)."""
    root = _regression_case(tmp_path, f"{function}_short")
    golden = {n: (root / "swarm_0" / n).read_bytes() for n in ("gso_0.out", "gso_10.out")}
    shutil.rmtree(root / "swarm_0")
    monkeypatch.chdir(root)
    argv = ["-c", "1", "-f", "glowworm.conf", "-s", function, "setup.json", "10", "-l", "0"]
    assert main("lightdock3.py", argv) == 0
    for name, data in golden.items():
        assert (root / "swarm_0" / name).read_bytes() == data, name


def test_local_minimization_gives_lightdocks_files(tmp_path, monkeypatch):
    """``-min`` (Powell on each swarm's best glowworm every step, 200 glowworms with 10 + 10
    modes): byte for byte LightDock 0.9.4's own files of its fastdfire_min case."""
    root = _regression_case(tmp_path, "fastdfire_min")
    golden = {n: (root / "swarm_0" / n).read_bytes() for n in ("gso_0.out", "gso_10.out")}
    shutil.rmtree(root / "swarm_0")
    monkeypatch.chdir(root)
    argv = ["-c", "1", "-s", "fastdfire", "setup.json", "10", "-l", "0", "-min"]
    assert main("lightdock3.py", argv) == 0
    for name, data in golden.items():
        assert (root / "swarm_0" / name).read_bytes() == data, name
    text = golden["gso_10.out"].decode()
    plain = tmp_path / "plain"
    shutil.copytree(_regression_case(tmp_path / "again", "fastdfire_min"), plain)
    shutil.rmtree(plain / "swarm_0")
    monkeypatch.chdir(plain)
    assert main("lightdock3.py", argv[:-1]) == 0
    assert (plain / "swarm_0" / "gso_10.out").read_text() != text  # -min changes the run


def test_exact_mode_pairs_swarms_with_files_as_lightdock(tmp_path):
    root = _regression_case(tmp_path, "short")
    exact = starting_files(root, 100, [0, 2, 10, 99], exact=True)
    assert [exact[s].name for s in (0, 2, 10, 99)] == [
        "initial_positions_0.dat",
        "initial_positions_10.dat",
        "initial_positions_18.dat",
        "initial_positions_99.dat",
    ]
    own = starting_files(root, 100, [10], exact=False)
    assert own[10].name == "initial_positions_10.dat"


@pytest.fixture
def restrained(tmp_path):
    for name in ("2X9A_r_u.pdb", "2X9A_l_u.pdb", "restraints.list"):
        shutil.copy(SRC / name, tmp_path / name)
    out = prepare_setup(
        tmp_path / "2X9A_r_u.pdb",
        tmp_path / "2X9A_l_u.pdb",
        tmp_path / "setup",
        restraints=tmp_path / "restraints.list",
        options=SetupOptions(glowworms=6, swarms=12, anm=True, noh=True, now=True),
    )
    return tmp_path, out


def test_setup_json_carries_lightdocks_restraint_keys(restrained):
    inputs, out = restrained
    config = json.loads((out / "setup.json").read_text())
    given = read_restraints(inputs / "restraints.list")
    assert config["receptor_restraints"] == {
        "active": given.receptor.active,
        "passive": [],
        "blocked": [],
    }
    assert config["ligand_restraints"]["active"] == given.ligand.active
    # what run docks with comes from those keys, as in LightDock (the file is not needed)
    (out / "restraints.list").unlink()
    found = setup_restraints(load_setup(out))
    assert found.receptor.active == given.receptor.active
    assert found.ligand.active == given.ligand.active


def test_parsed_structures_centred_inputs_beside_models_in_input_frame(restrained):
    inputs, out = restrained
    config = json.loads((out / "setup.json").read_text())
    for name, key in (("2X9A_r_u.pdb", "receptor_centre"), ("2X9A_l_u.pdb", "ligand_centre")):
        assert (out / name).read_bytes() == (inputs / name).read_bytes()
        parsed = _coords(out / f"lightdock_{name}")
        assert np.linalg.norm(centre_of_coordinates(parsed)) < 1e-3  # LightDock's frame
        given = clean(read_structure(inputs / name)).coords
        assert np.allclose(parsed + config["sparkledock"][key], given, atol=6e-4)
    # a model of the identity pose: receptor where the input has it, ligand centred on t
    setup = load_setup(out)
    pose = np.zeros(setup.layout.size)
    pose[:3], pose[3] = (1.0, 2.0, 3.0), 1.0
    write_models(setup, pose[None], [out / "m.pdb"])
    model = _coords(out / "m.pdb")
    n_rec = len(setup.receptor.atoms)
    rec_input = clean(read_structure(inputs / "2X9A_r_u.pdb")).coords
    assert np.allclose(model[:n_rec], rec_input, atol=2e-3)
    lig_centre = centre_of_coordinates(model[n_rec:])
    assert np.allclose(
        lig_centre, np.array([1.0, 2.0, 3.0]) + config["sparkledock"]["receptor_centre"], atol=2e-3
    )


def test_lightdock_setup_models_stay_in_lightdocks_frame():
    """A LightDock setup (no recorded input frame): models in LightDock's centred frame, where
    LightDock's lgd_top.py writes them."""
    setup = load_setup(BENCH / "2X9A" / "lightdock_setup")
    pose = np.zeros(setup.layout.size)
    pose[3] = 1.0
    assert np.allclose(setup.model_centre, setup.receptor_centre)
    parsed = _coords(BENCH / "2X9A" / "lightdock_setup" / "lightdock_2X9A_r_u.pdb")
    model = setup.receptor.atoms.coords + setup.model_centre
    assert np.allclose(model, parsed, atol=1e-9)


def test_same_file_name_in_two_folders(tmp_path, recwarn):
    (tmp_path / "r").mkdir()
    (tmp_path / "l").mkdir()
    shutil.copy(SRC / "2X9A_r_u.pdb", tmp_path / "r" / "x.pdb")
    shutil.copy(SRC / "2X9A_l_u.pdb", tmp_path / "l" / "x.pdb")
    out = prepare_setup(
        tmp_path / "r" / "x.pdb",
        tmp_path / "l" / "x.pdb",
        tmp_path / "setup",
        options=SetupOptions(glowworms=4, swarms=2),
    )
    assert any("same file name" in str(w.message) for w in recwarn)
    config = json.loads((out / "setup.json").read_text())
    assert (config["receptor_pdb"], config["ligand_pdb"]) == ("receptor_x.pdb", "ligand_x.pdb")
    setup = load_setup(out)
    assert len(setup.receptor.atoms) == len(clean(read_structure(SRC / "2X9A_r_u.pdb")))
    assert len(setup.ligand.atoms) == len(clean(read_structure(SRC / "2X9A_l_u.pdb")))


def _with_hydrogens(source: Path, target: Path) -> int:
    """A copy of a PDB with one H atom 1 Å from each residue's N; returns how many."""
    out, added = [], 0
    for line in source.read_text().splitlines():
        out.append(line)
        if line.startswith("ATOM") and line[12:16].strip() == "N":
            x, y, z = (float(line[30 + 8 * k : 38 + 8 * k]) for k in range(3))
            out.append(f"{line[:12]} H  {line[16:30]}{x + 1.0:8.3f}{y:8.3f}{z:8.3f}{line[54:76]} H")
            added += 1
    target.write_text("\n".join(out) + "\nEND\n")
    return added


def test_haddock3_command_lines(tmp_path, monkeypatch, capsys):
    """HADDOCK3's [lightdock] module, verbatim: setup, simulation, ranking, then lgd_top.py
    after copying the original inputs (with hydrogens) over lightdock_<name>.pdb. The models
    keep every input atom and the docked geometry of sparkledock's own stages."""
    shutil.copy(SRC / "2X9A_r_u.pdb", tmp_path / "rec_A.pdb")
    n_h = _with_hydrogens(SRC / "2X9A_l_u.pdb", tmp_path / "lig_B.pdb")
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            "lightdock3_setup.py",
            ["rec_A.pdb", "lig_B.pdb", "-s", "3", "-g", "8", "--noxt", "--noh"],
        )
        == 0
    )
    assert main("lightdock3.py", ["setup.json", "3", "-c", "1", "-s", "fastdfire"]) == 0
    assert main("lgd_rank.py", ["3", "3"]) == 0
    from sparkledock.cli import main as sparkledock

    assert sparkledock(["top", ".", "rank_by_scoring.list", "2", "-o", "own"]) == 0
    shutil.copy("rec_A.pdb", "lightdock_rec_A.pdb")
    shutil.copy("lig_B.pdb", "lightdock_lig_B.pdb")
    assert main("lgd_top.py", ["rec_A.pdb", "lig_B.pdb", "rank_by_scoring.list", "2"]) == 0
    for i in (1, 2):
        atoms = read_structure(tmp_path / f"top_{i}.pdb")
        own = _coords(tmp_path / "own" / f"top_{i}.pdb")
        is_h = atoms.element.astype(str) == "H"
        assert int(is_h.sum()) == n_h
        assert np.allclose(atoms.coords[~is_h], own, atol=2e-3)
        # each added H stays 1 Å from its residue's N
        names = atoms.atom_name.astype(str)
        n_xyz, h_xyz = atoms.coords[names == "N"], atoms.coords[is_h]
        lig_n = n_xyz[-n_h:]
        assert np.allclose(np.linalg.norm(h_xyz - lig_n, axis=1), 1.0, atol=0.05)


@pytest.mark.parametrize(
    ("command", "argv", "says"),
    [
        ("lightdock3.py", "setup.json 10 -s nosuch", "-s nosuch: no such scoring function"),
        ("lgd_rank.py", "10 100 -c 0.1", "clashes"),
        ("not_lightdock.py", "", "not a LightDock command"),
    ],
)
def test_options_not_built_are_refused_in_one_line(
    tmp_path, monkeypatch, capsys, command, argv, says
):
    monkeypatch.chdir(tmp_path)
    assert main(command, argv.split()) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "error" in err and says in err
    assert list(tmp_path.iterdir()) == []  # refused before any work


def test_lightdock_surface_density_default_is_not_read_as_swarms(tmp_path, monkeypatch):
    shutil.copy(SRC / "2X9A_r_u.pdb", tmp_path / "r.pdb")
    shutil.copy(SRC / "2X9A_l_u.pdb", tmp_path / "l.pdb")
    monkeypatch.chdir(tmp_path)
    assert (
        main(
            "lightdock3_setup.py",
            ["r.pdb", "l.pdb", "-sd", "50", "-s", "2", "-g", "4", "-spr", "20"],
        )
        == 0
    )
    config = json.loads((tmp_path / "setup.json").read_text())
    assert (config["swarms"], config["glowworms"], config["surface_density"]) == (2, 4, 50.0)
    assert main("lightdock3_setup.py", ["r.pdb", "l.pdb", "-s", "2", "-g", "4"]) == 1  # not over it


def test_installed_commands_run_and_never_replace_others(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "lgd_top.py").write_text("#!/bin/sh\necho LightDock's own\n")
    with pytest.raises(Exception, match="another program"):
        install_commands(bin_dir)
    (bin_dir / "lgd_top.py").unlink()
    written = install_commands(bin_dir)
    assert {p.name for p in written} >= {"lightdock3_setup.py", "lightdock3.py", "lgd_top.py"}
    assert install_commands(bin_dir)  # its own scripts may be rewritten
    work = tmp_path / "work"
    shutil.copytree(BENCH / "2X9A" / "lightdock_run", work)
    done = subprocess.run(
        [str(bin_dir / "lgd_rank.py"), "1", "10"], cwd=work, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    ranked = (work / "rank_by_scoring.list").read_text().splitlines()
    assert len(ranked) == 1 + len((work / "swarm_0" / "gso_10.out").read_text().splitlines()) - 1


@pytest.mark.skipif(
    not os.environ.get("LIGHTDOCK_PYTHON"),
    reason="optional: set LIGHTDOCK_PYTHON to a LightDock 0.9.4 venv's python",
)
def test_lightdock_tools_on_a_restrained_sparkledock_setup(restrained):
    """LightDock's own lightdock3.py, lgd_generate_conformations.py, lgd_cluster_bsas.py,
    lgd_rank.py and lgd_top.py on sparkledock's restrained setup give what sparkledock's
    LightDock-named commands give: the exact trajectories (swarm 2 starts from
    initial_positions_10.dat), the clusters, the ranking and the models (LightDock's in its
    centred frame, ours in the input's)."""
    _, out = restrained
    python = Path(os.environ["LIGHTDOCK_PYTHON"])
    ld = out.parent / "lightdock"
    shutil.copytree(out, ld)
    steps = [
        (".", "lightdock3.py", "setup.json 5 -s fastdfire -c 1"),
        (
            "swarm_0",
            "lgd_generate_conformations.py",
            "../2X9A_r_u.pdb ../2X9A_l_u.pdb gso_5.out 6 --setup ../setup.json",
        ),
        ("swarm_0", "lgd_cluster_bsas.py", "gso_5.out"),
        (".", "lgd_rank.py", "12 5"),
        (".", "lgd_top.py", "2X9A_r_u.pdb 2X9A_l_u.pdb rank_by_scoring.list 3 --setup setup.json"),
    ]
    cwd = Path.cwd()
    try:
        for folder, command, argv in steps:
            subprocess.run(
                [str(python), str(python.parent / command), *argv.split()],
                cwd=ld / folder,
                check=True,
                capture_output=True,
            )
            os.chdir(out / folder)
            assert main(command, argv.split()) == 0, command
    finally:
        os.chdir(cwd)
    for swarm in range(12):
        for step in (0, 5):
            name = f"swarm_{swarm}/gso_{step}.out"
            assert (out / name).read_text() == (ld / name).read_text(), name
    for name in ("swarm_0/cluster.repr", "rank_by_scoring.list"):
        assert (out / name).read_text() == (ld / name).read_text(), name
    centre = load_setup(out).model_centre
    models = [f"swarm_0/lightdock_{g}.pdb" for g in range(6)] + [f"top_{i}.pdb" for i in (1, 2, 3)]
    for name in models:
        ours, theirs = _coords(out / name), _coords(ld / name)
        assert np.allclose(ours - centre, theirs, atol=3e-3), name
