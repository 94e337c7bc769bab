"""Each feature of the learned blind ranking alone, on training pools (issue 36): how well it
ranks the acceptable representatives first, in either direction.

Per feature of :data:`blind_learned.FEATURE_SETS` (all sets) and per direction (+1: larger
first; -1: smaller first): top 1 / 5 / 10 / 100 successes over the pools, the mean
reciprocal rank of the first acceptable representative, and the mean percentile of the
acceptable ones (0: the top), next to ``dfire`` and ``soft_consensus``. Reads the pools as
``blind_learned.py`` does (archives or pool folders); training pools only: the twenty are
for the one evaluation.

Usage:
    python benchmarks/blind_features.py benchmarks/pools/blind_train
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from blind_learned import FEATURE_SETS, baseline, first_hit, firsts, load, summary
from sparkledock.analysis.ranks import average_ranks


def mean_percentile(pools: dict, name: str, sign: int) -> float:
    """The acceptable representatives' mean percentile by ``name`` (0: first), over pools."""
    got = []
    for pool in pools.values():
        ok = pool["label"] >= 1
        if ok.any():
            first = 1.0 - average_ranks(sign * np.asarray(pool[name], float)) / len(ok)
            got.extend(first[ok].tolist())
    return float(np.mean(got)) if got else float("nan")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path)
    args = p.parse_args(argv)
    pools = load(args.pools)
    hit = sum(1 for pool in pools.values() if first_hit(pool["label"] >= 1))
    print(f"\n{len(pools)} pools, {hit} with an acceptable representative\n")
    print("| feature | sign | top 1 / 5 / 10 / 100 | MRR | mean percentile of acceptable |")
    print("|---|---|---|---|---|")
    for method in ("dfire", "soft_consensus"):
        ranks = {n: baseline(pool, method) for n, pool in pools.items()}
        print(f"| {method} | | {summary(ranks)} | |")
    names = dict.fromkeys(name for spec in FEATURE_SETS.values() for name, _ in spec)
    for name in names:
        for sign in (1, -1):
            ranks = {
                n: firsts(pool, sign * np.asarray(pool[name], float)) for n, pool in pools.items()
            }
            pct = mean_percentile(pools, name, sign)
            print(f"| {name} | {sign:+d} | {summary(ranks)} | {pct:.3f} |")


if __name__ == "__main__":
    main()
