"""A few residues of each side (issue 55): does keeping only the solutions that satisfy every
given restraint residue rank a near-native first more often than the 40 % filter?

For each kept scenario docking (``scenarios.py run --keep``: ``ROOT/<scenario>/<name>/dock``,
training complexes only) this rebuilds the docking's own ranking with the package's stages
(the representatives by score, the 40 % filter, :func:`~sparkledock.analysis.ranking.
rerank_kept` by the docking's recorded method, as ``dock`` does) and the strict variant (the
representatives that satisfy every restraint residue, when any does, else the 40 % filter's,
ranked the same way, their features computed over what is kept), and prints top 1 / 5 / 10
of both for the dockings within the level "a few residues of each side" (both partners given,
at most :data:`FEW` residues on each, not one pair) and for all. Each docking's first
acceptable rank is cached in ``<pool>/strict.json``.

Usage:
    python benchmarks/partial_strict.py /work/runs/r25new [--scenario TI-RANDOM-25]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

from dock_accuracy import inputs
from sparkledock.analysis.evaluate import capri_class
from sparkledock.analysis.filter import filter_solutions
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.analysis.rank import Ranked, rank_glowworms, read_cluster_sizes
from sparkledock.analysis.ranking import rerank_kept
from sparkledock.docking.options import FILTER_FRACTION
from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.pack import ensure_unpacked
from sparkledock.io.setupdir import SetupDir

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
#: At most this many residues on each side: "a few residues of each side".
FEW = 6


def few_of_each_side(restraints) -> bool:
    """Both partners given, at most :data:`FEW` residues on each, not one pair."""
    sides = [
        len(set(side.active) | set(side.passive))
        for side in (restraints.receptor, restraints.ligand)
    ]
    return min(sides) >= 1 and max(sides) <= FEW and sides != [1, 1]


def first_acceptable(setup, reference, ranking: list[Ranked]) -> int | None:
    if not ranking:
        return None
    poses = np.array([r.pose for r in ranking]).reshape(len(ranking), setup.layout.size)
    q = pose_quality(reference, setup, poses)
    ok = [
        capri_class(f, i, r) != "incorrect"
        for f, i, r in zip(q["fnat"], q["irmsd"], q["lrmsd"], strict=True)
    ]
    hits = np.flatnonzero(ok)
    return int(hits[0]) + 1 if len(hits) else None


def judge(pool: Path) -> dict:
    """The docking's own ranking and the strict one, each one's first acceptable rank."""
    cache = pool / "strict.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    dock = pool / "dock"
    record = json.loads((dock / "run.json").read_text())
    steps, method = int(record["options"]["steps"]), record["options"]["rank_method"]
    folder = SetupDir(dock / "setup")
    ensure_unpacked(folder.root)
    setup = load_setup(folder.root)
    restraints = setup_restraints(setup)
    chosen, sizes = {}, {}
    for swarm in range(setup.n_swarms):
        data = read_gso_output(folder.gso(swarm, steps))
        found = read_cluster_sizes(folder.cluster(swarm))
        sizes.update({(swarm, g): n for g, n in found.items()})
        chosen[swarm] = (data, list(found))
    by_score = rank_glowworms(chosen)
    judged = filter_solutions(setup, by_score, restraints, FILTER_FRACTION)
    kept = judged.kept or by_score
    whole = [
        r
        for r, f, keep in zip(judged.ranking, judged.fractions, judged.keeps, strict=True)
        if keep and f >= 1.0 - 1e-9
    ]
    strict = whole or kept

    def ranked(solutions):
        return rerank_kept(setup, chosen, solutions, method, False, restraints, cluster_sizes=sizes)

    today, variant = ranked(kept), ranked(strict)
    with open(dock / "ranking.csv", newline="") as handle:
        shipped = next(csv.DictReader(handle))  # (the docking's own first: the same)
    assert (today[0].swarm, today[0].glowworm) == (int(shipped["swarm"]), int(shipped["glowworm"]))
    reference = quality_reference(setup, inputs(TRAIN / pool.name.split(".run")[0])["reference"])
    out = {
        "few": few_of_each_side(restraints),
        "kept": len(kept),
        "strict": len(whole),
        "today": first_acceptable(setup, reference, today),
        "variant": first_acceptable(setup, reference, variant),
    }
    cache.write_text(json.dumps(out) + "\n")
    return out


def tops(hits: list[int | None]) -> str:
    return " / ".join(str(sum(h is not None and h <= n for h in hits)) for n in (1, 5, 10))


def kept_pools(
    roots: list[Path], scenario: str, complexes: list[str] | None = None, exclude: tuple = ()
) -> list[Path]:
    """The kept dockings of ``scenario`` under ``roots`` (``<root>/<scenario>/<name>/dock``),
    by name; only ``complexes`` when given, never ``exclude``."""
    pools = sorted(d.parent for r in roots for d in (r / scenario).glob("*/dock"))
    return [q for q in pools if q.name not in exclude and (not complexes or q.name in complexes)]


def judge_each(pools: list[Path], judge, line) -> dict[str, dict]:
    """Each pool's ``judge(pool)`` by name, a line per pool (``line(name, result)``) as it
    comes; a pool that fails is reported and left out (a research script goes on)."""
    results = {}
    for pool in pools:
        try:
            results[pool.name] = judge(pool)
        except Exception as error:
            print(f"{pool}: {error}", file=sys.stderr)
            continue
        print(line(pool.name, results[pool.name]), flush=True)
    return results


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("roots", type=Path, nargs="+")
    p.add_argument("--scenario", default="TI-RANDOM-25")
    args = p.parse_args(argv)

    def line(name: str, r: dict) -> str:
        said = f"kept {r['kept']}, all satisfied {r['strict']}"
        firsts = f"first acceptable today {r['today']}, strict {r['variant']}"
        return f"{name}: few {r['few']}, {said}, {firsts}"

    results = judge_each(kept_pools(args.roots, args.scenario), judge, line)
    print(f"\n| {args.scenario} | dockings | today | all restraints satisfied |")
    print("|---|---|---|---|")
    for label, chosen in (
        ("a few residues of each side", [r for r in results.values() if r["few"]]),
        ("all", list(results.values())),
    ):
        cells = [tops([r[k] for r in chosen]) for k in ("today", "variant")]
        print(f"| {label} | {len(chosen)} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
