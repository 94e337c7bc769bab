"""The stage functions called by hand on a finished ``dock`` folder give ``dock``'s own
ranking and models: rank by score, filter by the docking's restraints, rank what the filter
kept by the restrained default (a restrained docking); the site models (each site docking a finished
restrained docking, its best read from its result) ahead of the blind default's ranking (a
blind docking)."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest

import sparkledock
from conftest import BENCH
from sparkledock.errors import SparkledockError

SRC = BENCH / "2X9A"
REC, LIG = SRC / "2X9A_r_u.pdb", SRC / "2X9A_l_u.pdb"


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "ranking.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _options(folder: Path) -> dict:
    return json.loads((folder / "run.json").read_text())["options"]


def _atoms(path: Path) -> list[str]:
    """A model's atom lines (``dock``'s models open with REMARKs saying where they came from)."""
    return [x for x in path.read_text().splitlines() if x.startswith(("ATOM", "HETATM"))]


def _restrained(folder: Path) -> list:
    """A restrained ``dock``'s ranking, by the stages: by score, what the 40 % filter keeps
    (all of them when it keeps none, as ``dock`` warns), that in the recorded method's order."""
    options = _options(folder)
    setup, steps = folder / "setup", options["steps"]
    by_score = sparkledock.rank(setup, steps)
    kept = sparkledock.filter_ranking(setup, by_score, positive=False).kept or by_score
    return sparkledock.rank(setup, steps, method=options["rank_method"], solutions=kept)


def _best(folder: Path):
    """A finished docking's best solution, read from its result."""
    from sparkledock.analysis.rank import Ranked

    row = sparkledock.read_dock_result(folder).top
    pose = tuple(float(x) for x in row["pose"].split())
    return Ranked(row["swarm"], row["glowworm"], pose, 0.0, 0, 0.0, row["score"])


def _key(ranked) -> list[tuple[int, int]]:
    return [(r.swarm, r.glowworm) for r in ranked]


def test_a_restrained_dock_is_its_stages(tmp_path):
    out = tmp_path / "dock"
    sparkledock.dock(REC, LIG, out, restraints=SRC / "restraints.list", steps=10,
                     glowworms=10, top=3, quiet=True)  # fmt: skip
    assert _options(out)["rank_method"] == "learned"
    ranked = _restrained(out)
    rows = _rows(out)
    assert len(rows) > 3 and _key(ranked) == [(int(r["swarm"]), int(r["glowworm"])) for r in rows]
    # not the order by score alone, nor the learned order of every representative
    by_score = sparkledock.rank(out / "setup", 10)
    assert _key(ranked) != _key(by_score)[: len(ranked)]
    models = sparkledock.top(out / "setup", ranked, 3, tmp_path / "stages")
    for path in models:
        assert _atoms(path) == _atoms(out / path.name)
    # the docking's own restraints by default; a setup without any says so
    bare = tmp_path / "bare"
    sparkledock.setup(REC, LIG, bare, swarms=1, glowworms=4, quiet=True)
    sparkledock.run(bare, 1, quiet=True)
    with pytest.raises(SparkledockError, match="set up without restraints"):
        sparkledock.filter_ranking(bare, sparkledock.rank(bare, 1))
    with pytest.raises(SparkledockError, match="needs restraints"):
        sparkledock.rank(bare, 1, method="learned")
    # dock judges every solution; LightDock's filter (the stage's default) drops those
    # without a positive score first
    negative = dataclasses.replace(by_score[0], score=-1.0)
    judged = sparkledock.filter_ranking(out / "setup", [negative, *by_score], positive=False)
    assert len(judged.fractions) == len(by_score) + 1
    judged = sparkledock.filter_ranking(out / "setup", [negative, *by_score])
    assert 0 < len(judged.fractions) == sum(r.score > 0 for r in by_score) < len(by_score)
    stranger = dataclasses.replace(by_score[0], swarm=9999, glowworm=0)
    with pytest.raises(SparkledockError, match="swarm 9999 glowworm 0 is not one"):
        sparkledock.rank(out / "setup", 10, solutions=[stranger])


@pytest.mark.filterwarnings("ignore:.*no solution satisfies")
def test_a_blind_dock_is_its_stages(tmp_path):
    out = tmp_path / "blind"
    sparkledock.dock(REC, LIG, out, steps=4, glowworms=10, swarms=4, top=6, quiet=True)
    options = _options(out)
    assert options["rank_method"] == "learned_blind"
    sites = sorted((out / "sites").glob("site_*/"), key=lambda p: int(p.name.split("_")[1]))
    assert len(sites) > 1
    # each site docking a finished restrained docking (test_a_restrained_dock_is_its_stages)
    # that keeps its ranking, not its swarm files: its best model, read back, in the sites' order
    front = [_best(site) for site in sites]
    blind = sparkledock.rank(out / "setup", options["steps"], method="learned_blind")
    rows = _rows(out)
    assert [r["site"] for r in rows[: len(sites)]] == [f"sites/{s.name}" for s in sites]
    assert _key(front + blind) == [(int(r["swarm"]), int(r["glowworm"])) for r in rows]
    models = sparkledock.top(out / "setup", front + blind, 6, tmp_path / "stages")
    for path in models:
        assert _atoms(path) == _atoms(out / path.name)
