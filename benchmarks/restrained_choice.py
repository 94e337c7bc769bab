"""Choose the restrained protocol's swarm spacing and ranking from recorded pools.

Reads the pools ``restrained_pools.py`` wrote (one folder per complex) and, without docking
again, scores each candidate choice by how many complexes have an acceptable model (CAPRI:
fnat >= 0.1 and (LRMSD <= 10 Å or iRMSD <= 4 Å)) in the top 1 / 5 / 10, and in the pool:

* **spacing**: a pool docked at a small spacing is cut to the swarms that a greedy
  farthest-point covering of its swarm centres at a larger spacing keeps
  (:func:`sparkledock.preparation.swarms.covering`; a proxy for docking at that spacing: the same
  covering rule, applied to the centres instead of the surface points);
* **ranking**: every method of :data:`METHODS` on the kept representatives: LightDock's
  (by score after the 40 % restraint filter) and rank consensuses of the score with restraint
  satisfaction, the clash-tolerant ``dfire_soft``, MJ3h and the population.

Besides the counts: the mean DockQ of the top model and the mean reciprocal rank of the first
acceptable model (0 where none), finer signals on few complexes. Run it on the training pools
to choose, and on the twenty's pools to report what the frozen choice gives.

Usage:
    python benchmarks/restrained_choice.py pools/train_s6 [--spacings 6 8 10 12]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from sparkledock.analysis.ranks import ranks, tied_ranks
from sparkledock.preparation.swarms import covering

FILTER_FRACTION = 0.4
TOPS = (1, 5, 10)


def load(folder: Path, step: str | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Every complex's pool arrays, by complex name: of the final step, or of an earlier
    snapshot ``step`` (complexes without that snapshot are left out)."""
    pools = {}
    name = "pool.npz" if step is None else f"pool_{step}.npz"
    for path in sorted(folder.glob(f"*/{name}")):
        with np.load(path) as data:
            pools[path.parent.name] = {k: data[k] for k in data.files}
    return pools


def acceptable(pool: dict[str, np.ndarray]) -> np.ndarray:
    """CAPRI acceptable or better, per representative."""
    return (pool["fnat"] >= 0.1) & ((pool["lrmsd"] <= 10.0) | (pool["irmsd"] <= 4.0))


def subset(pool: dict[str, np.ndarray], spacing: float | None) -> dict[str, np.ndarray]:
    """The representatives of the swarms kept at ``spacing`` (None: all)."""
    if spacing is None:
        return pool
    swarms = covering(pool["centres"], spacing)
    keep = np.isin(pool["swarm"], swarms)
    return {k: (v[keep] if k != "centres" else v[swarms]) for k, v in pool.items()}


def _consensus(pool: dict[str, np.ndarray], weights: dict[str, float]) -> np.ndarray:
    """A rank consensus (larger key first): minus the weighted sum of each feature's rank."""
    key = np.zeros(len(pool["score"]))
    for feature, weight in weights.items():
        values = pool[feature]
        if feature == "population":
            values = np.log1p(values)
        tied = feature.startswith("satisfaction") or feature in ("population", "cluster_size")
        key -= weight * (tied_ranks(values) if tied else ranks(values))
    return key


#: Candidate rankings: the features whose ranks are averaged (weights), all after the filter.
METHODS: dict[str, dict[str, float]] = {
    "dfire": {"score": 1.0},
    "raw_dfire": {"dfire": 1.0},
    "score+sat": {"score": 1.0, "satisfaction_all": 1.0},
    "score+sat/2": {"score": 1.0, "satisfaction_all": 0.5},
    "score+soft": {"score": 1.0, "dfire_soft": 1.0},
    "score+soft+mj3h": {"score": 1.0, "dfire_soft": 1.0, "mj3h": 1.0},
    "score+soft+sat": {"score": 1.0, "dfire_soft": 1.0, "satisfaction_all": 1.0},
    "score+soft+mj3h+sat": {"score": 1.0, "dfire_soft": 1.0, "mj3h": 1.0, "satisfaction_all": 1.0},
    "score+pop": {"score": 1.0, "population": 1.0},
    "score+soft+pop": {"score": 1.0, "dfire_soft": 1.0, "population": 1.0},
    "score+soft+sat+pop": {
        "score": 1.0,
        "dfire_soft": 1.0,
        "satisfaction_all": 1.0,
        "population": 1.0,
    },
    "soft+sat": {"dfire_soft": 1.0, "satisfaction_all": 1.0},
    "soft": {"dfire_soft": 1.0},
}


def order(pool: dict[str, np.ndarray], weights: dict[str, float]) -> np.ndarray:
    """Representatives best first: those passing the 40 % filter (positive score), by the
    consensus, ties by score; the rest only when none passes (as ``dock`` falls back)."""
    passed = (pool["satisfaction"] >= FILTER_FRACTION) & (pool["score"] > 0)
    index = np.flatnonzero(passed) if passed.any() else np.arange(len(pool["score"]))
    part = {k: v[index] for k, v in pool.items() if k != "centres"}
    key = _consensus(part, weights)
    return index[np.lexsort((np.arange(len(index)), -part["score"], -key))]


def successes(pools, method: str, spacing: float | None) -> dict:
    """Per top N, the complexes with an acceptable model there; and in the pool."""
    found = {n: [] for n in TOPS}
    in_pool, swarms, top1_dockq, reciprocal = [], [], [], []
    for name, full in pools.items():
        pool = subset(full, spacing)
        ok = acceptable(pool)
        swarms.append(len(pool["centres"]))
        if ok.any():
            in_pool.append(name)
        ranked = order(pool, METHODS[method])
        for n in TOPS:
            if ok[ranked[:n]].any():
                found[n].append(name)
        top1_dockq.append(float(pool["dockq"][ranked[0]]))
        hits = np.flatnonzero(ok[ranked])
        reciprocal.append(1.0 / (hits[0] + 1) if len(hits) else 0.0)
    return {
        "tops": found,
        "pool": in_pool,
        "median_swarms": float(np.median(swarms)),
        "mean_top1_dockq": float(np.mean(top1_dockq)),
        "mrr": float(np.mean(reciprocal)),
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path)
    p.add_argument("--spacings", type=float, nargs="*", default=[])
    p.add_argument("--methods", nargs="*", default=list(METHODS))
    p.add_argument(
        "--step",
        default=None,
        help="the pools of this snapshot (pool_<step>.npz: 50, or stop_0.01 for an early-stopping "
        "rule's; default: the last)",
    )
    p.add_argument("--json", type=Path, help="also write every cell here")
    p.add_argument(
        "--only-with",
        default=None,
        metavar="STEP",
        help="only the complexes that also have this snapshot's pool (to compare like with like)",
    )
    args = p.parse_args(argv)
    pools = load(args.pools, args.step)
    if args.only_with:
        pools = {
            k: v
            for k, v in pools.items()
            if (args.pools / k / f"pool_{args.only_with}.npz").is_file()
        }
    print(f"{len(pools)} complexes in {args.pools} (step {args.step or 'last'})")
    head = ["spacing", "median swarms", "method", "top 1", "top 5", "top 10", "pool"]
    print("| " + " | ".join([*head, "top-1 DockQ", "MRR"]) + " |")
    print("|---|---|---|---|---|---|---|---|---|")
    cells = []
    for spacing in [None, *args.spacings]:
        for method in args.methods:
            r = successes(pools, method, spacing)
            tops = [len(r["tops"][n]) for n in TOPS]
            cells.append({"spacing": spacing, "method": method, **r})
            print(
                f"| {spacing or 'as docked'} | {r['median_swarms']:.0f} | {method} | "
                + " | ".join(str(t) for t in tops)
                + f" | {len(r['pool'])} | {r['mean_top1_dockq']:.3f} | {r['mrr']:.3f} |",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(cells, indent=1) + "\n")


if __name__ == "__main__":
    main()
