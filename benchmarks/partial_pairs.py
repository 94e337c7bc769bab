"""A few residues of each side (issue 55, TI-RANDOM-25): does keeping only the solutions in
which some given receptor residue and some given ligand residue touch each other rank a
near-native first more often than the 40 % filter?

For each kept scenario docking (``scenarios.py run --keep``: ``ROOT/<scenario>/<name>/dock``,
training complexes only) this rebuilds the docking's own ranking with the public stage
functions (by score, the 40 % filter as ``dock`` judges, the docking's recorded method over
what is kept; its first model checked against the docking's) and, for ``k`` = 1 and 2, the
variant that keeps the solutions with a positive score and at least ``k`` given
receptor–ligand residue pairs within :data:`WITHIN` Å of each other, where any has (else the
40 % filter's), ranked the same way. It prints top 1 / 5 / 10 of each over the two-sided
dockings that are not one pair. Each docking's first acceptable ranks are cached in
``<pool>/pairs.json``.

Usage:
    python benchmarks/partial_pairs.py /work/runs/r25pairs [--scenario TI-RANDOM-25] \
        [--complexes ...]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from partial_pair import rebuild
from partial_strict import judge_each, kept_pools, tops
from sparkledock.analysis.models import complex_coordinates
from sparkledock.engine.context import setup_restraints

#: A given pair is in contact within this distance (Å; one pair's, ``PAIR_WITHIN_A``).
WITHIN = 8.0
#: The least number of given pairs in contact tried.
COUNTS = (1, 2)


def close_pairs(setup, restraints, ranking) -> np.ndarray | None:
    """Per ranked solution, how many given receptor–ligand residue pairs have an atom pair
    within :data:`WITHIN` Å; None unless both sides are given and it is not one pair."""
    sides = [
        sorted(set(s.active) | set(s.passive)) for s in (restraints.receptor, restraints.ligand)
    ]
    if not all(sides) or [len(s) for s in sides] == [1, 1]:
        return None
    rec_ids, lig_ids = setup.receptor.atoms.residue_ids(), setup.ligand.atoms.residue_ids()
    rec = np.isin(rec_ids, sides[0])
    lig = np.isin(lig_ids, sides[1])
    rec_of, lig_of = rec_ids[rec], lig_ids[lig]
    poses = np.array([r.pose for r in ranking]).reshape(len(ranking), setup.layout.size)
    counts = np.zeros(len(poses), dtype=np.int64)
    n_rec = int(rec.sum())
    for first in range(0, len(poses), 64):
        xyz = complex_coordinates(setup, poses[first : first + 64], np.concatenate([rec, lig]))
        a, b = xyz[:, :n_rec], xyz[:, n_rec:]
        gaps = np.sqrt(((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(axis=-1))
        for r in sides[0]:
            for l_ in sides[1]:
                rows, cols = rec_of == r, lig_of == l_
                if rows.any() and cols.any():
                    near = gaps[:, rows][:, :, cols].min(axis=(1, 2)) <= WITHIN
                    counts[first : first + len(xyz)] += near
    return counts


def judge(pool: Path) -> dict:
    """The docking's own ranking and the variants, each one's first acceptable rank."""
    cache = pool / "pairs.json"
    if cache.is_file():
        return json.loads(cache.read_text())
    run = rebuild(pool)
    counts = close_pairs(run.setup, setup_restraints(run.setup), run.by_score)
    out = {"few": counts is not None, "kept": len(run.kept), "today": run.first(run.today)}
    for k in COUNTS:
        close = [] if counts is None else [
            r for r, c in zip(run.by_score, counts, strict=True) if c >= k and r.score > 0.0
        ]  # fmt: skip
        out[f"close_{k}"] = len(close)
        out[f"pairs_{k}"] = run.first(run.ranked(close))
    cache.write_text(json.dumps(out) + "\n")
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("roots", type=Path, nargs="+")
    p.add_argument("--scenario", default="TI-RANDOM-25")
    p.add_argument("--complexes", nargs="*", help="only these")
    args = p.parse_args(argv)

    def line(name: str, r: dict) -> str:
        close = ", ".join(f"{k}: {r[f'close_{k}']}" for k in COUNTS)
        firsts = ", ".join(f"{k}: {r[f'pairs_{k}']}" for k in COUNTS)
        return (f"{name}: kept {r['kept']}, with k pairs in contact ({close}); first "
                f"acceptable today {r['today']}, k pairs ({firsts})")  # fmt: skip

    results = judge_each(kept_pools(args.roots, args.scenario, args.complexes), judge, line)
    chosen = [r for r in results.values() if r["few"]]
    print(f"\n{len(chosen)} two-sided {args.scenario} dockings (not one pair)\n")
    print("| ranking | top 1 / 5 / 10 |\n|---|---|")
    print(f"| today (40 % filter, the docking's method) | {tops([r['today'] for r in chosen])} |")
    for k in COUNTS:
        hits = tops([r[f"pairs_{k}"] for r in chosen])
        print(f"| at least {k} given pair(s) within {WITHIN:g} Å | {hits} |")


if __name__ == "__main__":
    main()
