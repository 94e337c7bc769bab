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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import sparkledock
from dock_accuracy import inputs
from partial_strict import first_acceptable, judge_each, kept_pools, tops
from sparkledock.analysis.filter import pair_distances
from sparkledock.analysis.quality import quality_reference
from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup
from sparkledock.molecule.restraints import knowledge_of

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
#: The contact distances tried (Å), the filter's cutoff first.
DISTANCES = (5.0, 6.5, 8.0)


@dataclass(frozen=True)
class Rebuilt:
    """A kept docking's own ranking rebuilt with the public stage functions: its setup folder,
    steps and method, its representatives by score, what the 40 % filter kept (all of them
    where it keeps none), their ranking by the method (the docking's own: its first model
    checked), the setup and the bound reference."""

    root: Path
    steps: int
    method: str
    by_score: list
    kept: list
    today: list
    setup: Any
    reference: Any

    def ranked(self, solutions: list) -> list:
        """``solutions`` ranked as the docking ranks what its filter keeps (none: today's)."""
        if not solutions:
            return self.today
        return sparkledock.rank(self.root, self.steps, method=self.method, solutions=solutions)

    def first(self, ranking: list) -> int | None:
        return first_acceptable(self.setup, self.reference, ranking)


def rebuild(pool: Path) -> Rebuilt:
    """The kept docking ``pool/dock`` ranked again as ``dock`` ranked it."""
    dock = pool / "dock"
    record = json.loads((dock / "run.json").read_text())
    steps, method = int(record["options"]["steps"]), record["options"]["rank_method"]
    root = dock / "setup"
    by_score = sparkledock.rank(root, steps)
    kept = sparkledock.filter_ranking(root, by_score, positive=False).kept or by_score
    today = sparkledock.rank(root, steps, method=method, solutions=kept)
    with open(dock / "ranking.csv", newline="") as handle:
        shipped = next(csv.DictReader(handle))  # (the docking's own first: the same)
    assert (today[0].swarm, today[0].glowworm) == (int(shipped["swarm"]), int(shipped["glowworm"]))
    setup = load_setup(root)
    reference = quality_reference(setup, inputs(TRAIN / pool.name)["reference"])
    return Rebuilt(root, steps, method, by_score, kept, today, setup, reference)


def judge(pool: Path) -> dict:
    """The docking's own ranking and the pair variants, each one's first acceptable rank."""
    cache = pool / "pair.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    run = rebuild(pool)
    restraints = setup_restraints(run.setup)
    one_pair = knowledge_of(restraints).level == "one pair"
    poses = np.array([r.pose for r in run.by_score])
    distance = pair_distances(run.setup, poses, restraints) if one_pair else None
    out = {"pair": one_pair, "kept": len(run.kept), "today": run.first(run.today)}
    for d in DISTANCES:
        close = [] if distance is None else [
            r for r, x in zip(run.by_score, distance, strict=True) if x <= d
        ]  # fmt: skip
        out[f"near_{d}"] = len(close)
        out[f"pair_{d}"] = run.first(run.ranked(close))
        close = [r for r in close if r.score > 0.0]  # (as the filter keeps: a positive score)
        out[f"positive_{d}"] = run.first(run.ranked(close))
    cache.write_text(json.dumps(out) + "\n")
    return out


def by_method(pool: Path, method: str, d: float = 8.0) -> int | None:
    """The pair-kept solutions (within ``d`` Å, a positive score; else the 40 % filter's)
    ranked by ``method``: the first acceptable rank (cached in ``<pool>/pair_<method>.json``)."""
    cache = pool / f"pair_{method}_{d}.json"
    if cache.is_file():
        return json.loads(cache.read_text())["first"]
    run = rebuild(pool)
    kept = sparkledock.filter_ranking(run.root, run.by_score, positive=False, pair_within=d).kept
    ranked = sparkledock.rank(run.root, run.steps, method=method, solutions=kept or run.by_score)
    first = run.first(ranked)
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
    pools = kept_pools(args.roots, args.scenario, args.complexes, tuple(args.exclude))

    def line(name: str, r: dict) -> str:
        near = ", ".join(f"{d}: {r[f'near_{d}']}" for d in DISTANCES)
        firsts = ", ".join(f"{d}: {r[f'pair_{d}']}" for d in DISTANCES)
        return (f"{name}: kept {r['kept']}, in contact ({near}); first acceptable today "
                f"{r['today']}, pair ({firsts})")  # fmt: skip

    results = judge_each(pools, judge, line)
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
