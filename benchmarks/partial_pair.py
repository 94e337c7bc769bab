"""One pair (issue 55, TI-SINGLE): does keeping only the solutions in which the two given
residues touch *each other* rank a near-native first more often than the 40 % filter?

For each kept scenario docking (``scenarios.py run --keep``: ``ROOT/<scenario>/<name>/dock``,
training complexes only) this rebuilds the docking's own ranking with the public stage
functions (:func:`sparkledock.rank` by score, :func:`sparkledock.filter_ranking` as ``dock``
judges, :func:`sparkledock.rank` of what is kept by the docking's recorded method) and, for
each contact distance ``d``, the pair variant: the representatives whose receptor residue and
ligand residue have an atom pair within ``d`` Å, when any has (else the 40 % filter's),
ranked the same way, and the same with a positive score too (as the filter keeps). It prints
top 1 / 5 / 10 of each over the dockings of one pair (exactly one residue on each side).
Each docking's first acceptable ranks are cached in ``<pool>/pair.json``.

Usage:
    python benchmarks/partial_pair.py /work/runs/singles [--scenario TI-SINGLE] \
        [--complexes ...] [--exclude ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

import numpy as np

import sparkledock
from dock_accuracy import inputs
from partial_strict import first_acceptable, tops
from sparkledock.analysis.models import complex_coordinates
from sparkledock.analysis.quality import quality_reference
from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
#: The contact distances tried (Å), the filter's cutoff first.
DISTANCES = (5.0, 6.5, 8.0)


def pair_distances(setup, restraints, ranking) -> np.ndarray | None:
    """Per ranked solution, the closest atom pair (Å) between the one receptor residue and the
    one ligand residue given; None when the file is not one pair."""
    sides = [set(s.active) | set(s.passive) for s in (restraints.receptor, restraints.ligand)]
    if [len(s) for s in sides] != [1, 1]:
        return None
    rec = np.isin(setup.receptor.atoms.residue_ids(), list(sides[0]))
    lig = np.isin(setup.ligand.atoms.residue_ids(), list(sides[1]))
    if not rec.any() or not lig.any():
        raise ValueError(f"a pair residue is not in the setup: {sides}")
    poses = np.array([r.pose for r in ranking]).reshape(len(ranking), setup.layout.size)
    xyz = complex_coordinates(setup, poses, np.concatenate([rec, lig]))
    a, b = xyz[:, : rec.sum()], xyz[:, rec.sum() :]
    return np.sqrt(((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(-1)).min(axis=(1, 2))


def judge(pool: Path) -> dict:
    """The docking's own ranking and the pair variants, each one's first acceptable rank."""
    cache = pool / "pair.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    dock = pool / "dock"
    record = json.loads((dock / "run.json").read_text())
    steps, method = int(record["options"]["steps"]), record["options"]["rank_method"]
    root = dock / "setup"
    by_score = sparkledock.rank(root, steps)
    judged = sparkledock.filter_ranking(root, by_score, positive=False)
    kept = judged.kept or by_score
    today = sparkledock.rank(root, steps, method=method, solutions=kept)
    with open(dock / "ranking.csv", newline="") as handle:
        shipped = next(csv.DictReader(handle))  # (the docking's own first: the same)
    assert (today[0].swarm, today[0].glowworm) == (int(shipped["swarm"]), int(shipped["glowworm"]))
    setup = load_setup(root)
    distance = pair_distances(setup, setup_restraints(setup), by_score)
    reference = quality_reference(setup, inputs(TRAIN / pool.name)["reference"])
    out = {"pair": distance is not None, "kept": len(kept),
           "today": first_acceptable(setup, reference, today)}  # fmt: skip
    for d in DISTANCES:
        close = [] if distance is None else [
            r for r, x in zip(by_score, distance, strict=True) if x <= d
        ]  # fmt: skip
        out[f"near_{d}"] = len(close)
        variant = sparkledock.rank(root, steps, method=method, solutions=close) if close else today
        out[f"pair_{d}"] = first_acceptable(setup, reference, variant)
        close = [r for r in close if r.score > 0.0]  # (as the filter keeps: a positive score)
        variant = sparkledock.rank(root, steps, method=method, solutions=close) if close else today
        out[f"positive_{d}"] = first_acceptable(setup, reference, variant)
    cache.write_text(json.dumps(out) + "\n")
    return out


def by_method(pool: Path, method: str, d: float = 8.0) -> int | None:
    """The pair-kept solutions (within ``d`` Å, a positive score; else the 40 % filter's)
    ranked by ``method``: the first acceptable rank (cached in ``<pool>/pair_<method>.json``)."""
    cache = pool / f"pair_{method}_{d}.json"
    if cache.is_file():
        return json.loads(cache.read_text())["first"]
    dock = pool / "dock"
    steps = int(json.loads((dock / "run.json").read_text())["options"]["steps"])
    root = dock / "setup"
    by_score = sparkledock.rank(root, steps)
    kept = sparkledock.filter_ranking(root, by_score, positive=False, pair_within=d).kept
    ranked = sparkledock.rank(root, steps, method=method, solutions=kept or by_score)
    setup = load_setup(root)
    reference = quality_reference(setup, inputs(TRAIN / pool.name)["reference"])
    first = first_acceptable(setup, reference, ranked)
    cache.write_text(json.dumps({"first": first}) + "\n")
    return first


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("roots", type=Path, nargs="+")
    p.add_argument("--scenario", default="TI-SINGLE")
    p.add_argument("--complexes", nargs="*", help="only these")
    p.add_argument("--exclude", nargs="*", default=[], help="not these")
    p.add_argument("--methods", nargs="*", default=[],
                   help="also rank the pair-kept pool (8 Å) by these methods")  # fmt: skip
    args = p.parse_args(argv)
    pools = sorted(d.parent for r in args.roots for d in (r / args.scenario).glob("*/dock"))
    pools = [q for q in pools if q.name not in args.exclude]
    if args.complexes:
        pools = [q for q in pools if q.name in args.complexes]
    results = {}
    for pool in pools:
        try:
            results[pool.name] = judge(pool)
        except Exception as error:  # (a research script: report, go on)
            print(f"{pool}: {error}", file=sys.stderr)
            continue
        r = results[pool.name]
        near = ", ".join(f"{d}: {r[f'near_{d}']}" for d in DISTANCES)
        firsts = ", ".join(f"{d}: {r[f'pair_{d}']}" for d in DISTANCES)
        print(f"{pool.name}: kept {r['kept']}, in contact ({near}); first acceptable today "
              f"{r['today']}, pair ({firsts})", flush=True)  # fmt: skip
    chosen = [r for r in results.values() if r["pair"]]
    print(f"\n{len(chosen)} {args.scenario} dockings of one pair\n")
    print("| ranking | top 1 / 5 / 10 |\n|---|---|")
    print(f"| today (40 % filter, the docking's method) | {tops([r['today'] for r in chosen])} |")
    for d in DISTANCES:
        print(f"| the pair within {d} Å | {tops([r[f'pair_{d}'] for r in chosen])} |")
    for d in DISTANCES:
        hits = tops([r[f"positive_{d}"] for r in chosen])
        print(f"| the pair within {d} Å, a positive score | {hits} |")
    pairs = [q for q in pools if results.get(q.name, {}).get("pair")]
    for method in args.methods:
        hits = tops([by_method(q, method) for q in pairs])
        print(f"| the pair within 8.0 Å (the package's filter), by {method} | {hits} |")


if __name__ == "__main__":
    main()
