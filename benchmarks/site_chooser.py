"""Can the site stage's sites be chosen better? Two measures (issue 36).

The site stage (``dock --redock-sites``) docks the first ten distinct sites of the blind
learned order again under restraints; it finds an acceptable model only where a site near
the true interface is among them (``site_recall.py``). This asks what choosing differently
could give:

- ``--ceiling``: where the near sites stand among the shipped order's leaders (15 Å apart,
  looked for among the first 600, as the stage picks them), per complex, and how many
  complexes hold one among the first 10 / 20 / 30 / 50: the most that more sites could give
  under any order of their models. No model is fitted; any pool set (the twenty too).
- default: a site-level ranker. Each of the first ``--leaders`` leaders of a held-out blind
  order (out-of-fold keys: the shipped recipe fitted without the complex) gets features of
  its own and of its neighbourhood (representatives within 15 and 30 Å: how many, how well
  the blind order ranks them, their scoring functions' ranks, interface propensity), and a
  LightGBM ranker learns which leaders are near (fnat >= 0.1, iRMSD <= 8 Å), cross-validated
  by complex over the training pools; counted as complexes with a near site among the first
  10 / 20 re-ordered leaders, against the blind order's.

Usage:
    python benchmarks/site_chooser.py [--pools /work/runs/train_blind] \
        [--archives benchmarks/pools/blind_train] [--repeats 3] [--leaders 60]
    python benchmarks/site_chooser.py --ceiling --pools /work/runs/twenty_blind \
        --archives benchmarks/pools/blind_twenty
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import blind_learned as bl
import site_recall as sr
from site_redock import sites
from sparkledock.analysis import learned

#: How far apart the sites are (Å landmark RMSD; the stage's ``SITE_RADIUS_A``).
RADIUS = 15.0
#: The scoring functions' and counts' ranks read per leader and over its neighbourhood.
RANKED = (
    "dfire", "dfire_soft", "mj3h", "pisa", "tobi", "sipper", "vdw", "dna", "formal_coulomb",
    "shape_complementarity", "cluster_size", "population", "contact_pairs", "clash_pairs",
    "interface_pairs",
)  # fmt: skip
PROPENSITY = ("propensity", "propensity_receptor", "propensity_ligand")
#: The site rankers tried (LightGBM lambdarank; every one is shown, none is chosen here).
GRID = [
    {"n_estimators": n, "num_leaves": leaves, "learning_rate": 0.05, "min_child_samples": m}
    for n in (100, 300) for leaves in (7, 15) for m in (20, 50)
]  # fmt: skip


def site_table(pool: dict, key: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` leaders' features (one row each, in the blind order) and labels
    (near or not)."""
    n = len(key)
    ranked = np.lexsort((np.arange(n), -key))
    chosen = sites(pool, count, RADIUS, key)
    marks = pool["marks"]
    per = marks.shape[1] // 3
    place = np.empty(n, dtype=np.int64)
    place[ranked] = np.arange(n)
    rows = []
    for j, s in enumerate(chosen):
        rmsd = np.sqrt(((marks - marks[s]) ** 2).sum(axis=1) / per)
        near, wide = np.flatnonzero(rmsd <= RADIUS), np.flatnonzero(rmsd <= 2 * RADIUS)
        best = np.sort(key[near])[::-1]
        row = [
            j, key[s], place[s] / n, len(near), len(wide), (place[near] < sr.HEAD).sum(),
            (place[near] < 100).sum(), best[:3].mean(), best[:10].mean(), key[s] - key[ranked[0]],
        ]  # fmt: skip
        for name in RANKED:
            v = pool[name] / n
            row += [v[s], v[near].max(), v[near].mean()]
        for name in PROPENSITY:
            v = pool[name]
            row += [v[s], v[near].max(), v[near].mean()]
        rows.append(row)
    return np.array(rows, dtype=float), pool["near"][chosen].astype(int)


def held_out_keys(pools: dict, names: list[str], shuffle: int) -> dict[str, np.ndarray]:
    """Every pool's blind key from the shipped recipe fitted without it (5 folds)."""
    spec = learned.BLIND
    keys = {}
    for held in bl.folds(names, 5, shuffle):
        train = [n for n in names if n not in held]
        model = bl.fit(pools, train, sr.PARAMS, 1, spec)[0]
        for n in held:
            keys[n] = model.predict(learned.feature_matrix(pools[n], spec))
    return keys


def ceiling(pools: dict) -> None:
    """The near sites' places among the shipped order's leaders, per complex."""
    depths = (10, 20, 30, 50)
    counts = dict.fromkeys(depths, 0)
    print("| complex | near representatives | near sites among the first 50 leaders |")
    print("|---|---|---|")
    for name, pool in pools.items():
        chosen = sites(pool, max(depths), RADIUS)
        places = (np.flatnonzero(pool["near"][chosen]) + 1).tolist()
        print(f"| {name} | {int(pool['near'].sum())} | {places or '-'} |")
        for d in depths:
            counts[d] += any(p <= d for p in places)
    print("\ncomplexes with a near site among the first N leaders: "
          + ", ".join(f"{d}: {c}" for d, c in counts.items()))  # fmt: skip


def cross_validate(pools: dict, repeats: int, count: int) -> None:
    """Site rankers against the blind order, held out by complex."""
    import lightgbm as lgb

    names = sorted(pools)
    rows: dict[str, list] = {"blind order": []}
    for shuffle in range(repeats):
        keys = held_out_keys(pools, names, shuffle)
        tables = {n: site_table(pools[n], keys[n], count) for n in names}
        rows["blind order"].append([sum(tables[n][1][:s].any() for n in names) for s in (10, 20)])
        for params in GRID:
            got = np.zeros(2)
            for held in bl.folds(names, 5, shuffle + 1):
                train = [n for n in names if n not in held]
                model = lgb.LGBMRanker(
                    objective="lambdarank", **params, random_state=0, deterministic=True,
                    force_row_wise=True, verbose=-1, n_jobs=1, label_gain=[0, 1],
                )  # fmt: skip
                model.fit(
                    np.concatenate([tables[n][0] for n in train]),
                    np.concatenate([tables[n][1] for n in train]),
                    group=[len(tables[n][1]) for n in train],
                )
                for n in held:
                    score = model.predict(tables[n][0])
                    near = tables[n][1][np.lexsort((np.arange(len(score)), -score))]
                    got += [near[:10].any(), near[:20].any()]
            label = ", ".join(f"{k} {v}" for k, v in params.items())
            rows.setdefault(label, []).append(got.tolist())
        within = sum(tables[n][1].any() for n in names)
        print(f"shuffle {shuffle}: {within} complexes with a near site among {count} leaders",
              flush=True)  # fmt: skip
    print(f"\n{len(names)} training pools, {repeats} shufflings (means)\n")
    print("| order of the leaders | near in 10 sites | near in 20 sites |\n|---|---|---|")
    for label, got in rows.items():
        mean = np.mean(got, axis=0)
        print(f"| {label} | {mean[0]:.1f} | {mean[1]:.1f} |")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pools", type=Path, default=Path("/work/runs/train_blind"))
    p.add_argument("--archives", type=Path, default=bl.HERE / "pools" / "blind_train")
    p.add_argument("--ceiling", action="store_true", help="the shipped order's near sites")
    p.add_argument("--repeats", type=int, default=3, help="shufflings of the folds")
    p.add_argument("--leaders", type=int, default=60, help="leaders a site ranker re-orders")
    args = p.parse_args(argv)
    pools = sr.load(args.pools, args.archives)
    if args.ceiling:
        ceiling(pools)
    else:
        cross_validate(pools, args.repeats, args.leaders)


if __name__ == "__main__":
    main()
