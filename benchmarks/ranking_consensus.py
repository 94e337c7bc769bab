"""Rank-consensus rankings on the blind dockings of blind_accuracy.py, and what choosing one
of them on these complexes is worth on a new complex.

Per finished blind docking (``<out>/<mode>/<complex>/``), per cluster representative: its
DFIRE score, its re-scores by ``dfire_soft`` (DFIRE with side-chain clashes forgiven), TOBI,
PISA and MJ3h (the residue-level ones on the rigid-body part of each pose), and its DockQ
against the bound reference (cached in ``consensus.npz`` beside each docking). Every
combination of one to four of these five (``--functions`` adds LightDock's other scoring
functions, ``--size`` allows larger combinations) is a ranking: the mean of the representative's
ranks under each, equal weights, ties by score. Printed: success in the top 1 / 5 / 10 / 100
(DockQ >= 0.23) summed over the complexes for every combination, best top 10 first, with the
rank of each complex's first acceptable representative; then the leave-one-out choice: for
each complex, the combination with the most top-10 successes (then top 1, 5, 100) on the
*other* complexes, and that combination's success on the held-out one. sparkledock's blind
default (``soft_consensus``: DFIRE + dfire_soft + MJ3h) is the combination this picks
(benchmarks/notebook/performance.md).

Usage:
    python benchmarks/ranking_consensus.py [--out blind_accuracy] [--scoring-mode fast]
        [--functions dfire_soft tobi pisa mj3h sipper ...] [--size 4] [--complexes ...]
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np

from blind_accuracy import (
    ACCEPTABLE,
    EVAL_TOPS,
    final_glowworms,
    finished,
    inputs,
    loo_selection,
    rescored,
)
from sparkledock.analysis import ranking
from sparkledock.analysis.quality import pose_quality, quality_reference

FUNCTIONS = ("dfire_soft", "tobi", "pisa", "mj3h")
#: further re-scores ``--functions`` may add (LightDock's other scoring functions)
MORE = ("sipper", "dfire2", "vdw", "cpydock", "sd")


def features(
    folder: Path, out: Path, steps: int, functions: tuple[str, ...] = FUNCTIONS
) -> dict[str, np.ndarray]:
    """The representatives' scores and DockQ of one finished docking (cached)."""
    cache = out / "consensus.npz"
    f = dict(np.load(cache)) if cache.is_file() else {}
    missing = [name for name in functions if name not in f]
    if "dockq" in f and not missing:
        return f
    setup, poses, scores, rep = final_glowworms(out, steps)
    if "dockq" not in f:
        f["dfire"] = scores[rep]
        reference = quality_reference(setup, inputs(folder)["reference"])
        f["dockq"] = pose_quality(reference, setup, poses[rep])["dockq"]
    for function in missing:  # blind_accuracy --evaluate's cache, shared
        f[function] = rescored(out, setup, poses[rep], function)
    np.savez(cache, **f)
    return f


def hits(f: dict[str, np.ndarray], combo: tuple[str, ...]) -> tuple[np.ndarray, int | None]:
    """Success at each of EVAL_TOPS under the mean rank of ``combo``, and the rank (1-based)
    of the first acceptable representative (None without one)."""
    key = -sum(ranking.ranks(f[name]) for name in combo)
    order = np.lexsort((np.arange(len(key)), -f["dfire"], -key))
    good = f["dockq"][order] >= ACCEPTABLE
    first = np.flatnonzero(good)
    return np.array([good[:n].any() for n in EVAL_TOPS]), (
        int(first[0]) + 1 if len(first) else None
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("blind_accuracy"))
    parser.add_argument("--scoring-mode", default="fast")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument(
        "--functions",
        nargs="+",
        default=list(FUNCTIONS),
        choices=FUNCTIONS + MORE,
        help="the re-scores to combine with DFIRE (default: %(default)s)",
    )
    parser.add_argument("--size", type=int, default=4, help="most ranks averaged (4)")
    parser.add_argument("--complexes", nargs="+", help="only these (default: every finished)")
    args = parser.parse_args()
    functions = tuple(args.functions)
    data = {
        folder.name: features(folder, out, args.steps, functions)
        for folder, out in finished(args.out, args.scoring_mode)
        if not args.complexes or folder.name in args.complexes
    }
    names = ("dfire", *functions)
    combos = [c for k in range(1, args.size + 1) for c in itertools.combinations(names, k)]
    table = {(c, n): hits(f, c) for c in combos for n, f in data.items()}
    ceiling = sum(bool((f["dockq"] >= ACCEPTABLE).any()) for f in data.values())
    tops = " / ".join(map(str, EVAL_TOPS))
    print(f"{len(data)} blind dockings, an acceptable representative in {ceiling}")
    print(f"| ranks averaged | top {tops} | first acceptable (rank) |")
    print("|---|---|---|")

    def merit(combo: tuple[str, ...]) -> tuple[int, ...]:
        total = sum(table[combo, n][0] for n in data)
        return (total[2], total[0], total[1], total[3])

    for combo in sorted(combos, key=merit, reverse=True):
        total = sum(table[combo, n][0] for n in data)
        firsts = ", ".join(f"{n} {table[combo, n][1]}" for n in data if table[combo, n][1])
        print(f"| {' + '.join(combo)} | {' / '.join(map(str, total))} | {firsts} |")
    labels = {" + ".join(c): c for c in combos}
    per_complex = [
        {label: dict(zip(map(str, EVAL_TOPS), table[c, n][0].tolist(), strict=True))
         for label, c in labels.items()}
        for n in data
    ]  # fmt: skip
    total, chosen = loo_selection(per_complex, list(labels))
    picks = {c: chosen.count(c) for c in dict.fromkeys(chosen)}
    print()
    print(f"chosen without the complex (leave one out): {' / '.join(map(str, total))} of "
          f"{len(data)}; picks: " + ", ".join(f"{c} ({k})" for c, k in picks.items()))  # fmt: skip


if __name__ == "__main__":
    main()
