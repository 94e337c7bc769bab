"""One ranking for partial knowledge (issue 55, item 6): would a model fitted on the training
scenarios' dockings rank the solutions a partial-knowledge docking keeps better than today's
default (the blind model for one side or one pair, the restrained model otherwise)?

``collect`` reads the kept scenario dockings of ``scenarios.py run --keep`` (training
complexes only: ``ROOT/<scenario>/<complex or complex.runK>/dock``) and, per docking, the
cluster representatives the 40 % filter keeps, with every feature the learned rankings read
(:func:`sparkledock.analysis.ranking.ranking_features`, the package's own arrays, computed
over the kept ones as ``dock`` computes them) and their CAPRI class against the bound
reference; cached as ``<pool>/partial.npz``.

``loco`` fits LightGBM rankers leaving one complex out (all its scenarios), on each feature
set of :data:`SPECS`, and prints per scenario the top 1 / 5 / 10 of the held-out dockings next
to today's order (the shipped model the docking's level of knowledge ranks by, no model
refitted); ``--export PATH`` writes the model fitted on every pool as the package
reads it (``sparkledock.analysis.learned``).

Usage:
    nice python benchmarks/partial_learned.py collect /work/runs/sc_default \
        /work/runs/sc_patch_train
    python benchmarks/partial_learned.py loco /work/runs/sc_default /work/runs/sc_patch_train
    python benchmarks/partial_learned.py archive ROOTS... --to benchmarks/pools/partial_train
    python benchmarks/partial_learned.py loco benchmarks/pools/partial_train --spec partial \
        --export src/sparkledock/data/partial_ranker.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from common import write_model
from dock_accuracy import inputs
from sparkledock.analysis import learned
from sparkledock.analysis.evaluate import capri_class
from sparkledock.analysis.filter import filter_solutions
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.analysis.rank import Ranked, read_cluster_sizes
from sparkledock.analysis.ranking import NEEDS, default_method, ranking_features
from sparkledock.docking.options import FILTER_FRACTION
from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.pack import ensure_unpacked
from sparkledock.io.setupdir import SetupDir

TRAIN = Path(__file__).resolve().parents[2] / "shared" / "train"
CAPRI = {"incorrect": 0, "acceptable": 1, "medium": 2, "high": 3}
#: Every feature either learned model reads (the partial model chooses among them).
NAMES = tuple(dict.fromkeys((*NEEDS["learned"], *NEEDS["learned_blind"])))
#: Feature sets the cross-validation compares: the blind model's, the restrained model's,
#: and the blind model's with what was given (restraint satisfaction, as ranks).
SATISFACTION = (("satisfaction_active", "rank"), ("satisfaction", "rank"))
SPECS = {
    "blind": learned.BLIND_BASE,
    "restrained": learned.RESTRAINED,
    "partial": (*learned.BLIND_BASE, ("dfire", "rank"), *SATISFACTION),
}
#: The shipped blind model's parameters (chosen by its own cross-validation; none tuned here).
PARAMS = {
    "objective": "rank_xendcg", "n_estimators": 100, "learning_rate": 0.05, "num_leaves": 7,
    "min_child_samples": 100, "subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8,
}  # fmt: skip


def pools(roots: list[Path]) -> list[Path]:
    """Every kept scenario docking's folder under ``roots`` (``<scenario>/<name>/dock``)."""
    return sorted(d.parent for root in roots for d in root.glob("*/*/dock") if d.is_dir())


def complex_of(pool: Path) -> str:
    return pool.name.split(".run")[0]


def collect(pool: Path) -> None:
    """One docking's cluster representatives, the ones the 40 % filter keeps (all when it
    keeps none, as ``dock`` does), their features computed over the kept ones as the ranking
    computes them, and their CAPRI classes against the bound reference (cached)."""
    cache = pool / "partial.npz"
    if cache.is_file():
        return
    dock = pool / "dock"
    record = json.loads((dock / "run.json").read_text())
    steps = int(record["options"]["steps"])
    folder = SetupDir(dock / "setup")
    ensure_unpacked(folder.root)
    setup = load_setup(folder.root)
    restraints = setup_restraints(setup)
    data, sizes, reps = {}, {}, []
    for swarm in range(setup.n_swarms):
        gso = data[swarm] = read_gso_output(folder.gso(swarm, steps))
        found = read_cluster_sizes(folder.cluster(swarm))
        sizes.update({(swarm, g): n for g, n in found.items()})
        reps.extend(Ranked(swarm, g, tuple(gso.poses[g]), 0.0, 0, 0.0, float(gso.scores[g]))
                    for g in found)  # fmt: skip
    judged = filter_solutions(setup, reps, restraints, FILTER_FRACTION)
    kept = judged.kept or [r for r in reps if r.score > 0] or reps
    everyone = np.concatenate([d.poses for d in data.values()])
    features, _ = ranking_features(setup, kept, NAMES, restraints, everyone, sizes)
    complex_folder = TRAIN / complex_of(pool)
    reference = quality_reference(setup, inputs(complex_folder)["reference"])
    poses = np.array([r.pose for r in kept]).reshape(len(kept), setup.layout.size)
    q = pose_quality(reference, setup, poses)
    label = np.array([CAPRI[capri_class(f, i, r)] for f, i, r in
                      zip(q["fnat"], q["irmsd"], q["lrmsd"], strict=True)])  # fmt: skip
    level = json.loads((pool / "result.json").read_text()).get("knowledge", {}).get("level", "")
    np.savez_compressed(cache, label=label, level=level, **features)


def load(roots: list[Path]) -> dict[str, dict]:
    """Every collected pool under ``roots`` (scenario dockings, or an archive of their
    ``partial.npz`` files in the same layout), by ``<scenario>/<name>``."""
    out = {}
    for root in roots:
        for cache in sorted(root.glob("*/*/partial.npz")):
            with np.load(cache) as z:
                out[f"{cache.parent.parent.name}/{cache.parent.name}"] = {k: z[k] for k in z.files}
    return out


def archive(roots: list[Path], where: Path) -> None:
    """Copy every collected pool's ``partial.npz`` into ``where`` (same layout: a few MB in
    all, kept in the repository, so the model can be fitted again without the dockings)."""
    import shutil

    for root in roots:
        for cache in sorted(root.glob("*/*/partial.npz")):
            target = where / cache.parent.parent.name / cache.parent.name / cache.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(cache, target)
    print(f"archived {len(list(where.glob('*/*/partial.npz')))} pools in {where}")


def fit(data: dict, keys: list[str], spec: tuple, seeds: int = 1) -> list:
    import lightgbm as lgb

    x = np.concatenate([learned.feature_matrix(data[k], spec) for k in keys])
    y = np.concatenate([data[k]["label"] for k in keys])
    groups = [len(data[k]["label"]) for k in keys]
    models = []
    for seed in range(seeds):
        model = lgb.LGBMRanker(**PARAMS, random_state=seed, deterministic=True,
                               force_row_wise=True, verbose=-1, n_jobs=1)  # fmt: skip
        model.fit(x, y, group=groups)
        models.append(model)
    return models


def first_hit(ok: np.ndarray) -> int | None:
    hits = np.flatnonzero(ok)
    return int(hits[0]) + 1 if len(hits) else None


def tops(hits: list[int | None]) -> str:
    return " / ".join(str(sum(h is not None and h <= n for h in hits)) for n in (1, 5, 10))


#: Shipped rankings compared as they are (no model refitted): a learned model (in-sample
#: where it saw the complex) or a fixed key (:data:`sparkledock.analysis.ranking.KEYS`).
FIXED = ("learned", "learned_partial", "restraints")


def loco(
    data: dict, specs: list[str], seeds: int, train_on: list[str] | None = None
) -> dict[str, dict[str, np.ndarray]]:
    """Held-out keys (larger first) per pool: today's (the shipped model its level ranks by),
    the score's, the :data:`FIXED` rankings' and each spec's model fitted without the pool's
    complex (on the ``train_on`` scenarios' pools only, when given)."""
    from sparkledock.analysis.ranking import KEYS

    keys: dict[str, dict[str, np.ndarray]] = {k: {} for k in data}
    for key, pool in data.items():
        method = default_method(True, level=str(pool["level"]))
        keys[key]["today"] = np.asarray(KEYS[method](pool), dtype=np.float64)
        keys[key]["score"] = np.asarray(pool["score"], dtype=np.float64)
        for name in FIXED:
            keys[key][name] = np.asarray(KEYS[name](pool), dtype=np.float64)
    names = sorted({complex_of(Path(k)) for k in data})
    for spec in specs:
        for held in names:
            train = [k for k in data if complex_of(Path(k)) != held
                     and (train_on is None or k.split("/")[0] in train_on)]  # fmt: skip
            models = fit(data, train, SPECS[spec], seeds)
            for key in (k for k in data if complex_of(Path(k)) == held):
                x = learned.feature_matrix(data[key], SPECS[spec])
                keys[key][spec] = sum(m.predict(x) for m in models)
    return keys


def ordered(pool: dict, key: np.ndarray) -> np.ndarray:
    """Indices best first by ``key``, ties by score, then as given (the package's order)."""
    return np.lexsort((np.arange(len(key)), -pool["score"], -key))


def merged_first(pools: list[dict], keys: list[np.ndarray], rule: str) -> int | None:
    """The first acceptable rank of alternatives' rankings merged by ``rule``: ``score``
    (the package's: the next row is the best-scored of the alternatives' next rows),
    ``key`` (every row by its model key) or ``interleave`` (round robin)."""
    import heapq

    lists = [ordered(p, k) for p, k in zip(pools, keys, strict=True)]
    if rule == "key":
        rows = sorted(
            (
                (-k[i], -p["score"][i], n, own)
                for n, (p, k, lst) in enumerate(zip(pools, keys, lists, strict=True))
                for own, i in enumerate(lst)
            )
        )
        labels = [pools[n]["label"][lists[n][own]] for *_, n, own in rows]
    elif rule == "score":
        queues = [[(-p["score"][i], n, p["label"][i]) for i in lst]
                  for n, (p, lst) in enumerate(zip(pools, lists, strict=True))]  # fmt: skip
        labels = [lab for *_, lab in heapq.merge(*queues, key=lambda t: t[:2])]
    else:
        labels = [p["label"][lst[r]] for r in range(max(map(len, lists)))
                  for p, lst in zip(pools, lists, strict=True) if r < len(lst)]  # fmt: skip
    return first_hit(np.asarray(labels) >= 1)


def report(data: dict, keys: dict, specs: list[str]) -> None:
    methods = ("today", "score", *FIXED, *specs)
    firsts = {k: {m: first_hit(data[k]["label"][ordered(data[k], keys[k][m])] >= 1)
                  for m in methods} for k in data}  # fmt: skip
    scenarios = sorted({k.split("/")[0] for k in data})
    print("Per docking (an alternative of a merged scenario counts alone):\n")
    print(f"| scenario | dockings | {' | '.join(methods)} |")
    print("|---|---|" + "---|" * len(methods))
    for sc in [*scenarios, "all"]:
        chosen = [k for k in data if sc == "all" or k.startswith(sc + "/")]
        cells = [tops([firsts[k][m] for k in chosen]) for m in methods]
        print(f"| {sc} | {len(chosen)} | {' | '.join(cells)} |")
    groups: dict[str, list[str]] = {}
    for k in data:
        if ".run" in k:
            groups.setdefault(k.split(".run")[0], []).append(k)
    if not groups:
        return
    print("\nMerged scenarios, per complex (merge rule: score / key / interleave):\n")
    print(f"| scenario | complexes | {' | '.join(methods)} |")
    print("|---|---|" + "---|" * len(methods))
    for sc in sorted({g.split("/")[0] for g in groups}):
        names = [g for g in groups if g.startswith(sc + "/")]
        cells = []
        for m in methods:
            by_rule = []
            for rule in ("score", "key", "interleave"):
                hits = [merged_first([data[k] for k in sorted(groups[g])],
                                     [keys[k][m] for k in sorted(groups[g])], rule)
                        for g in names]  # fmt: skip
                by_rule.append(tops(hits))
            cells.append("<br>".join(by_rule))
        print(f"| {sc} | {len(names)} | {' | '.join(cells)} |")


def export(
    path: Path, data: dict, spec_name: str, seeds: int, train_on: list[str] | None = None
) -> None:
    import lightgbm

    keys = sorted(k for k in data if train_on is None or k.split("/")[0] in train_on)
    spec = SPECS[spec_name]
    models = fit(data, keys, spec, seeds)
    check = learned.feature_matrix(data[keys[0]], spec)[:64]
    fields = {
        "what": "partial-knowledge ranking learned on training scenarios (LightGBM rank_xendcg)",
        "command": f"python benchmarks/partial_learned.py loco ROOTS --spec {spec_name} "
        + (f"--train-on {' '.join(train_on)} " if train_on else "")
        + "--export PATH",
        "lightgbm": lightgbm.__version__,
        "features": [list(f) for f in spec],
        "training_complexes": sorted({complex_of(Path(k)) for k in keys}),
        "training_dockings": keys,
        "params": PARAMS,
        "seeds": list(range(seeds)),
        "label": "CAPRI class: 0 incorrect, 1 acceptable, 2 medium, 3 high",
    }
    write_model(path, models, check, fields)
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB, {len(keys)} dockings)")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=("collect", "loco", "archive"))
    p.add_argument("roots", type=Path, nargs="+")
    p.add_argument("--spec", nargs="*", default=list(SPECS), choices=list(SPECS))
    p.add_argument("--seeds", type=int, default=1)
    p.add_argument("--export", type=Path)
    p.add_argument("--to", type=Path, help="archive: the folder to copy the pools into")
    p.add_argument("--train-on", nargs="*", help="loco: fit on these scenarios' pools only")
    args = p.parse_args(argv)
    if args.mode == "collect":
        todo = pools(args.roots)
        for i, pool in enumerate(todo, 1):
            start = time.perf_counter()
            try:
                collect(pool)
            except Exception as error:  # (a research script: report, go on)
                print(f"{pool}: {error}", file=sys.stderr)
                continue
            print(f"[{i}/{len(todo)}] {pool} ({time.perf_counter() - start:.1f} s)", flush=True)
        return
    if args.mode == "archive":
        archive(args.roots, args.to)
        return
    data = load(args.roots)
    if args.export:
        export(args.export, data, args.spec[0], 3, args.train_on)
        return
    report(data, loco(data, args.spec, args.seeds, args.train_on), args.spec)


if __name__ == "__main__":
    main()
