"""A blind ranking learned from the training complexes (issue 36): features, cross-validated
choice of LightGBM's parameters, export, and the one evaluation on the twenty.

Reads the blind pools ``restrained_pools.py --blind --keep-setup`` wrote (every cluster
representative of the final step, with its quality against the bound reference, and the
docking's setup folder). Per pool, the features the package's ``learned_blind`` ranking
reads (:func:`sparkledock.analysis.features.solution_features`: the run's score, re-scores by
DFIRE, dfire_soft, MJ3h, TOBI, PISA, vdW and SIPPER, interface sizes, standing in the swarm,
cluster size and population) and the candidates of the other feature sets (LightDock's
``dna``, shape complementarity, formal charges' Coulomb energy) are computed once and cached
beside it (``features.npz``), and can be archived (``--archive``: a few hundred KB per pool,
kept in the repository); the label is the CAPRI class (0 incorrect, 1 acceptable, 2 medium,
3 high).

Modes:
* default: grouped cross-validation over the training complexes (``--folds`` folds, by
  complex) of every parameter set in :data:`GRID`; per set, top 1 / 5 / 10 / 100 of the
  held-out complexes and their mean reciprocal rank, next to ``soft_consensus`` and ``dfire``
  on the same complexes. The chosen set (most top-10 successes, then top 5, top 1, MRR) is
  printed.
  ``--features`` names the feature sets (:data:`FEATURE_SETS`) the choice ranges over,
  ``--diversity`` the radii of the diversity step (:data:`DIVERSITY`: near-duplicates in
  the head of the learned order moved back), ``--params`` (JSON) one parameter set instead
  of the grid.
* ``--export PATH``: the ranker fitted on every training pool with the chosen parameters,
  feature set and diversity radius (``--params`` with one ``--features`` and at most one
  ``--diversity``: as given; else the cross-validation's choice among them), as the package
  reads it.
* ``--evaluate POOLS``: the shipped model applied to other pools (the twenty's), next to
  ``soft_consensus``, ``dfire`` and LightDock's published blind result, in one table.
* ``--curve N ...``: a learning curve (held-out successes with N training complexes per fit).

The cross-validation also prints the package's blind model beside each row on the complexes
that model never trained on (the blind retraining's rule, benchmarks/notebook/performance.md).

Usage:
    python benchmarks/blind_learned.py /work/runs/train_blind [--folds 5] [--seeds 3]
    python benchmarks/blind_learned.py /work/runs/train_blind --export \
        ../src/sparkledock/data/blind_ranker.json
    python benchmarks/blind_learned.py --evaluate /work/runs/twenty_blind
    python benchmarks/blind_learned.py /work/runs/train_blind --archive benchmarks/pools/blind_train
    python benchmarks/blind_learned.py benchmarks/pools/blind_train   # the same, from archives
    python benchmarks/blind_learned.py benchmarks/pools/blind_train --curve 20 40 70 100 138
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np

from dock_accuracy import lightdock_published
from lab_features import BLIND_SITE, PROPENSITY, interface_propensity
from restrained_learned import capri_label
from sparkledock.analysis import learned
from sparkledock.analysis.features import solution_features
from sparkledock.analysis.ranking import (
    diverse,
    landmark_atoms,
    landmarks,
    model_diversity,
    order,
)
from sparkledock.analysis.ranks import average_ranks
from sparkledock.io.lightdock import load_setup
from sparkledock.molecule.pose import ROTATION, TRANSLATION, rotate_lightdock

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
TOPS = (1, 5, 10, 100)
#: The parameter sets the cross-validation chooses among (nothing is tuned on the twenty).
#: LightGBM's two ranking objectives (lambdarank: pairwise, NDCG-weighted; rank_xendcg: a
#: listwise cross-entropy, steadier with one or two positives among thousands), small
#: ensembles (300 trees and 20-sample leaves overfitted 36 pools:
#: benchmarks/notebook/performance.md).
GRID = [
    {"objective": objective, "n_estimators": n, "learning_rate": 0.05, "num_leaves": leaves,
     "min_child_samples": 100, "subsample": 0.8, "subsample_freq": 1, "colsample_bytree": 0.8}
    for objective, n, leaves in itertools.product(("lambdarank", "rank_xendcg"), (50, 100), (7, 15))
]  # fmt: skip
#: The same objective with the score features' effect held monotone (``monotone``:
#: :data:`MONOTONE`): a prior that trades flexibility for steadiness on few positives.
GRID += [
    {**params, "monotone": True}
    for params in GRID
    if params["objective"] == "rank_xendcg" and params["num_leaves"] == 7
]
#: The parameters that vary in :data:`GRID` (the table's labels).
SHOWN = ("objective", "n_estimators", "num_leaves", "monotone")
#: The direction a ``monotone`` fit holds each feature's effect in (+1: a better rank never
#: lowers the score; -1: never raises it; absent: free), from the signs of the single
#: features on the first 38 training pools (benchmarks/notebook/performance.md, "third part":
#: pyDock's
#: electrostatics ranks near-natives low; vdW, SIPPER and the counts had no clear sign);
#: for shape complementarity and the formal charges' attraction, their physical sense.
MONOTONE = {
    "score": 1, "dfire_soft": 1, "mj3h": 1, "tobi": 1, "pisa": 1, "dna": -1,
    "cluster_size": 1, "population": 1, "shape_complementarity": 1, "formal_coulomb": 1,
}  # fmt: skip


#: The feature sets the cross-validation may choose among (``--features``): the shipped
#: model's, and the same with pyDock's electrostatics and van der Waals (LightDock's ``dna``
#: function: cpydock without desolvation, so no FreeSASA, no extra), which lifted top 1 and
#: top 5 on the first 38 training pools (benchmarks/notebook/performance.md, "third part"; on inputs
#: without hydrogens its rank is mostly the interface's size, reversed: ``extended`` adds
#: a hydrogen-independent electrostatics and shape complementarity). A set other
#: than the shipped one is adopted by exporting it and giving the package's ranking its
#: features (``analysis.learned.BLIND``, ``ranking.NEEDS``).
FEATURE_SETS = {
    "shipped": learned.BLIND,
    "electrostatics": (*learned.BLIND_BASE, ("dna", "rank")),
    # and how squarely the surfaces face each other, and the formal charges' Coulomb energy
    # (pyDock's electrostatics reads missing hydrogens as charge: features.formal_coulomb)
    "extended": (
        *learned.BLIND_BASE, ("dna", "rank"), ("shape_complementarity", "rank"),
        ("formal_coulomb", "rank"),
    ),
    # where the interface lies: how likely its residues are to bind, by the interface-
    # propensity model (analysis.propensity; training pools read out-of-fold values, SITE_OOF)
    "propensity": (*learned.BLIND_BASE, *BLIND_SITE),
}  # fmt: skip
#: Every training complex's residues' interface log-odds by the site model fitted without
#: it (``site_propensity.py --oof``): a training pool's propensity features read these, so
#: the ranking learns from what it meets on a complex the site model has not seen.
SITE_OOF = HERE / "pools" / "site_oof.npz"
# every feature as its rank within the docking: nothing depends on the complex's size (the
# counts' values do), at the cost of the counts' absolute meaning
FEATURE_SETS["ranked"] = tuple((name, "rank") for name, _ in FEATURE_SETS["extended"])


#: The training labels (``--label``): the CAPRI class, or DockQ in tenths; the one in use.
LABELS = {
    "label": "CAPRI class: 0 incorrect, 1 acceptable, 2 medium, 3 high",
    "dockq_label": "DockQ in tenths (0-10)",
}
LABEL = ["label"]
#: ``--linear``: also cross-validate the linear alternative (:func:`fit_linear`).
LINEAR = [False]
#: ``--threads``: LightGBM's threads per fit (its deterministic mode: the same trees).
THREADS = [1]
#: The diversity steps the cross-validation chooses among with the parameters: landmark RMSD
#: radii (Å; 0: none) within which a representative in the first :data:`HEAD` of the
#: learned order is moved behind a better one (``ranking.diverse``; the package applies the
#: exported model's choice, ``learned.diversity``). 10-12 Å lifted the top 10 on 101 pools
#: in exploration (benchmarks/notebook/performance.md, "sixth part").
DIVERSITY = (0.0, 6.0, 8.0, 10.0, 12.0, 15.0)
#: How far down the learned order the diversity step looks.
HEAD = 300


def site_oof(name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """A training complex's out-of-fold residue log-odds (receptor, ligand), or None (a
    complex the site model never trained on: the shipped model serves)."""
    if not SITE_OOF.is_file():
        return None
    with np.load(SITE_OOF) as data:
        if f"{name}_receptor" not in data:
            return None
        return data[f"{name}_receptor"], data[f"{name}_ligand"]


def pool_features(folder: Path) -> dict[str, np.ndarray]:
    """A pool's representatives' features (cached in ``features.npz``) and labels."""
    cache = folder / "features.npz"
    pool = dict(np.load(folder / "pool.npz"))
    known = {k: pool[k] for k in ("dfire", "dfire_soft", "mj3h", "cluster_size", "population")}
    if cache.is_file():
        known.update(np.load(cache))
    features = known
    wanted = sorted({name for spec in FEATURE_SETS.values() for name, _ in spec} - set(known))
    if wanted:  # (a cache written before a feature was added gains only the new ones)
        setup = load_setup(folder / "dock" / "setup")
        oof = site_oof(folder.name)
        counts = (
            len(setup.receptor.atoms.residue_starts()),
            len(setup.ligand.atoms.residue_starts()),
        )
        if oof is not None and (len(oof[0]), len(oof[1])) != counts:
            # (a residue the setup now drops, such as a backbone remnant, was read when the
            # out-of-fold values were made; which one is not recorded, so they cannot be aligned)
            print(f"{folder.name}: out-of-fold site log-odds for {len(oof[0])} + {len(oof[1])} "
                  f"residues, the setup has {counts[0]} + {counts[1]}: the shipped site model "
                  "serves (it trained on this complex)", file=sys.stderr)  # fmt: skip
            oof = None
        if oof is not None and set(PROPENSITY) & set(wanted):
            known.update(interface_propensity(setup, pool["pose"], oof))
            wanted = [name for name in wanted if name not in PROPENSITY]
        features = solution_features(
            setup, pool["pose"], pool["swarm"], pool["score"], known=known, names=tuple(wanted)
        )
        tmp = cache.with_suffix(".tmp.npz")
        np.savez(tmp, **features)
        tmp.replace(cache)
    features.update(pool_geometry(folder, pool["pose"]))
    features["label"] = capri_label(pool)
    # a graded alternative (``--label dockq``): DockQ in tenths, so near-misses teach too
    features["dockq_label"] = np.clip(np.floor(pool["dockq"] * 10), 0, 10).astype(int)
    features["dockq"] = pool["dockq"]
    return features


def pool_geometry(folder: Path, poses: np.ndarray) -> dict[str, np.ndarray]:
    """What the diversity step reads (cached in ``marks.npz``): every representative's
    landmarks as the package computes them (``marks``: ligand C-alphas moved by the whole
    pose, normal modes included), and for archives their rigid part: the pose's translation
    and quaternion (``pose_t``, ``pose_q``) and the landmarks' coordinates on the undeformed,
    unmoved ligand (``landmark_xyz``), from which :func:`pool_marks` rebuilds them."""
    cache = folder / "marks.npz"
    if cache.is_file():
        with np.load(cache) as kept:
            return {k: kept[k] for k in kept}
    setup = load_setup(folder / "dock" / "setup")
    atoms = landmark_atoms(setup)
    rest = np.zeros((1, setup.layout.size))
    rest[0, ROTATION.start] = 1.0  # the identity: the ligand where the setup left it
    out = {
        "marks": landmarks(setup, poses, atoms),
        "pose_t": poses[:, TRANSLATION],
        "pose_q": poses[:, ROTATION],
        "landmark_xyz": landmarks(setup, rest, atoms).reshape(-1, 3),
    }
    tmp = cache.with_suffix(".tmp.npz")
    np.savez(tmp, **out)
    tmp.replace(cache)
    return out


def pool_marks(pool: dict[str, np.ndarray]) -> np.ndarray:
    """(N, K·3) landmarks of a pool's representatives: the exact ones of a pool folder, or
    an archive's rigid rebuild (the ligand's normal-mode deformation left out: its landmarks
    move by a few tenths of an Å, against diversity radii of 6 Å or more)."""
    if "marks" in pool:
        return pool["marks"]
    q = pool["pose_q"] / np.linalg.norm(pool["pose_q"], axis=1, keepdims=True)
    moved = rotate_lightdock(q[:, None, :], pool["landmark_xyz"][None]) + pool["pose_t"][:, None]
    return moved.reshape(len(q), -1)


def diversified(pool: dict[str, np.ndarray], ranked: np.ndarray, radius: float) -> np.ndarray:
    """``ranked`` with the diversity step of ``radius`` Å over its first :data:`HEAD` (the
    package's ``ranking.model_diversity``)."""
    if not radius:
        return ranked
    return np.concatenate([diverse(pool_marks(pool), ranked[:HEAD], radius), ranked[HEAD:]])


#: Geometry an archive keeps for the diversity step (:func:`pool_geometry`), with its
#: stored types: the pose's rigid part per representative at half precision (0.03 Å in a
#: translation of 60 Å), the pool's landmarks on the unmoved ligand as float32.
GEOMETRY = {"pose_t": np.float16, "pose_q": np.float16, "landmark_xyz": np.float32}

#: The columns an archive (:func:`archive`) keeps as they are: the features some set uses as
#: values (all of them counts). Every other feature is used only through its rank within the
#: pool (the sets' ``rank`` features and the baselines' scores), so the archive keeps twice
#: its average rank (ties shared, as :func:`learned.percentiles` reads them) as uint16
#: (uint32 in a pool of 32,768 representatives or more).
RAW = tuple(sorted({name for spec in FEATURE_SETS.values() for name, how in spec if how == "raw"}))
#: The columns an archive keeps as float32 values: features that are not counts, used as
#: values and as ranks (the package rounds them to float32 too, so both read the same).
FLOATS = PROPENSITY
#: The labels an archive keeps, with their stored types: the CAPRI class, DockQ in tenths,
#: and DockQ itself.
LABEL_TYPES = {"label": np.uint8, "dockq_label": np.uint8, "dockq": np.float16}


def _unsigned(values: np.ndarray) -> np.ndarray:
    """Non-negative integers as uint16, or uint32 where one does not fit (a count over
    65,535; twice a rank in a pool of 32,768 representatives or more, as 4GAM's blind pool
    of 41,685)."""
    return values.astype(np.uint16 if values.max() < 2**16 else np.uint32)


def archive(features: dict[str, np.ndarray], path: Path) -> None:
    """Write a pool's features and labels compactly (``.npz``, about 30 bytes a
    representative): what cross-validation, export and evaluation read, without the docking.
    Training pools are hours of docking and live outside the repository; their archives
    are small enough to keep in it (``benchmarks/pools/``), so the model can be retrained
    and the twenty evaluated again without docking anything."""
    out = {}
    for name, values in features.items():
        values = np.asarray(values)
        if name == "marks":  # (rebuilt from the rigid part: pool_marks)
            continue
        if name in GEOMETRY:
            out[name] = values.astype(GEOMETRY[name])
        elif name in LABEL_TYPES:
            out[name] = values.astype(LABEL_TYPES[name])
        elif name in FLOATS:
            if not np.isfinite(values).all():
                raise ValueError(f"{path.name}: {name} is not finite")
            out[name] = values.astype(np.float32)
        elif name in RAW:
            if not np.array_equal(values, np.round(values)) or values.min() < 0:
                raise ValueError(f"{path.name}: {name} is not a count")
            out[name] = _unsigned(values)
        else:
            out[name] = _unsigned(np.round(2 * average_ranks(values)))
    if path.is_file():  # the same pool archived again: the file stays as it is (its zip
        with np.load(path) as kept:  # entries' dates would change its bytes, not its data)
            if sorted(kept) == sorted(out) and all(
                kept[k].dtype == v.dtype and np.array_equal(kept[k], v) for k, v in out.items()
            ):
                return
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **out)
    tmp.replace(path)


def read_archive(path: Path) -> dict[str, np.ndarray]:
    """An archived pool (:func:`archive`) as :func:`pool_features` gives it."""
    with np.load(path) as data:
        return {
            k: data[k].astype(np.float64 if k in ("dockq", *FLOATS, *GEOMETRY) else np.int64)
            for k in data
        }


def load(root: Path, names: list[str] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Every finished pool under ``root`` (pool folders with their setup kept, or archives
    ``<C>.npz``), by complex."""
    pools = {}
    for path in sorted(root.glob("*.npz")):
        if not names or path.stem in names:
            pools[path.stem] = read_archive(path)
    for folder in sorted(p for p in root.iterdir() if (p / "pool.npz").is_file()):
        if (names and folder.name not in names) or folder.name in pools:
            continue
        if not (folder / "dock" / "setup").is_dir():
            continue
        pools[folder.name] = pool_features(folder)
        print(
            f"features: {folder.name} ({len(pools[folder.name]['label'])} representatives)",
            flush=True,
        )
    return pools


def first_hit(ok: np.ndarray) -> int | None:
    hits = np.flatnonzero(ok)
    return int(hits[0]) + 1 if len(hits) else None


#: LightGBM's ranking objectives take at most this many rows in one query (group).
QUERY_ROWS = 10_000


def queries(n: int) -> list[np.ndarray]:
    """A pool's rows as LightGBM's queries: all of them, or for a pool over
    :data:`QUERY_ROWS` representatives (1N2C's blind pool: 13,227) near-equal parts of a
    seeded permutation, each a random sample of the pool (its features were computed over
    the whole pool first: ranks within the docking)."""
    if n <= QUERY_ROWS:
        return [np.arange(n)]
    order = np.random.default_rng(n).permutation(n)
    return np.array_split(order, -(-n // QUERY_ROWS))


def fit(pools: dict, names: list[str], params: dict, seeds: int, spec: tuple) -> list:
    """LightGBM rankers (one per seed) on ``names``' representatives, features ``spec``."""
    import lightgbm as lgb

    x, y, groups = [], [], []
    for n in names:
        rows, labels = learned.feature_matrix(pools[n], spec), pools[n][LABEL[0]]
        for part in queries(len(labels)):
            x.append(rows[part])
            y.append(labels[part])
            groups.append(len(part))
    x, y = np.concatenate(x), np.concatenate(y)
    params = dict(params)
    if params.pop("monotone", False):
        params["monotone_constraints"] = [
            MONOTONE.get(name, 0) if how == "rank" else 0 for name, how in spec
        ]
    models = []
    for seed in range(seeds):
        model = lgb.LGBMRanker(
            **params, random_state=seed, deterministic=True, force_row_wise=True, verbose=-1,
            n_jobs=THREADS[0],
        )  # fmt: skip
        model.fit(x, y, group=groups)
        models.append(model)
    return models


def fit_linear(pools: dict, names: list[str], c: float):
    """A linear alternative with few parameters (small data): logistic regression of
    "acceptable or better" on the standardised features, classes balanced (scikit-learn)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x = np.concatenate([learned.feature_matrix(pools[n], learned.BLIND) for n in names])
    y = np.concatenate([pools[n]["label"] >= 1 for n in names])
    model = make_pipeline(
        StandardScaler(), LogisticRegression(C=c, class_weight="balanced", max_iter=2000)
    )
    return model.fit(x, y)


def firsts(pool: dict[str, np.ndarray], key: np.ndarray) -> int | None:
    """The rank of the first acceptable representative when ordered by ``key`` (larger
    first, ties in pool order)."""
    ranked = np.lexsort((np.arange(len(key)), -key))
    return first_hit(pool["label"][ranked] >= 1)


def baseline(pool: dict[str, np.ndarray], method: str) -> int | None:
    ranked = order(method, pool)
    return first_hit(pool["label"][ranked] >= 1)


def summary(ranks: dict[str, int | None]) -> str:
    tops = [sum(1 for r in ranks.values() if r is not None and r <= n) for n in TOPS]
    mrr = np.mean([1 / r if r else 0.0 for r in ranks.values()])
    return f"{' / '.join(map(str, tops))} | {mrr:.3f}"


def mean_successes(runs: list[dict[str, int | None]], n: int) -> float:
    """Complexes with an acceptable representative in the top ``n``, averaged over repeats
    of the cross-validation."""
    return float(
        np.mean([sum(1 for r in got.values() if r is not None and r <= n) for got in runs])
    )


def mean_mrr(runs: list[dict[str, int | None]]) -> float:
    return float(np.mean([1 / r if r else 0.0 for got in runs for r in got.values()]))


def mean_summary(runs: list[dict[str, int | None]]) -> str:
    """:func:`summary` averaged over repeats of the cross-validation (one decimal)."""
    if len(runs) == 1:
        return summary(runs[0])
    tops = " / ".join(f"{mean_successes(runs, n):.1f}" for n in TOPS)
    return f"{tops} | {mean_mrr(runs):.3f}"


def folds(names: list[str], k: int, shuffle: int = 0) -> list[list[str]]:
    """``k`` groups of complexes dealt round-robin: in name order (``shuffle`` 0), else in
    the order of a seeded permutation (a repeat of the cross-validation; deterministic)."""
    if shuffle:
        names = [str(n) for n in np.random.default_rng(shuffle).permutation(names)]
    return [names[i::k] for i in range(k)]


def cross_validate(
    pools: dict,
    k: int,
    seeds: int,
    repeats: int = 1,
    sets: tuple[str, ...] = ("shipped",),
    radii: tuple[float, ...] = (0.0,),
    grid: list[dict] | None = None,
) -> tuple[dict, str, float]:
    """Every :data:`GRID` set with every feature set of ``sets`` (:data:`FEATURE_SETS`) and
    every diversity radius of ``radii`` (:func:`diversified`) cross-validated by complex
    (``repeats`` shufflings of the complexes into ``k`` folds, means reported); the chosen
    parameters, feature set and radius (most top-10 successes, then top 5, top 1, MRR, on
    the means). ``grid``: the parameter sets (default :data:`GRID`)."""
    if any(radii) and any("pose_q" not in p and "marks" not in p for p in pools.values()):
        raise SystemExit("diversity radii need pools archived with their poses (pose_q)")
    names = sorted(pools)
    print(f"{len(names)} training complexes, {k} folds by complex × {repeats}, {seeds} seeds\n")
    print("| ranking | top 1 / 5 / 10 / 100 | MRR |\n|---|---|---|")
    for method in ("dfire", "soft_consensus"):
        print(f"| {method} | {summary({n: baseline(pools[n], method) for n in names})} |")
    results, unseen_rows = [], []
    for chosen_set, params in itertools.product(sets, grid or GRID):
        spec = FEATURE_SETS[chosen_set]
        runs: dict[float, list] = {r: [] for r in radii}
        for shuffle in range(repeats):
            got: dict[float, dict] = {r: {} for r in radii}
            for held in folds(names, k, shuffle):
                models = fit(pools, [n for n in names if n not in held], params, seeds, spec)
                for n in held:
                    key = sum(m.predict(learned.feature_matrix(pools[n], spec)) for m in models)
                    ranked = np.lexsort((np.arange(len(key)), -key))
                    for r in radii:
                        hits = pools[n]["label"][diversified(pools[n], ranked, r)] >= 1
                        got[r][n] = first_hit(hits)
            for r in radii:
                runs[r].append(got[r])
        label = ", ".join(f"{k}={v}" for k, v in params.items() if k in SHOWN)
        for r in radii:
            step = f", diversity {r:g} Å" if r else ""
            name = f"learned ({chosen_set}; {label}{step})"
            print(f"| {name} | {mean_summary(runs[r])} |", flush=True)
            tops = [mean_successes(runs[r], n) for n in (10, 5, 1)]
            results.append(((*tops, mean_mrr(runs[r])), params, chosen_set, r))
            unseen_rows.append((name, runs[r]))
    for c in (0.01, 0.1, 1.0) if LINEAR[0] else ():
        got = {}
        for held in folds(names, k):
            model = fit_linear(pools, [n for n in names if n not in held], c)
            for n in held:
                x = learned.feature_matrix(pools[n], learned.BLIND)
                got[n] = firsts(pools[n], model.decision_function(x))
        print(f"| logistic regression (C={c}; compared, not exported) | {summary(got)} |")
    versus_shipped(pools, unseen_rows)
    _, best, best_set, radius = max(results, key=lambda r: r[0])
    print(f"\nchosen: {json.dumps(best)}, features {best_set}, diversity {radius:g} Å")
    return best, best_set, radius


def versus_shipped(pools: dict, rows: list[tuple[str, list[dict]]]) -> None:
    """The package's blind model beside the cross-validated rows, on the complexes it never
    trained on (the blind retraining's rule in benchmarks/notebook/performance.md compares them
    there)."""
    trained_on = set(learned.shipped_model("blind")[1]["training_complexes"])
    unseen = [n for n in sorted(pools) if n not in trained_on]
    if not unseen:
        return
    shipped = {n: shipped_first(pools[n]) for n in unseen}
    head = f"on the {len(unseen)} complexes the package's model never saw"
    print(f"\n| {head} | top 1 / 5 / 10 / 100 | MRR |\n|---|---|---|")
    print(f"| the package's blind model | {summary(shipped)} |")
    for label, runs in rows:
        same = mean_summary([{n: g[n] for n in unseen} for g in runs])
        print(f"| {label}, cross-validated | {same} |")


def learning_curve(pools: dict, sizes: list[int], repeats: int, params: dict, spec: tuple) -> None:
    """Held-out successes when each fold's model trains on only ``sizes`` complexes drawn
    from the other folds (seeded), means over ``repeats`` shufflings: whether more training
    complexes of the same kind would still lift the ranking."""
    names = sorted(pools)
    rows = {n: learned.feature_matrix(pools[n], spec) for n in names}
    print(f"| training complexes per fit ({len(names)} pools, 5 folds × {repeats}) "
          "| top 1 / 5 / 10 / 100 | MRR |\n|---|---|---|")  # fmt: skip
    for size in sizes:
        runs = []
        for shuffle in range(repeats):
            draw, got = np.random.default_rng(100 + shuffle), {}
            for held in folds(names, 5, shuffle):
                rest = [n for n in names if n not in held]
                chosen = [str(n) for n in draw.choice(rest, min(size, len(rest)), replace=False)]
                models = fit(pools, chosen, params, 1, spec)
                for n in held:
                    got[n] = firsts(pools[n], sum(m.predict(rows[n]) for m in models))
            runs.append(got)
        print(f"| {size} | {mean_summary(runs)} |", flush=True)


def export(
    path: Path, pools: dict, params: dict, seeds: int, cv: str, spec: tuple, radius: float = 0.0
) -> None:
    """The ranker fitted on every pool of ``pools``, written as the package reads it, with
    its diversity step (``radius`` Å over the first :data:`HEAD`; none for 0)."""
    import lightgbm

    names = sorted(pools)
    models = fit(pools, names, params, seeds, spec)
    # a stored pool: the first training complex's first representatives (the package's
    # trees must order them as LightGBM does)
    check = learned.feature_matrix(pools[names[0]], spec)[:64]
    record = {
        "what": f"blind ranking learned on training complexes (LightGBM {params['objective']})",
        "command": "python benchmarks/blind_learned.py POOLS --export PATH",
        "lightgbm": lightgbm.__version__,
        "features": [list(f) for f in spec],
        "training_complexes": names,
        "params": params,
        "chosen_by": cv,
        "seeds": list(range(seeds)),
        "label": LABELS[LABEL[0]],
        "check": {
            "pool": names[0],
            "rows": check.tolist(),
            "predictions": sum(m.predict(check) for m in models).tolist(),
        },
        **({"diversity": {"radius_a": radius, "head": HEAD}} if radius else {}),
        "trees": learned.trees_from_lightgbm([m.booster_.dump_model() for m in models]),
    }
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n")
    print(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB, {len(names)} complexes)")


def shipped_first(pool: dict[str, np.ndarray]) -> int | None:
    """The rank of the first acceptable representative in the package's blind order (its
    trees, then its diversity step if it has one)."""
    key = learned.learned_key(pool, "blind")
    ranked = model_diversity(pool_marks(pool), np.lexsort((np.arange(len(key)), -key)), "blind")
    return first_hit(pool["label"][ranked] >= 1)


def evaluate(pools: dict) -> None:
    """The shipped blind model on ``pools``, next to soft_consensus, dfire and LightDock."""
    rows = {}
    for name, pool in pools.items():
        folder = SHARED / ("bench" if (SHARED / "bench" / name).is_dir() else "bench5") / name
        published = lightdock_published(folder, "lightdock_bm5_BLIND.list")
        rows[name] = (
            baseline(pool, "dfire"), baseline(pool, "soft_consensus"),
            shipped_first(pool),
            published, first_hit(pool["label"] >= 1),
        )  # fmt: skip
    print("| complex | dfire | soft_consensus | learned | LightDock top 10 | pool |")
    print("|---|---|---|---|---|---|")
    for name, (by_dfire, by_soft, by_model, pub, pool_ok) in rows.items():
        lightdock = "–" if pub is None else ("yes" if pub[10] else "no")
        cells = ["–" if r is None else str(r) for r in (by_dfire, by_soft, by_model)]
        print(f"| {name} | {' | '.join(cells)} | {lightdock} | {'yes' if pool_ok else 'no'} |")
    print("\n| ranking | top 1 / 5 / 10 / 100 | MRR |\n|---|---|---|")
    for i, label in enumerate(("dfire", "soft_consensus", "learned")):
        print(f"| {label} | {summary({n: r[i] for n, r in rows.items()})} |")
    pubs = [r[3] for r in rows.values() if r[3] is not None]
    tops = " / ".join(str(sum(p[n] for p in pubs)) for n in (1, 5, 10))
    print(f"| LightDock published ({len(pubs)} complexes) | {tops} / – | – |")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path, nargs="?", help="training pools")
    p.add_argument("--complexes", nargs="*", help="only these pools")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="LightGBM threads per fit")
    p.add_argument("--repeats", type=int, default=1, help="shufflings of the folds")
    p.add_argument("--params", help="LightGBM parameters as JSON (default: cross-validated)")
    p.add_argument("--chosen-by", default="given", help="how --params were chosen (recorded)")
    p.add_argument(
        "--label", choices=("capri", "dockq"), default="capri",
        help="train on CAPRI classes or on DockQ in tenths (success is judged by CAPRI)",
    )  # fmt: skip
    p.add_argument("--export", type=Path, help="write the ranker fitted on every pool here")
    p.add_argument("--linear", action="store_true", help="also cross-validate a linear model")
    p.add_argument("--evaluate", type=Path, help="apply the shipped model to these pools")
    p.add_argument(
        "--curve", nargs="+", type=int, metavar="N",
        help="learning curve: held-out successes with N training complexes per fit "
        "(--params, default the shipped model's; the first of --features) and stop",
    )  # fmt: skip
    p.add_argument(
        "--archive", type=Path,
        help="write each pool's features and labels here (<C>.npz; :func:`archive`) and stop",
    )  # fmt: skip
    p.add_argument(
        "--objectives", nargs="+", choices=("lambdarank", "rank_xendcg"),
        help="only GRID's sets with these LightGBM objectives",
    )  # fmt: skip
    p.add_argument(
        "--diversity", nargs="+", type=float,
        help="diversity radii (Å, 0: none) to cross-validate (default: DIVERSITY); with "
        "--params the one to export (default 0: none)",
    )  # fmt: skip
    p.add_argument(
        "--features", nargs="+", choices=sorted(FEATURE_SETS), default=["shipped"],
        help="feature sets to cross-validate (with --params: the one to export)",
    )  # fmt: skip
    args = p.parse_args(argv)
    if args.curve and min(args.curve) < 1:
        p.error(f"--curve: training complexes per fit must be at least 1, not {min(args.curve)}")
    LABEL[0] = "label" if args.label == "capri" else "dockq_label"
    LINEAR[0] = args.linear
    THREADS[0] = args.threads
    if args.evaluate:
        evaluate(load(args.evaluate, args.complexes))
        return
    pools = load(args.pools, args.complexes)
    if args.curve:
        shipped = learned.shipped_model("blind")[1]["params"]
        params = json.loads(args.params) if args.params else shipped
        learning_curve(pools, args.curve, args.repeats, params, FEATURE_SETS[args.features[0]])
        return
    if args.archive:
        args.archive.mkdir(parents=True, exist_ok=True)
        for name, features in pools.items():
            archive(features, args.archive / f"{name}.npz")
        print(f"archived {len(pools)} pools in {args.archive}")
        return
    given = json.loads(args.params) if args.params else None
    one = len(args.features) == 1 and len(args.diversity or [0.0]) == 1
    if given is not None and one and args.export:
        # the parameters, features and radius given: exported as they are
        params, how, chosen_set = given, args.chosen_by, args.features[0]
        radius = (args.diversity or [0.0])[0]
    else:  # cross-validated: over GRID (or the parameters given), the feature sets and radii
        k = min(args.folds, len(pools))
        radii = args.diversity or list(DIVERSITY)
        grid = [given] if given is not None else [
            g for g in GRID if not args.objectives or g["objective"] in args.objectives
        ]  # fmt: skip
        params, chosen_set, radius = cross_validate(
            pools, k, args.seeds, args.repeats, tuple(args.features), tuple(radii), grid
        )
        over = f"the given parameters ({args.chosen_by})" if given else "GRID"
        if given is None and args.objectives:
            over += f" ({', '.join(args.objectives)})"
        how = (
            f"{k}-fold cross-validation by complex, {args.repeats} shuffling(s), {args.seeds} "
            f"seed(s), over {over}, the feature sets {', '.join(args.features)} and the "
            f"diversity radii {', '.join(f'{r:g}' for r in radii)} Å, on {len(pools)} pools"
        )
    if args.export:
        export(args.export, pools, params, args.seeds, how, FEATURE_SETS[chosen_set], radius)


if __name__ == "__main__":
    main()
