"""How often a blind order's first distinct sites hold one near the true interface, under
rankers trained with different labels (issue 36: the site stage, ``dock --redock-sites``,
can only find what its sites hold; on the twenty, 5 of 20 have a near site among the
first ten, against 15 whose pool holds an acceptable model).

The shipped blind model learns the CAPRI class, so a pose near the interface but not yet
acceptable counts as nothing. For the site stage a near pose is what matters: its site's
restrained docking finds the acceptable model. This cross-validates, by complex, over the
archived training pools whose pool folders give each representative's fnat and iRMSD:

- the label: the CAPRI class (shipped); "near" graded (0 far, 1 near: fnat >= 0.1 and
  iRMSD <= 8 Å, then 2-4 for acceptable, medium, high); near or better (binary,
  ``near_only``); DockQ in tenths;
- the feature set (``blind_learned.FEATURE_SETS``),

and counts complexes with a near site (and an acceptable site) among the first
``--sites`` leaders (``ranking.leaders``, ``--radius`` Å) of the held-out order.

Usage:
    python benchmarks/site_recall.py [--pools /work/runs/train_blind] \
        [--archives benchmarks/pools/blind_train] [--folds 5] [--sites 10] [--radius 15]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import blind_learned as bl
from sparkledock.analysis import learned
from sparkledock.analysis.ranking import leaders

#: The shipped blind model's parameters (its JSON's ``params``).
PARAMS = learned.shipped_model("blind")[1]["params"]
#: How far down an order the sites are looked for (as ``site_redock.py``).
HEAD = 600


def near(fnat: np.ndarray, irmsd: np.ndarray) -> np.ndarray:
    """Near the true interface (as ``site_redock.near_site``)."""
    return (fnat >= 0.1) & (irmsd <= 8.0)


def load(pools: Path, archives: Path) -> dict[str, dict[str, np.ndarray]]:
    """The archived features of every training pool with a pool folder, with their
    labels: ``near`` (bool) and ``near_label`` (graded)."""
    out = {}
    for path in sorted(archives.glob("*.npz")):
        folder = pools / path.stem / "pool.npz"
        if not folder.is_file():
            continue
        pool = bl.read_archive(path)
        with np.load(folder) as q:
            close = near(q["fnat"], q["irmsd"])
        if len(close) != len(pool["label"]):
            continue
        pool["near"] = close
        pool["near_label"] = np.where(pool["label"] >= 1, pool["label"] + 1, close.astype(int))
        pool["near_only"] = (close | (pool["label"] >= 1)).astype(int)
        pool["marks"] = bl.pool_marks(pool)
        out[path.stem] = pool
    return out


def site_counts(pool: dict, key: np.ndarray, sites: int, radius: float) -> tuple[bool, bool]:
    """Whether the first ``sites`` leaders of ``key``'s order hold a near / an acceptable
    representative."""
    ranked = np.lexsort((np.arange(len(key)), -key))[:HEAD]
    chosen = leaders(pool["marks"], ranked, radius, sites)
    return bool(pool["near"][chosen].any()), bool((pool["label"][chosen] >= 1).any())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pools", type=Path, default=Path("/work/runs/train_blind"))
    p.add_argument("--archives", type=Path, default=bl.HERE / "pools" / "blind_train")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--sites", type=int, nargs="*", default=[5, 10, 20])
    p.add_argument("--radius", type=float, default=15.0)
    p.add_argument("--labels", nargs="*", default=["label", "near_label", "dockq_label"])
    p.add_argument("--features", nargs="*", default=["shipped", "propensity"])
    p.add_argument("--repeats", type=int, default=1, help="shufflings of the folds")
    args = p.parse_args(argv)
    pools = load(args.pools, args.archives)
    names = sorted(pools)
    reachable = sum(1 for n in names if pools[n]["near"].any())
    print(f"{len(names)} training pools ({reachable} with a near representative), "
          f"{args.folds} folds by complex, sites {args.radius:g} Å apart\n")  # fmt: skip
    cols = " | ".join(f"near / acceptable in {s} sites" for s in args.sites)
    print(f"| ranker | {cols} |\n|---|{'---|' * len(args.sites)}")
    for features in args.features:
        for label in args.labels:
            bl.LABEL[0] = label
            spec = bl.FEATURE_SETS[features]
            runs = []
            for shuffle in range(args.repeats):
                keys = {}
                for held in bl.folds(names, args.folds, shuffle):
                    train = [n for n in names if n not in held]
                    model = bl.fit(pools, train, PARAMS, 1, spec)[0]
                    for n in held:
                        keys[n] = model.predict(learned.feature_matrix(pools[n], spec))
                runs.append(keys)
            show(f"{features} features, label {label} (held out)", runs, pools, args)
    shipped = {n: learned.learned_key(pools[n], "blind") for n in names}
    show("shipped model (trained on most of these: not a held-out figure)", [shipped], pools, args)


def show(name: str, runs: list[dict], pools: dict, args: argparse.Namespace) -> None:
    """A table row: near / acceptable site counts, averaged over the runs."""
    cells = []
    for s in args.sites:
        got = np.array([[site_counts(pools[n], k, s, args.radius) for n, k in keys.items()]
                        for keys in runs]).sum(axis=1).mean(axis=0)  # fmt: skip
        cells.append(f"{got[0]:.1f} / {got[1]:.1f}" if len(runs) > 1 else
                     f"{got[0]:.0f} / {got[1]:.0f}")  # fmt: skip
    print(f"| {name} | {' | '.join(cells)} |", flush=True)


if __name__ == "__main__":
    main()
