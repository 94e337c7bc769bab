"""Would a ranking learned on site dockings turn more near sites into an acceptable top model?

The site stage (``dock --redock-sites``) docks a blind docking's sites again under restraints
taken from the site's pose (its interface residues, both sides, active) and ranks each site
docking with the restrained model, which learned on dockings restrained by the true
interface. A site's restraints are only near it, so its satisfaction means less: on training
complexes a near site's docking holds an acceptable model among its first 20 far more often
than at its top (benchmarks/notebook/performance.md, "twelfth part"). This reads site dockings kept
by
``site_redock.py --near-only --keep``, records each one's pool (every cluster representative
of each swarm's last step, its features as ``restrained_pools.py`` records them and its
quality; cached as ``site_<i>/pool.npz``) and compares, leaving one complex out:

- the package's restrained model (what the stage ranks by now);
- a ranker (``restrained_learned.py``'s features, label and parameters) fitted on the other
  complexes' site dockings;
- the same fitted on the other complexes' site dockings and their restrained pools
  (``--restrained``, the archived pools the package's model learned from, the held-out
  complex's left out too);
- a ranker fitted on the other complexes' site dockings with the blind ranking's further
  features too (``--extended``: ``restrained_learned.EXTENDED``, computed from each kept
  docking's setup and cached as ``site_<i>/features.npz``; the archived restrained pools
  keep no poses, so this one learns from site dockings alone).

Counted: near-site dockings (and complexes) with an acceptable model (CAPRI) at the top and
in the first five.

With ``--evaluate ROOT --candidate NAME``, the candidate is fitted once on every training
site docking (frozen) and applied to the kept site dockings under ``ROOT`` (the twenty's),
next to the package's model; ``--export PATH`` writes the frozen ranker as the package reads
its models (``restrained_learned.export``).

Usage:
    python benchmarks/site_rerank.py /work/runs/site_keep_train \
        [--restrained benchmarks/pools/restrained_train] [--extended] [--seeds 3]
    python benchmarks/site_rerank.py /work/runs/site_keep_train --candidate site \
        [--evaluate ROOT] [--export PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import restrained_learned as rl
from blind_learned import SHARED
from dock_accuracy import inputs as complex_inputs
from restrained_choice import acceptable
from restrained_choice import load as load_restrained
from restrained_pools import pool_arrays
from sparkledock.analysis.learned import shipped_model
from sparkledock.io.lightdock import load_setup
from sparkledock.io.setupdir import SetupDir

TOPS = (1, 5)


def last_steps(setup_folder: Path) -> np.ndarray:
    """Each swarm's last snapshot (a kept site docking holds only that one)."""
    steps = []
    for swarm in SetupDir(setup_folder).swarms():
        found = [int(p.stem.split("_")[1]) for p in swarm.glob("gso_*.out")]
        steps.append(max(found))
    return np.array(steps)


def site_pools(root: Path) -> dict[tuple[str, int], dict[str, np.ndarray]]:
    """Every kept site docking's pool under ``root`` (``<C>/site_<i>/dock``), by (complex,
    site); computed once, then read from ``site_<i>/pool.npz``."""
    pools = {}
    for dock in sorted(root.glob("*/site_*/dock")):
        name, site = dock.parent.parent.name, int(dock.parent.name.split("_")[1])
        cache = dock.parent / "pool.npz"
        if not cache.is_file():
            if not (dock / "ranking.csv").is_file():  # (still docking)
                continue
            setup = load_setup(dock / "setup")
            where = next(s for s in ("train", "bench", "bench5") if (SHARED / s / name).is_dir())
            arrays, _ = pool_arrays(setup, complex_inputs(SHARED / where / name),
                                    last_steps(dock / "setup"))  # fmt: skip
            tmp = cache.with_suffix(".tmp.npz")
            np.savez_compressed(tmp, **arrays)
            tmp.replace(cache)
        with np.load(cache) as data:
            pools[(name, site)] = {k: data[k] for k in data.files}
    return pools


def with_extended(root: Path, pools: dict) -> dict:
    """Each site docking's pool with :data:`restrained_learned.EXTENDED` features (computed
    once from its kept setup, cached as ``site_<i>/features.npz``)."""
    return rl.with_extended(root, pools, lambda key: root / key[0] / f"site_{key[1]}")


def first(pool: dict, entry: tuple, score: np.ndarray) -> int | None:
    """The first acceptable model's rank when the filter's survivors are ordered by score."""
    index = entry[2]
    return rl.first_hit(acceptable(pool)[index[np.lexsort((np.arange(len(score)), -score))]])


#: The candidates (``--candidate``): what each fits on.
CANDIDATES = {
    "site": "fitted on site dockings",
    "both": "fitted on site dockings and restrained pools",
    "extended": "fitted on site dockings, extended features",
}


def frozen(args: argparse.Namespace) -> None:
    """Fit ``--candidate`` on every training site docking; export it and/or apply it to the
    site dockings under ``--evaluate``."""
    rl.USE_EXTENDED = args.candidate == "extended"
    pools = site_pools(args.root)
    if rl.USE_EXTENDED:
        pools = with_extended(args.root, pools)
    data = {f"{name}/site_{site}": v for (name, site), v in rl.prepared(pools).items()}
    if args.candidate == "both":
        data.update(rl.prepared(load_restrained(args.restrained)))
    if args.export:
        rl.export(args.export, data, sorted(data), args.seeds)
    if not args.evaluate:
        return
    models = rl.fit(data, sorted(data), args.seeds)
    targets = site_pools(args.evaluate)
    if rl.USE_EXTENDED:
        targets = with_extended(args.evaluate, targets)
    shipped = shipped_model()[0]
    print(f"frozen: {CANDIDATES[args.candidate]} ({len(data)} pools, {args.seeds} seeds)\n")
    print("| site docking | acceptable in it | first acceptable: package's model | frozen |")
    print("|---|---|---|---|")
    mine_rows = rl.prepared(targets)  # (the candidate's features)
    rl.USE_EXTENDED = False
    base_rows = rl.prepared(targets)  # (the package's model's)
    for key, pool in targets.items():
        entry, base = mine_rows[key], base_rows[key]
        mine = first(pool, entry, sum(m.predict(entry[0]) for m in models))
        theirs = first(pool, base, shipped.predict(base[0]))
        print(f"| {key[0]} site {key[1]} | {int(acceptable(pool).sum())} | {theirs or '-'} | "
              f"{mine or '-'} |")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("root", type=Path)
    p.add_argument("--restrained", type=Path, help="archived restrained pools to train on too")
    p.add_argument("--extended", action="store_true", help="a ranker with EXTENDED too")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--candidate", choices=CANDIDATES, help="freeze this one (see --evaluate)")
    p.add_argument("--evaluate", type=Path, help="kept site dockings to apply it to")
    p.add_argument("--export", type=Path, help="write the frozen ranker here")
    args = p.parse_args(argv)
    if args.candidate:
        frozen(args)
        return
    pools = site_pools(args.root)
    data = rl.prepared(pools)
    wide = {}
    if args.extended:
        pools = with_extended(args.root, pools)
        rl.USE_EXTENDED = True
        wide = rl.prepared(pools)
        rl.USE_EXTENDED = False
    extra = rl.prepared(load_restrained(args.restrained)) if args.restrained else {}
    complexes = sorted({name for name, _ in pools})
    shipped = shipped_model()[0]
    rows: dict[str, dict] = {"package's restrained model": {}, CANDIDATES["site"]: {}}
    if extra:
        rows[CANDIDATES["both"]] = {}
    if wide:
        rows[CANDIDATES["extended"]] = {}
    for held in complexes:
        train = {k: v for k, v in data.items() if k[0] != held}
        fits = [(CANDIDATES["site"], train)]
        if extra:
            both = {**train, **{("r", n): v for n, v in extra.items() if n != held}}
            fits.append((CANDIDATES["both"], both))
        if wide:
            fits.append((CANDIDATES["extended"], {k: v for k, v in wide.items() if k[0] != held}))
        models = {label: rl.fit(d, list(d), args.seeds) for label, d in fits}
        for key in (k for k in pools if k[0] == held):
            x = data[key][0]
            rows["package's restrained model"][key] = first(
                pools[key], data[key], shipped.predict(x)
            )
            for label, fitted in models.items():
                rows_x = wide[key][0] if label == CANDIDATES["extended"] else x
                score = sum(m.predict(rows_x) for m in fitted)
                rows[label][key] = first(pools[key], data[key], score)
        print(f"{held}: " + ", ".join(
            f"site {k[1]} " + " / ".join(str(r[k] or "-") for r in rows.values())
            for k in pools if k[0] == held), flush=True)  # fmt: skip
    reachable = sum(acceptable(p).any() for p in pools.values())
    print(f"\n{len(pools)} near-site dockings of {len(complexes)} training complexes "
          f"({reachable} hold an acceptable model); leave one complex out\n")  # fmt: skip
    print("| ranking | dockings: acceptable top 1 / top 5 | complexes: top 1 / top 5 |")
    print("|---|---|---|")
    for label, ranks in rows.items():
        per_site = [sum(1 for r in ranks.values() if r and r <= t) for t in TOPS]
        best = {}
        for (name, _), r in ranks.items():
            if r:
                best[name] = min(r, best.get(name, r))
        per_complex = [sum(1 for r in best.values() if r <= t) for t in TOPS]
        print(f"| {label} | {' / '.join(map(str, per_site))} | "
              f"{' / '.join(map(str, per_complex))} |")  # fmt: skip


if __name__ == "__main__":
    main()
