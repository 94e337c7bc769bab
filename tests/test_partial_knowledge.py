"""Partial knowledge: what a restraints file tells of the interface, and what dock records."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sparkledock.cli import example_dir
from sparkledock.io.restraints import read_restraints
from sparkledock.molecule.restraints import LEVELS, knowledge_of


@pytest.mark.parametrize(
    ("lines", "level", "counts"),
    [
        (["R A.ALA.1", "R A.GLY.2", "L B.LYS.7"], "both sides", (2, 1)),
        (["R A.ALA.1", "L B.LYS.7 P"], "one pair", (1, 1)),
        (["R A.ALA.1", "R A.GLY.2 P", "R A.SER.3"], "receptor side", (3, 0)),
        (["R A.ALA.1"], "one receptor residue", (1, 0)),
        (["L B.LYS.7", "L B.ARG.8"], "ligand side", (0, 2)),
        # blocked residues say where the interface is not: they give no knowledge of it
        (["R A.ALA.1", "R A.GLY.2 B", "L B.LYS.7 B"], "one receptor residue", (1, 0)),
        (["R A.GLY.2 B", "L B.LYS.7 B"], "blocked only", (0, 0)),
    ],
)
def test_level_of_knowledge(tmp_path, lines, level, counts):
    path = tmp_path / "r.list"
    path.write_text("\n".join(lines) + "\n")
    known = knowledge_of(read_restraints(path))
    assert known.level == level and level in LEVELS
    assert (known.receptor, known.ligand) == counts


def test_the_example_is_recognised_as_both_sides():
    known = knowledge_of(read_restraints(example_dir() / "restraints.list"))
    lines = (example_dir() / "restraints.list").read_text().split("\n")
    assert known.level == "both sides"
    assert known.receptor == sum(line.startswith("R ") for line in lines)
    assert known.ligand == sum(line.startswith("L ") for line in lines)
    assert json.loads(json.dumps(known.as_dict()))["level"] == "both sides"


def _alternative_files(tmp_path):
    """The example's restraints as two alternatives: each with half of the receptor's residues
    and all of the ligand's."""
    lines = (example_dir() / "restraints.list").read_text().split("\n")
    rec = [line for line in lines if line.startswith("R ")]
    lig = [line for line in lines if line.startswith("L ")]
    paths = []
    for n, part in enumerate((rec[::2], rec[1::2]), start=1):
        path = tmp_path / f"patch{n}.list"
        path.write_text("\n".join(part + lig) + "\n")
        paths.append(path)
    return paths


SMALL = {"steps": 10, "glowworms": 10, "swarms": 3, "top": 3, "quiet": True}


def test_alternatives_are_docked_each_and_ranked_together(tmp_path):
    from sparkledock.docking import DockOptions, dock

    paths = _alternative_files(tmp_path)
    files = {"receptor": example_dir() / "2X9A_r_u.pdb", "ligand": example_dir() / "2X9A_l_u.pdb"}
    options = DockOptions(**SMALL)
    out = dock(**files, out=tmp_path / "both", restraints=paths, options=options)
    as_patch = DockOptions(**SMALL, rank_method="learned_partial")  # (an alternative's ranking)
    alone = [
        dock(**files, out=tmp_path / f"alone{n}", restraints=p, options=as_patch)
        for n, p in enumerate(paths, start=1)
    ]
    merged = list(csv.DictReader((out / "ranking.csv").open()))
    each = [list(csv.DictReader((a / "ranking.csv").open())) for a in alone]
    # each alternative is the docking of its file alone, row for row
    for n, rows in enumerate(each, start=1):
        sub = list(csv.DictReader((out / f"alternative_{n}" / "ranking.csv").open()))
        assert [(r["score"], r["pose"]) for r in sub] == [(r["score"], r["pose"]) for r in rows]
    # every model of both, ranked by score, each pointing at its own alternative's row
    assert len(merged) == sum(len(rows) for rows in each)
    heads = [0] * len(each)  # each alternative's next row: the best-scored head comes next
    for row in merged:
        n = int(row["alternative"]) - 1
        assert int(row["alternative_rank"]) == heads[n] + 1  # (its own order kept)
        others = [
            float(rows[heads[k]]["score"]) for k, rows in enumerate(each) if heads[k] < len(rows)
        ]
        assert float(row["score"]) == max(others)
        heads[n] += 1
    assert [int(r["rank"]) for r in merged] == list(range(1, len(merged) + 1))
    for row in merged:
        own = each[int(row["alternative"]) - 1][int(row["alternative_rank"]) - 1]
        assert (row["score"], row["pose"]) == (own["score"], own["pose"])
    # the top models are the alternatives' own files
    for row in merged[:3]:
        own = each[int(row["alternative"]) - 1][int(row["alternative_rank"]) - 1]
        alt = alone[int(row["alternative"]) - 1]
        assert (out / row["model"]).read_bytes() == (alt / own["model"]).read_bytes()
    assert all(not r["model"] for r in merged[3:])
    record = json.loads((out / "run.json").read_text())
    alternatives = record["result"]["knowledge"]["alternatives"]
    assert [a["level"] for a in alternatives] == ["both sides", "both sides"]
    # a patch among alternatives ranks by the partial-knowledge model, whatever its level
    assert [a["rank_method"] for a in alternatives] == ["learned_partial", "learned_partial"]
    for n in (1, 2):
        own = json.loads((out / f"alternative_{n}" / "run.json").read_text())
        assert own["options"]["rank_method"] == "learned_partial"
    assert record["result"]["merge"] == "score" and record["status"] == "done"
    # done: asked again, the same files
    before = (out / "ranking.csv").read_bytes()
    dock(**files, out=tmp_path / "both", restraints=paths, options=options)
    assert (out / "ranking.csv").read_bytes() == before


def test_a_bad_alternative_is_refused_before_any_work(tmp_path):
    from sparkledock.docking import DockOptions, dock
    from sparkledock.errors import SparkledockError

    good = _alternative_files(tmp_path)[0]
    bad = tmp_path / "bad.list"
    bad.write_text("R A.GLY.9999\n")
    files = {"receptor": example_dir() / "2X9A_r_u.pdb", "ligand": example_dir() / "2X9A_l_u.pdb"}
    with pytest.raises(SparkledockError, match=r"bad\.list"):
        dock(**files, out=tmp_path / "out", restraints=[good, bad], options=DockOptions(**SMALL))
    assert not (tmp_path / "out").exists()
    with pytest.raises(SparkledockError, match="twice"):
        dock(**files, out=tmp_path / "out", restraints=[good, good], options=DockOptions(**SMALL))


def test_the_command_line_takes_alternatives_as_repeated_restraints(tmp_path):
    from sparkledock.cli import main

    paths = _alternative_files(tmp_path)
    out = tmp_path / "cli"
    argv = ["dock", str(example_dir() / "2X9A_r_u.pdb"), str(example_dir() / "2X9A_l_u.pdb")]
    argv += ["-r", str(paths[0]), "-r", str(paths[1]), "-o", str(out), "--quiet"]
    argv += ["--steps", "10", "-g", "10", "-s", "3", "--top", "3"]
    assert main(argv) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["result"]["knowledge"]["level"] == "2 alternatives"
    assert [Path(p["path"]).name for p in record["inputs"]["restraints"]] == [
        "patch1.list",
        "patch2.list",
    ]
    assert sorted(p.name for p in out.glob("top_*.pdb")) == ["top_1.pdb", "top_2.pdb", "top_3.pdb"]
    assert (out / "report.html").read_text().count("alternative_") >= 2
    # one file: the ordinary docking, its level recognised in run.json
    single = tmp_path / "single"
    argv[argv.index(str(out))] = str(single)
    second = argv.index(str(paths[1]))
    del argv[second - 1 : second + 1]
    assert main(argv) == 0
    level = json.loads((single / "run.json").read_text())["result"]["knowledge"]
    assert level == {"level": "both sides", "receptor": 8, "ligand": 18}


@pytest.mark.parametrize(
    ("level", "method"),
    [
        ("both sides", "learned"),
        ("one pair", "dfire"),
        ("ligand side", "learned"),
        ("receptor side", "learned_partial"),
        ("one receptor residue", "learned_partial"),
    ],
)
def test_the_ranking_follows_what_the_restraints_leave_unknown(level, method):
    from sparkledock.docking import DockOptions, with_defaults

    assert with_defaults(DockOptions(), True, level).rank_method == method
    # the user's choice stands, and LightDock's protocol ranks by score whatever the level
    assert with_defaults(DockOptions(rank_method="dfire"), True, level).rank_method == "dfire"
    lightdock = DockOptions(protocol="lightdock")
    assert with_defaults(lightdock, True, level).rank_method == "dfire"


def test_one_receptor_residue_is_docked_and_ranked_as_recognised(tmp_path):
    from sparkledock.docking import DockOptions, dock, with_defaults
    from sparkledock.docking.options import dock_setup_options
    from sparkledock.molecule.structure import read_structure
    from sparkledock.preparation.inputs import read_partners
    from sparkledock.preparation.prepare import prepare_setup

    first = next(
        line
        for line in (example_dir() / "restraints.list").read_text().split("\n")
        if line.startswith("R ")
    )
    one = tmp_path / "one.list"
    one.write_text(first.split()[0] + " " + first.split()[1] + "\n")
    files = {"receptor": example_dir() / "2X9A_r_u.pdb", "ligand": example_dir() / "2X9A_l_u.pdb"}
    kept = DockOptions(**SMALL, keep_trajectories=True)  # (its starting poses kept)
    out = dock(**files, out=tmp_path / "out", restraints=one, options=kept)
    record = json.loads((out / "run.json").read_text())
    known = record["result"]["knowledge"]
    face = known.pop("ligand_face")
    assert known == {"level": "one receptor residue", "receptor": 1, "ligand": 0}
    # a fifth of the ligand's residues, its likeliest interface, turned toward the receptor's
    # restraint: the starting poses are those of a setup told to face them, not the plain one
    ligand = read_structure(out / "setup" / "lightdock_2X9A_l_u.pdb")
    residues = ligand.residue_ids()[ligand.residue_starts()]
    assert len(face) == round(0.2 * len(residues)) and set(face) <= set(residues)
    setup = dock_setup_options(with_defaults(DockOptions(**SMALL), True, known["level"]))
    starts = []
    for facing in ([], face):
        partners = read_partners(files["receptor"], files["ligand"], one, setup)
        partners.restraints.ligand_face = list(facing)
        where = tmp_path / f"setup_{len(facing)}"
        prepare_setup(**files, output=where, restraints=one, options=setup, partners=partners)
        starts.append((where / "init" / "initial_positions_0.dat").read_text())
    docked = (out / "setup" / "init" / "initial_positions_0.dat").read_text()
    assert docked == starts[1] and docked != starts[0]
    assert record["options"]["rank_method"] == "learned_partial"
    report = (out / "report.html").read_text()
    assert "Restraints: one receptor residue (1 receptor and 0 ligand residues); ranked by " in (
        report
    )
    assert f"started facing {len(face)} likely interface residues" in report
    assert json.loads((out / "sparkledock_dock.json").read_text())["ranking"]["rank_method"] == (
        "learned_partial"
    )


def _one_pair(tmp_path: Path) -> Path:
    """2X9A's TI-SINGLE pair (LightDock's study): one receptor and one ligand residue."""
    pair = tmp_path / "pair.list"
    pair.write_text("R A.LYS.24\nL B.ILE.43\n")
    return pair


def test_one_pair_keeps_the_solutions_with_the_pair_in_contact(tmp_path, capsys):
    """A file of one pair: the filter keeps the solutions with a positive score whose two
    residues are within the distance asked, where any is (else the fraction's), the distance
    measured on the written models; dock uses 8 Å and records it; the stages by hand with
    the same distance give dock's ranking."""
    import numpy as np

    import sparkledock
    from sparkledock.analysis.filter import filter_solutions, pair_distances
    from sparkledock.engine.context import setup_restraints
    from sparkledock.io.lightdock import load_setup
    from sparkledock.molecule.structure import read_structure

    files = {"receptor": example_dir() / "2X9A_r_u.pdb", "ligand": example_dir() / "2X9A_l_u.pdb"}
    small = {k: v for k, v in SMALL.items() if k != "swarms"}  # (the pair's own placement)
    out = sparkledock.dock(**files, out=tmp_path / "out", restraints=_one_pair(tmp_path),
                           **small)  # fmt: skip
    record = json.loads((out.folder / "run.json").read_text())
    assert record["result"]["knowledge"]["level"] == "one pair"
    stage = next(s for s in record["stages"] if s["name"] == "filter")
    assert stage["summary"].endswith("(the given pair within 8 Å)")
    setup_dir = out.folder / "setup"
    steps = record["options"]["steps"]
    setup = load_setup(setup_dir)
    restraints = setup_restraints(setup)
    by_score = sparkledock.rank(setup_dir, steps)
    poses = np.array([r.pose for r in by_score])
    distance = pair_distances(setup, poses, restraints)
    # the distance of the written model's two residues
    model = read_structure(out.folder / "top_1.pdb")
    ids = model.residue_ids()
    a, b = model.coords[ids == "A.LYS.24"], model.coords[ids == "B.ILE.43"]
    top = out.top
    first = next(i for i, r in enumerate(by_score)
                 if (r.swarm, r.glowworm) == (top["swarm"], top["glowworm"]))  # fmt: skip
    direct = np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)).min()
    assert distance[first] == pytest.approx(direct, abs=2e-3) and direct <= 8.0
    judged = filter_solutions(setup, by_score, restraints, 0.4, pair_within=8.0)
    scores = np.array([r.score for r in by_score])
    assert judged.pairs is not None
    assert list(judged.keeps) == list((distance <= 8.0) & (scores > 0))
    assert 0 < judged.keeps.sum() < len(by_score)
    # none in contact: the fraction decides, as without a distance
    fraction = filter_solutions(setup, by_score, restraints, 0.4)
    assert fraction.pairs is None
    none = filter_solutions(setup, by_score, restraints, 0.4, pair_within=0.01)
    assert none.pairs is None and list(none.keeps) == list(fraction.keeps)
    # dock's ranking, by the stages (one pair ranks by score)
    kept = sparkledock.filter_ranking(setup_dir, by_score, positive=False, pair_within=8.0).kept
    ranked = sparkledock.rank(setup_dir, steps, method=record["options"]["rank_method"],
                              solutions=kept)  # fmt: skip
    with open(out.folder / "ranking.csv", newline="") as handle:
        rows = [(int(r["swarm"]), int(r["glowworm"])) for r in csv.DictReader(handle)]
    assert [(r.swarm, r.glowworm) for r in ranked] == rows
    # the command line, on a ranking file: the same kept solutions, and it says which rule
    from sparkledock.analysis.rank import read_ranking, write_ranking
    from sparkledock.cli import main

    listed = tmp_path / "ranked" / "rank_by_scoring.list"
    listed.parent.mkdir()
    write_ranking(listed, by_score)
    assert main(["filter", str(setup_dir), str(listed), str(_one_pair(tmp_path)),
                 "--pair-within", "8"]) == 0  # fmt: skip
    kept = read_ranking(listed.with_name("rank_filtered.list"))
    assert [(r.swarm, r.glowworm) for r in kept] == [(r.swarm, r.glowworm) for r in judged.kept]
    assert "solutions have the given pair within 8 Å" in capsys.readouterr().err
    # more than one residue on a side: the distance is not asked
    with pytest.raises(ValueError, match="one receptor and one ligand residue"):
        pair_distances(setup, poses[:1], read_restraints(example_dir() / "restraints.list"))


def test_the_pair_distance_is_checked_before_any_work(tmp_path, capsys):
    import sparkledock
    from sparkledock.cli import main
    from sparkledock.errors import OptionError

    missing = tmp_path / "nothing"
    with pytest.raises(OptionError, match=r"^pair_within must be a distance above 0"):
        sparkledock.filter_ranking(missing, missing, missing, pair_within=0.0)
    assert main(["filter", str(missing), str(missing), str(missing), "--pair-within", "-1"]) == 1
    assert "error: --pair-within must be a distance above 0" in capsys.readouterr().err
