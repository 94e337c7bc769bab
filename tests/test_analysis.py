"""Models, BSAS clustering and ranking against LightDock's own post-processing."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from conftest import BENCH
from sparkledock.analysis.cluster import bsas
from sparkledock.cli import main
from sparkledock.molecule.structure import read_structure

RUN = BENCH / "2X9A" / "lightdock_run" / "swarm_0"
SETUP = BENCH / "2X9A" / "lightdock_setup"
#: a LightDock 0.9.4 docking model of 2X9A (swarm 0, step 10, glowworm 119)
DOCKED_2X9A = (
    Path(__file__).parent / "data" / "lightdock_analysis" / "2X9A_swarm0_gso10_lightdock_119.pdb"
)


def test_bsas_by_hand():
    # 1-atom "structures" on a line; scores decide the order
    coords = np.array([[[0.0, 0, 0]], [[3.0, 0, 0]], [[4.5, 0, 0]], [[9.0, 0, 0]]])
    scores = np.array([5.0, 1.0, 4.0, 3.0])
    # order 0 (5.0), 2 (4.0), 3 (3.0), 1 (1.0): 2 is 4.5 from 0 → new; 3 is 4.5 from 2 → new;
    # 1 is 3 from 0 → joins 0's cluster
    assert bsas(coords, scores) == [[0, 1], [2], [3]]
    assert bsas(coords, scores, cutoff=10.0) == [[0, 2, 3, 1]]


def test_cluster_generate_rank_match_lightdock(tmp_path, capsys):
    data = Path(__file__).parent / "data" / "lightdock_analysis"  # LightDock 0.9.4's outputs
    swarm = tmp_path / "swarm_0"
    swarm.mkdir()
    shutil.copy(RUN / "gso_10.out", swarm)
    assert main(["cluster", str(SETUP), str(swarm / "gso_10.out")]) == 0
    assert (swarm / "cluster.repr").read_text() == (
        data / "2X9A_swarm0_gso10_cluster.repr"
    ).read_text()
    assert main(["rank", str(tmp_path), "1", "10"]) == 0
    assert (tmp_path / "rank_by_scoring.list").read_text() == (
        data / "2X9A_swarm0_gso10_rank_by_scoring.list"
    ).read_text()
    assert main(["generate", str(SETUP), str(swarm / "gso_10.out"), "120"]) == 0
    ours = read_structure(swarm / "lightdock_119.pdb")
    theirs = read_structure(data / "2X9A_swarm0_gso10_lightdock_119.pdb")
    assert list(ours.atom_name) == list(theirs.atom_name)
    assert list(ours.chain) == list(theirs.chain)
    assert np.abs(ours.coords - theirs.coords).max() <= 0.0011  # PDB rounding
    assert main(["generate", str(SETUP), str(swarm / "gso_10.out"), "1", "--format", "cif"]) == 0
    assert np.allclose(
        read_structure(swarm / "lightdock_0.cif").coords,
        read_structure(swarm / "lightdock_0.pdb").coords,
        atol=1e-3,
    )
    capsys.readouterr()
    assert main(["rank", str(tmp_path), "2", "10"]) == 1
    assert "swarm_1/gso_10.out: no such gso file" in capsys.readouterr().err


def test_filter_and_top_match_lightdock(tmp_path, capsys):
    data = Path(__file__).parent / "data" / "lightdock_analysis"
    ranking = tmp_path / "rank_by_scoring.list"
    shutil.copy(data / "2X9A_swarm0_gso10_rank_by_scoring.list", ranking)
    restraints = BENCH / "2X9A" / "restraints.list"
    assert main(["filter", str(SETUP), str(ranking), str(restraints), "--fnat", "0.25"]) == 0
    ours = {}
    for line in capsys.readouterr().out.splitlines():
        name, fraction = line.split()
        ours[name] = float(fraction)
    theirs = {}
    for line in (data / "2X9A_swarm0_gso10_filter_restraints.txt").read_text().splitlines():
        name, fraction = line.split()
        theirs[name] = float(fraction)
    assert ours.keys() == theirs.keys() and len(ours) == 57
    assert all(abs(ours[k] - theirs[k]) < 1e-9 for k in ours)
    kept = (tmp_path / "rank_filtered.list").read_text().splitlines()[1:]
    assert len(kept) == sum(f >= 0.25 for f in theirs.values()) > 0
    assert main(["top", str(SETUP), str(ranking), "2", "-o", str(tmp_path / "top")]) == 0
    best = read_structure(tmp_path / "top" / "top_1.pdb")
    reference = read_structure(data / "2X9A_swarm0_gso10_lightdock_119.pdb")
    # the ranking keeps poses to 3 decimals (as LightDock's): the model moves by < 0.05 Å
    assert np.abs(best.coords - reference.coords).max() < 0.05
    assert (tmp_path / "top" / "top_2.pdb").is_file()


def test_evaluate_reference_against_itself_and_a_docked_model(tmp_path, capsys):
    from sparkledock.analysis.evaluate import capri_class, evaluate

    target = BENCH / "2X9A" / "2X9A_target.pdb"
    self_q = evaluate(target, target)
    assert self_q.dockq > 0.9999 and self_q.capri == "high"
    q = evaluate(DOCKED_2X9A, target)
    assert 0.0 <= q.dockq < 0.9 and q.capri == capri_class(q.fnat, q.irmsd, q.lrmsd)
    assert main(["evaluate", str(target), str(target), str(DOCKED_2X9A)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "model,DockQ,fnat,iRMSD,LRMSD,CAPRI" and lines[1].endswith(",high")
    assert capri_class(0.6, 0.9, 3.0) == "high"
    assert capri_class(0.35, 1.5, 6.0) == "medium"
    assert capri_class(0.15, 5.0, 9.0) == "acceptable"
    assert capri_class(0.05, 0.5, 0.5) == "incorrect"


def test_evaluate_sees_a_file_rewritten_at_the_same_path(tmp_path):
    """DockQ caches by file path; a model regenerated in place must not get its old score."""
    from sparkledock.analysis.evaluate import evaluate

    target = BENCH / "2X9A" / "2X9A_target.pdb"
    model = tmp_path / "model.pdb"
    shutil.copy(target, model)
    assert evaluate(model, target).capri == "high"
    shutil.copy(DOCKED_2X9A, model)
    rewritten = evaluate(model, target)
    assert rewritten == evaluate(DOCKED_2X9A, target)
    assert rewritten.capri != "high"
