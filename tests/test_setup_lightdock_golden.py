"""Setups equal to LightDock 0.9.4's, byte for byte: its setup regression cases (plain,
restraints with insertion codes, --flip, membrane with restraints, transmembrane), every setup
option (-fd, -sd, -sr, -spr, --ds, --flip, seeds and ANM amplitudes) and the blind setups of the
benchmark complexes. Golden checksums: tests/data/lightdock_setups (made by
scripts/lightdock_setup_golden.py with LightDock itself)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from conftest import BENCH, DATA
from sparkledock.lightdock.commands import main
from sparkledock.preparation.kmeans import kmeans
from sparkledock.preparation.prepare import SetupOptions, prepare_setup

pytest.importorskip("freesasa", reason="LightDock's swarm count needs freesasa (pydock extra)")

GOLDEN_DIR = DATA / "lightdock_setups"
GOLDEN = json.loads((GOLDEN_DIR / "golden.json").read_text())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("case", sorted(GOLDEN))
def test_lightdock3_setup_equals_lightdocks(tmp_path, monkeypatch, case):
    golden = GOLDEN[case]
    for item in golden["inputs"]:
        source = BENCH / "2X9A" / item[6:] if item.startswith("bench:") else GOLDEN_DIR / item
        shutil.copy(source, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main("lightdock3_setup.py", golden["argv"].split()) == 0
    ours = {name: _sha256(tmp_path / name) for name in golden["sha256"]}
    assert ours == golden["sha256"]
    setup = json.loads((tmp_path / "setup.json").read_text())
    setup.pop("setup_version")
    setup.pop("sparkledock")
    assert setup == golden["setup"]


@pytest.mark.parametrize("name", ["2X9A", "1RKE"])
def test_blind_setups_of_benchmark_complexes_equal_lightdocks(tmp_path, name):
    """LightDock's setup of ../shared/bench (-g 256 -anm --noxt --noh --now): the swarm count,
    every swarm's mean start translation, and the two initial-position files shipped."""
    src = BENCH / name
    reference = json.loads((src / "lightdock_setup" / "swarm_centers.json").read_text())
    out = prepare_setup(
        src / f"{name}_r_u.pdb",
        src / f"{name}_l_u.pdb",
        tmp_path / "setup",
        options=SetupOptions(
            glowworms=256,
            anm=True,
            noh=True,
            now=True,
            noxt=True,
            lightdock_poses=True,
            lightdock_area=True,
        ),
    )
    config = json.loads((out / "setup.json").read_text())
    assert config["swarms"] == reference["swarms"]
    means = [
        np.loadtxt(out / "init" / f"initial_positions_{i}.dat")[:, :3].mean(axis=0)
        for i in range(config["swarms"])
    ]
    assert (
        np.abs(np.round(means, 3) - np.array(reference["mean_translation_per_swarm"])).max()
        < 1.5e-3
    )
    for shipped in sorted((src / "lightdock_setup" / "init").glob("initial_positions_*.dat")):
        assert (out / "init" / shipped.name).read_bytes() == shipped.read_bytes()


def test_starting_positions_files(tmp_path, monkeypatch):
    """-sp writes each swarm's translations (PDB) and orientations (BILD: a sphere and three
    axis arrows per glowworm) beside its initial positions."""
    for item in ("2X9A_r_u.pdb", "2X9A_l_u.pdb"):
        shutil.copy(BENCH / "2X9A" / item, tmp_path)
    monkeypatch.chdir(tmp_path)
    assert (
        main("lightdock3_setup.py", ["2X9A_r_u.pdb", "2X9A_l_u.pdb", "-g", "7", "-s", "3", "-sp"])
        == 0
    )
    for swarm in range(3):
        poses = np.loadtxt(tmp_path / "init" / f"initial_positions_{swarm}.dat")
        lines = (tmp_path / "init" / f"starting_positions_{swarm}.pdb").read_text().splitlines()
        xyz = np.array([[float(s[30:38]), float(s[38:46]), float(s[46:54])] for s in lines])
        np.testing.assert_allclose(xyz, poses[:, :3], atol=5e-4)
        bild = (tmp_path / "init" / f"starting_poses_{swarm}.bild").read_text()
        assert bild.count(".sphere") == 7 and bild.count(".arrow") == 21
        first = next(line for line in bild.splitlines() if line.startswith(".arrow"))
        start, end = np.array(first.split()[1:4], float), np.array(first.split()[4:7], float)
        assert abs(np.linalg.norm(end - start) - 2.0) < 1e-4  # a 2 Å axis
    assert json.loads((tmp_path / "setup.json").read_text())["write_starting_positions"]


@pytest.mark.filterwarnings("ignore:One of the clusters is empty")
@pytest.mark.parametrize("init", ["points", "++"])
def test_kmeans_equals_scipys_kmeans2_bit_for_bit(init):
    from scipy.cluster.vq import kmeans2

    data = np.random.default_rng(3).normal(size=(3000, 3)) * 20.0
    for k in (5, 700):  # brute force and the k-d tree path
        theirs = kmeans2(data, k, iter=20, minit=init, seed=324324)[0]
        assert np.array_equal(kmeans(data, k, 20, 324324, init), theirs)
