"""Would a ranking learned on training complexes beat the restrained consensus at the top?

Reads the restrained pools ``restrained_pools.py`` wrote (training complexes only) and compares,
under leave-one-complex-out cross-validation, the shipped ranking (the 40 % filter, then the
mean of the ranks by score and by restraint satisfaction) with a LightGBM ranker (lambdarank)
trained on the other complexes' representatives. Features are made comparable across
complexes by taking each one's percentile rank within its complex (the run's score, DFIRE
without restraint terms, dfire_soft, MJ3h, restraint satisfaction with and without passive
residues, cluster size and population); the label is the CAPRI class (0 incorrect, 1
acceptable, 2 medium, 3 high). A first look for issue 36, on restrained pools (issue 32's
top-1 lever); nothing here is shipped.

With ``--evaluate POOLS``, the ranker is trained once on every training complex (frozen) and
applied to other pools (the twenty's), next to the shipped ranking on the same pools.

Usage:
    python benchmarks/restrained_learned.py /work/runs/polish_train [--seeds 3]
    python benchmarks/restrained_learned.py /work/runs/polish_train \
        --evaluate /work/runs/twenty_pools
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from common import write_model
from restrained_choice import FILTER_FRACTION, METHODS, acceptable, load, order

FEATURES = (
    "score", "dfire", "dfire_soft", "mj3h", "satisfaction", "satisfaction_all", "cluster_size",
    "population",
)  # fmt: skip
TOPS = (1, 5, 10)


def capri_label(pool: dict[str, np.ndarray]) -> np.ndarray:
    """0 incorrect, 1 acceptable, 2 medium, 3 high (CAPRI's thresholds)."""
    f, i, lr = pool["fnat"], pool["irmsd"], pool["lrmsd"]
    label = np.zeros(len(f), dtype=int)
    label[(f >= 0.1) & ((lr <= 10) | (i <= 4))] = 1
    label[(f >= 0.3) & ((lr <= 5) | (i <= 2))] = 2
    label[(f >= 0.5) & ((lr <= 1) | (i <= 1))] = 3
    return label


def kept(pool: dict[str, np.ndarray]) -> np.ndarray:
    """The representatives the filter keeps (all, when none passes), as ``dock`` does."""
    passed = (pool["satisfaction"] >= FILTER_FRACTION) & (pool["score"] > 0)
    return np.flatnonzero(passed) if passed.any() else np.arange(len(pool["score"]))


def features(pool: dict[str, np.ndarray], index: np.ndarray) -> np.ndarray:
    """(N, F) percentile ranks within the complex (larger is better for every feature); with
    ``--extended``, the blind ranking's further features after them (:data:`EXTENDED`)."""
    from sparkledock.analysis.learned import feature_matrix

    spec = tuple((name, "rank") for name in FEATURES) + (EXTENDED if USE_EXTENDED else ())
    return feature_matrix({name: pool[name][index] for name, _ in spec}, spec)


#: ``--extended``: the blind ranking's features beyond these eight (issue 36), computed from
#: each docking's kept setup (``<pool>/dock/setup``) and cached beside it (``features.npz``).
EXTENDED = (
    ("tobi", "rank"), ("pisa", "rank"), ("vdw", "rank"), ("sipper", "rank"),
    ("interface_receptor", "raw"), ("interface_ligand", "raw"), ("interface_pairs", "raw"),
    ("rank_in_swarm", "raw"), ("swarm_representatives", "rank"),
)  # fmt: skip
USE_EXTENDED = False


def with_extended(folder: Path, pools: dict, where=None) -> dict:
    """``pools`` with each one's extended features (computed once, then read from the cache):
    pool ``key``'s docking is ``where(key)/dock`` (default ``folder/key``), its cache
    ``where(key)/features.npz``."""
    from sparkledock.analysis.features import solution_features
    from sparkledock.io.lightdock import load_setup

    for key, pool in pools.items():
        home = where(key) if where else folder / key
        cache = home / "features.npz"
        if not cache.is_file():
            setup = load_setup(home / "dock" / "setup")
            known = {k: pool[k] for k in ("dfire_soft", "mj3h")}
            extra = solution_features(setup, pool["pose"], pool["swarm"], pool["score"], known,
                                      names=tuple(k for k, _ in EXTENDED))  # fmt: skip
            np.savez(cache, **{k: extra[k] for k, _ in EXTENDED})
        with np.load(cache) as data:
            pool.update({k: data[k] for k in data.files})
    return pools


def first_hit(ok: np.ndarray) -> int | None:
    hits = np.flatnonzero(ok)
    return int(hits[0]) + 1 if len(hits) else None


def fit(data: dict, names: list[str], seeds: int) -> list:
    """LightGBM rankers (one per seed) on ``names``' representatives."""
    import lightgbm as lgb

    x = np.concatenate([data[n][0] for n in names])
    y = np.concatenate([data[n][1] for n in names])
    groups = [len(data[n][1]) for n in names]
    models = []
    for seed in range(seeds):
        model = lgb.LGBMRanker(
            **PARAMS, random_state=seed, deterministic=True, force_row_wise=True, verbose=-1
        )
        model.fit(x, y, group=groups)
        models.append(model)
    return models


def compare(pool: dict[str, np.ndarray], entry: tuple, models: list) -> tuple:
    """First acceptable rank under the consensus (``restraints``), under the models' mean
    score and under the package's shipped model (``learned``: its trees read the same eight
    percentile ranks, in the same order)."""
    from sparkledock.analysis.learned import shipped_model

    x, _, index = entry
    ok_pool = acceptable(pool)
    ranked = order(pool, METHODS["score+sat"])
    hits = [first_hit(ok_pool[ranked])]
    for score in (sum(model.predict(x) for model in models), shipped_model()[0].predict(x)):
        hits.append(first_hit(ok_pool[index[np.lexsort((np.arange(len(score)), -score))]]))
    return tuple(hits)


#: LightGBM's parameters (chosen before any evaluation; nothing was tuned on the twenty).
PARAMS = {
    "n_estimators": 200, "learning_rate": 0.05, "num_leaves": 15, "min_child_samples": 20,
    "subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8,
}  # fmt: skip


def export(path: Path, data: dict, names: list[str], seeds: int) -> None:
    """The ranker fitted on every training pool, as ``sparkledock.analysis.learned`` reads
    it: the trees as flat arrays, the features (as the package names them), the training
    complexes, parameters and seeds, and LightGBM's own predictions of a few rows (the
    package's inference is tested against them)."""

    import lightgbm

    from sparkledock.analysis.learned import FEATURES as PACKAGE_FEATURES

    models = fit(data, names, seeds)
    rng = np.random.default_rng(0)
    rows = np.concatenate([data[n][0] for n in names])
    check = rows[rng.choice(len(rows), 64, replace=False)]
    fields = {
        "what": "restrained ranking learned on training complexes (LightGBM lambdarank)",
        "command": "python benchmarks/restrained_learned.py POOLS --export PATH",
        "lightgbm": lightgbm.__version__,
        "features": list(PACKAGE_FEATURES)
        + ([list(spec) for spec in EXTENDED] if USE_EXTENDED else []),
        "training_complexes": names,
        "params": PARAMS,
        "seeds": list(range(seeds)),
        "label": "CAPRI class: 0 incorrect, 1 acceptable, 2 medium, 3 high",
    }
    write_model(path, models, check, fields)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB, {len(names)} complexes)")


def prepared(pools: dict) -> dict:
    data = {}
    for name, pool in pools.items():
        index = kept(pool)
        data[name] = (features(pool, index), capri_label(pool)[index], index)
    return data


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path)
    p.add_argument("--seeds", type=int, default=3, help="LightGBM seeds averaged per fold")
    p.add_argument("--evaluate", type=Path, help="pools to apply the frozen ranker to")
    p.add_argument("--export", type=Path, help="write the ranker fitted on every pool here")
    p.add_argument(
        "--extended", action="store_true", help="add the blind ranking's features (EXTENDED)"
    )
    args = p.parse_args(argv)
    global USE_EXTENDED
    USE_EXTENDED = args.extended

    pools = load(args.pools)
    if args.extended:
        pools = with_extended(args.pools, pools)
    data = prepared(pools)
    if args.export:
        export(args.export, data, list(pools), args.seeds)
        return
    shipped, learned, package = {}, {}, {}
    if args.evaluate:
        models = fit(data, list(pools), args.seeds)
        pools = load(args.evaluate)
        if args.extended:
            pools = with_extended(args.evaluate, pools)
        data = prepared(pools)
        for name in pools:
            shipped[name], learned[name], package[name] = compare(pools[name], data[name], models)
        print(f"frozen on {len(models)} seeds of the training pools; {len(pools)} complexes\n")
    else:
        for held in pools:
            models = fit(data, [n for n in pools if n != held], args.seeds)
            shipped[held], learned[held], package[held] = compare(pools[held], data[held], models)
        print(f"{len(pools)} training complexes (leave one complex out)\n")
    from sparkledock.analysis.learned import shipped_model

    trained_on = set(shipped_model()[1]["training_complexes"])
    print("| complex | first acceptable: consensus | learned here | package's model |")
    print("|---|---|---|---|")
    for name in pools:
        mark = " (its training)" if name in trained_on else ""
        cells = [str(r or "–") for r in (shipped[name], learned[name], package[name])]
        print(f"| {name} | {' | '.join(cells)}{mark} |")
    unseen = [n for n in pools if n not in trained_on]
    print("\n| ranking | top 1 / 5 / 10 | MRR |\n|---|---|---|")
    rows = [
        ("consensus (score + satisfaction)", shipped), ("learned here", learned),
        (f"package's model ({len(trained_on)} complexes)", package),
        (f"consensus, {len(unseen)} complexes the package's model did not see",
         {n: shipped[n] for n in unseen}),
        ("learned here, the same", {n: learned[n] for n in unseen}),
        ("package's model, the same", {n: package[n] for n in unseen}),
    ]  # fmt: skip
    for label, ranks in rows:
        tops = [sum(1 for r in ranks.values() if r is not None and r <= n) for n in TOPS]
        mrr = np.mean([1 / r if r else 0.0 for r in ranks.values()])
        print(f"| {label} | {' / '.join(map(str, tops))} | {mrr:.3f} |")


if __name__ == "__main__":
    main()
