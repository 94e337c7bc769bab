"""LightDock's remaining setup options: membranes, -fd, -sd, -spr, --ds, --flip, separate
mode seed and amplitudes; against LightDock 0.9.4's own membrane setups of 3x29."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial import cKDTree

from conftest import BENCH, DATA
from sparkledock.errors import InputFileError
from sparkledock.molecule.structure import centred, read_structure
from sparkledock.preparation.membrane import layers, membrane_side
from sparkledock.preparation.prepare import SetupOptions, prepare_setup
from sparkledock.preparation.surface import atom_sasa
from sparkledock.preparation.swarms import surface_distance

MEMBRANE = DATA / "lightdock_regression" / "membrane"
RECEPTOR, LIGAND = MEMBRANE / "3x29_receptor_membrane.pdb", MEMBRANE / "3x29_ligand.pdb"


def centres(path: Path) -> np.ndarray:
    lines = [line for line in path.read_text().splitlines() if line.startswith("ATOM")]
    return np.array([[float(x[30:38]), float(x[38:46]), float(x[46:54])] for x in lines])


def membrane_setup(tmp_path: Path, name: str = "s", **options) -> Path:
    opts = SetupOptions(glowworms=5, noh=True, noxt=True, scoring=None, **options)
    return prepare_setup(RECEPTOR, LIGAND, tmp_path / name, options=opts)


def bead_z(shifted: bool) -> np.ndarray:
    atoms = read_structure(RECEPTOR)
    if shifted:
        atoms = centred(atoms)
    return atoms.coords[atoms.res_name.astype(str) == "MMB", 2]


def test_membrane_layers_and_sides_follow_lightdocks_rule():
    z = np.array([0.0, 1.0, 30.0, 2.0, 31.5, 29.0])
    assert [list(layer) for layer in layers(z)] == [[0.0, 1.0, 2.0], [29.0, 30.0, 31.5]]
    points = np.array([[0, 0, -5.0], [0, 0, 2.0], [0, 0, 10.0], [0, 0, 29.0], [0, 0, 31.5]])
    assert membrane_side(points, z, 0.0, False).tolist() == [False] * 4 + [True]
    assert membrane_side(points, z, 0.0, True).tolist() == [False, True, True, True, False]
    assert membrane_side(points, z, -10.0, False).tolist() == [False, False, False, True, True]
    with pytest.raises(InputFileError, match="two membrane layers, the beads form 1"):
        membrane_side(points, np.array([0.0, 1.0]), 0.0, True)


@pytest.mark.parametrize(
    ("case", "options", "lightdock_swarms"),
    [
        ("membrane_s400", {"swarms": 400, "membrane": True}, 138),
        ("transmembrane_s400", {"swarms": 400, "transmembrane": True}, 104),
        ("membrane_auto", {"membrane": True}, 60),
    ],
)
def test_membrane_swarms_match_lightdocks_setups(tmp_path, case, options, lightdock_swarms):
    """LightDock's very centres (its swarm_centers.pdb byte for byte; the count from the
    surface needs freesasa, as LightDock's does), every one on the side its rule allows."""
    out = membrane_setup(tmp_path, lightdock_area=True, **options)
    config = json.loads((out / "setup.json").read_text())
    ours, theirs = (
        centres(out / "init" / "swarm_centers.pdb"),
        centres(MEMBRANE / f"swarm_centers_{case}.pdb"),
    )
    assert config["swarms"] == len(ours) and len(list((out / "init").glob("*.dat"))) == len(ours)
    if options.get("swarms") or importlib.util.find_spec("freesasa"):
        assert len(ours) == lightdock_swarms
        same = (out / "init" / "swarm_centers.pdb").read_bytes()
        assert same == (MEMBRANE / f"swarm_centers_{case}.pdb").read_bytes()
    assert abs(len(ours) - lightdock_swarms) <= 0.2 * lightdock_swarms
    assert config["membrane"] == bool(options.get("membrane"))
    assert config["transmembrane"] == bool(options.get("transmembrane"))
    found = layers(bead_z(shifted=True))
    assert len(found) == 2
    upper = max(found, key=np.mean)
    lower = min(found, key=np.mean)
    if options.get("transmembrane"):
        assert ours[:, 2].min() >= lower.max() - 1e-9 and ours[:, 2].max() <= upper.min() + 1e-9
    else:
        assert ours[:, 2].min() >= upper.max() - 1e-9
    assert abs(ours[:, 2].min() - theirs[:, 2].min()) < 1.0  # the same floor


def test_membrane_setup_masks_as_lightdock_and_lightdock_spelling_runs(tmp_path, monkeypatch):
    from sparkledock.lightdock.commands import main

    out = membrane_setup(tmp_path, swarms=50, membrane=True)
    mask = np.load(out / "lightdock_3x29_receptor_membrane_mask.npy")
    assert np.array_equal(mask, np.load(MEMBRANE / "lightdock_3x29_receptor_membrane_mask.npy"))
    work = tmp_path / "ld"
    work.mkdir()
    for f in (RECEPTOR, LIGAND):
        (work / f.name).write_bytes(f.read_bytes())
    monkeypatch.chdir(work)
    argv = [RECEPTOR.name, LIGAND.name, "-g", "5", "-s", "50", "--noxt", "--noh", "-membrane"]
    assert main("lightdock3_setup.py", argv) == 0
    config = json.loads((work / "setup.json").read_text())
    assert (
        config["membrane"] is True
        and config["swarms"] == json.loads((out / "setup.json").read_text())["swarms"]
    )


def test_membrane_options_refuse_bad_receptors_in_one_line(tmp_path):
    src = BENCH / "2X9A"
    with pytest.raises(InputFileError, match=r"2X9A_r_u\.pdb: no membrane beads"):
        prepare_setup(
            src / "2X9A_r_u.pdb",
            src / "2X9A_l_u.pdb",
            tmp_path / "s",
            options=SetupOptions(membrane=True, glowworms=5),
        )
    one_layer = tmp_path / "one_layer.pdb"
    lines = RECEPTOR.read_text().splitlines()
    z = bead_z(shifted=False)
    cut = float(np.mean(z))
    keep = [
        line
        for line in lines
        if not (line.startswith("ATOM") and line[17:20] == "MMB" and float(line[46:54]) < cut)
    ]
    one_layer.write_text("\n".join(keep) + "\n")
    with pytest.raises(InputFileError, match="two membrane layers, the beads form 1"):
        prepare_setup(
            one_layer,
            LIGAND,
            tmp_path / "t",
            options=SetupOptions(transmembrane=True, glowworms=5, swarms=50, scoring=None),
        )
    assert not (tmp_path / "t" / "setup.json").exists()


def test_fixed_distance_density_and_dense_sampling(tmp_path):
    src = BENCH / "2X9A"
    rec, lig = src / "2X9A_r_u.pdb", src / "2X9A_l_u.pdb"

    def setup(name, **options):
        out = prepare_setup(rec, lig, tmp_path / name, options=SetupOptions(glowworms=3, **options))
        return json.loads((out / "setup.json").read_text()), centres(out / "init/swarm_centers.pdb")

    base, base_centres = setup("base")
    sasa = atom_sasa(centred(read_structure(rec)))
    dense_config, _ = setup("dense", surface_density=30.0)
    assert dense_config["swarms"] == math.ceil(sasa.sum() / 30.0) > base["swarms"]
    assert dense_config["surface_density"] == 30.0
    far_config, far_centres = setup("far", fixed_distance=18.0)
    assert far_config["fixed_distance"] == 18.0 and far_config["swarms"] == base["swarms"]
    atoms = cKDTree(centred(read_structure(rec)).coords)
    assert atoms.query(far_centres)[0].mean() > atoms.query(base_centres)[0].mean() + 3.0
    every_config, _ = setup("every", dense_sampling=True)
    assert every_config["dense_sampling"] is True
    assert every_config["swarms"] > 3 * base["swarms"]  # no final clustering
    atoms_l = read_structure(lig)
    assert surface_distance(atoms_l, 18.0) == 18.0


def test_swarms_per_restraint(tmp_path):
    src = BENCH / "2X9A"
    options = SetupOptions(glowworms=3, noh=True, now=True, swarms_per_restraint=3)
    out = prepare_setup(
        src / "2X9A_r_u.pdb",
        src / "2X9A_l_u.pdb",
        tmp_path / "s",
        restraints=src / "restraints.list",
        options=options,
    )
    config = json.loads((out / "setup.json").read_text())
    n_rec = len(config["receptor_restraints"]["active"]) + len(
        config["receptor_restraints"]["passive"]
    )
    assert config["swarms_per_restraint"] == 3
    assert 0 < config["swarms"] <= 3 * n_rec


def test_mode_seed_and_ligand_amplitude_are_separate(tmp_path):
    src = BENCH / "2X9A"
    rec, lig = src / "2X9A_r_u.pdb", src / "2X9A_l_u.pdb"

    def setup(name, **options):
        opts = SetupOptions(glowworms=4, swarms=3, anm=True, anm_rec=2, anm_lig=2, **options)
        return prepare_setup(rec, lig, tmp_path / name, options=opts)

    base = setup("base")
    other = setup("seed", anm_seed=7)
    louder = setup("amp", anm_lig_rmsd=1.0)
    start = "init/initial_positions_0.dat"
    a, b = (np.loadtxt(p / start) for p in (base, other))
    assert np.array_equal(a[:, :7], b[:, :7])  # translations and rotations: --seed
    assert not np.allclose(a[:, 7:], b[:, 7:])  # mode extents: their own seed
    assert json.loads((other / "setup.json").read_text())["anm_seed"] == 7
    np.testing.assert_allclose(
        np.load(louder / "lightdock_lig.nm.npy"), 2.0 * np.load(base / "lightdock_lig.nm.npy")
    )
    np.testing.assert_array_equal(
        np.load(louder / "lightdock_rec.nm.npy"), np.load(base / "lightdock_rec.nm.npy")
    )
    config = json.loads((louder / "setup.json").read_text())
    assert (config["anm_rec_rmsd"], config["anm_lig_rmsd"]) == (0.5, 1.0)


def test_flip_turns_about_half_of_the_restraint_oriented_ligands(tmp_path):
    src = BENCH / "2X9A"

    def setup(name, flip):
        opts = SetupOptions(glowworms=40, noh=True, now=True, flip=flip)
        return prepare_setup(
            src / "2X9A_r_u.pdb",
            src / "2X9A_l_u.pdb",
            tmp_path / name,
            restraints=src / "restraints.list",
            options=opts,
        )

    plain, flipped = setup("plain", False), setup("flip", True)
    assert json.loads((flipped / "setup.json").read_text())["flip"] is True
    changed = total = 0
    for path in sorted((plain / "init").glob("initial_positions_*.dat")):
        a, b = np.loadtxt(path), np.loadtxt(flipped / "init" / path.name)
        assert np.array_equal(a[:, :3], b[:, :3])  # translations unchanged
        turned = ~np.all(np.isclose(a[:, 3:7], b[:, 3:7]), axis=1)
        np.testing.assert_allclose(np.linalg.norm(b[:, 3:7], axis=1), 1.0, atol=1e-6)
        assert np.allclose(b[turned, 3], 0.0, atol=1e-6)  # half-turns: w = 0
        changed += int(turned.sum())
        total += len(a)
    assert 0.4 < changed / total < 0.6


def test_dock_with_a_membrane_runs_end_to_end(tmp_path):
    from sparkledock.cli import main

    out = tmp_path / "out"
    argv = ["dock", str(RECEPTOR), str(LIGAND), "-o", str(out), "--membrane", "--steps", "2"]
    assert main([*argv, "-g", "5", "-s", "40", "--top", "2", "--quiet"]) == 0
    config = json.loads((out / "setup" / "setup.json").read_text())
    assert config["membrane"] is True
    floor = max(layers(bead_z(shifted=True)), key=np.mean).max()
    assert centres(out / "setup" / "init" / "swarm_centers.pdb")[:, 2].min() >= floor - 1e-9
    assert (out / "top_1.pdb").is_file() and (out / "ranking.csv").is_file()
