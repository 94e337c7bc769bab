"""Leave-one-out test of fitted rankings on the twenty blind dockings of blind_accuracy.py.

Per cluster representative of every finished blind docking (``<out>/<mode>/<complex>/``):
DFIRE score, PISA and pyDock (cpydock) re-scores, LightDock's vdw, the population of
``analysis.ranking``, the number of receptor–ligand C-alpha pairs within 10 Å, and DockQ
against the bound reference (cached in ``features.npz`` beside each docking). Each feature is
turned into its within-complex standard score (or, with ``--ranks``, its within-complex
percentile), and a logistic model of "acceptable or better" (DockQ >= 0.23), each complex's
positives and negatives weighted to equal totals, is fitted on nineteen complexes and ranks
the twentieth. Printed: success at top 1 / 5 / 10 / 100 summed over the twenty held-out
complexes, per feature set, next to DFIRE's, with the fitted weights' mean and spread.

Nothing here is used by sparkledock's ranking stage: it measures whether a fitted
combination of these features would beat the parameter-free methods (it did not; see
benchmarks/notebook/performance.md).

Usage:
    python benchmarks/ranking_loo.py [--out blind_accuracy] [--ranks]
        score+pisa score+pisa+logpop+cpydock ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from blind_accuracy import ACCEPTABLE, EVAL_TOPS, final_glowworms, finished, inputs
from lab_rankings import zscore
from sparkledock.analysis import ranking
from sparkledock.analysis.features import rescore
from sparkledock.analysis.models import complex_coordinates
from sparkledock.analysis.quality import pose_quality, quality_reference

CONTACT_A = 10.0


def ca_contacts(setup, poses: np.ndarray, chunk: int = 200) -> np.ndarray:
    """Receptor–ligand C-alpha (C4') pairs within :data:`CONTACT_A` of every pose."""
    names = [p.atoms.atom_name.astype(str) for p in (setup.receptor, setup.ligand)]
    select = np.concatenate([(n == "CA") | (n == "C4'") for n in names])
    n_rec = int(select[: len(names[0])].sum())
    out = np.empty(len(poses))
    for s in range(0, len(poses), chunk):
        xyz = complex_coordinates(setup, poses[s : s + chunk], select=select)
        d2 = ((xyz[:, :n_rec, None, :] - xyz[:, None, n_rec:, :]) ** 2).sum(-1)
        out[s : s + chunk] = (d2 < CONTACT_A**2).sum(axis=(1, 2))
    return out


def features(folder: Path, out: Path, steps: int) -> dict[str, np.ndarray]:
    """The representatives' features of one finished docking (cached in features.npz)."""
    cache = out / "features.npz"
    if cache.is_file():
        return dict(np.load(cache))
    setup, poses, scores, rep = final_glowworms(out, steps)
    reference = quality_reference(setup, inputs(folder)["reference"])
    marks = ranking.landmarks(setup, poses, ranking.landmark_atoms(setup))
    f = {
        "score": scores[rep],
        "population": ranking.population(marks[rep], marks),
        "dockq": pose_quality(reference, setup, poses[rep])["dockq"],
        "ca_contacts": ca_contacts(setup, poses[rep]),
    }
    for function in ("cpydock", "pisa", "vdw"):
        f[function] = rescore(setup, poses[rep], function)
    np.savez(cache, **f)
    return f


def _percentile(values: np.ndarray) -> np.ndarray:
    r = np.argsort(np.argsort(values, kind="stable"), kind="stable")
    return r / max(1, len(values) - 1) - 0.5


def design(f: dict[str, np.ndarray], names: list[str], ranks: bool) -> np.ndarray:
    """Within-complex standard scores (or percentiles) of the named features."""
    derived = {
        "logpop": lambda: np.log1p(f["population"]),
        "logcont": lambda: np.log1p(f["ca_contacts"]),
    }
    norm = _percentile if ranks else zscore
    return np.stack([norm(derived[n]() if n in derived else f[n]) for n in names], axis=1)


def fit(train: list[dict], names: list[str], ranks: bool, l2: float = 1e-2) -> np.ndarray:
    """Weights of a logistic model of acceptability, complexes' classes weighted equally."""
    x = np.concatenate([design(f, names, ranks) for f in train])
    y = np.concatenate([f["dockq"] >= ACCEPTABLE for f in train]).astype(float)
    w = np.concatenate(
        [
            np.where(good, 1.0 / max(1, good.sum()), 1.0 / len(good))
            for good in (f["dockq"] >= ACCEPTABLE for f in train)
        ]
    )

    def loss(b: np.ndarray) -> float:
        z = x @ b[:-1] + b[-1]
        return float((w * (np.logaddexp(0, z) - y * z)).sum() + l2 * (b[:-1] ** 2).sum())

    return minimize(loss, np.zeros(len(names) + 1), method="L-BFGS-B").x[:-1]


def hits(f: dict[str, np.ndarray], key: np.ndarray) -> np.ndarray:
    """Success at each of EVAL_TOPS when ranking by ``key`` (ties by score)."""
    order = np.lexsort((np.arange(len(key)), -f["score"], -key))
    good = f["dockq"][order] >= ACCEPTABLE
    return np.array([good[:n].any() for n in EVAL_TOPS])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="feature sets, e.g. score+pisa+logpop")
    parser.add_argument("--out", type=Path, default=Path("blind_accuracy"))
    parser.add_argument("--scoring-mode", default="fast")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--ranks", action="store_true", help="percentiles, not standard scores")
    args = parser.parse_args()
    data = {
        folder.name: features(folder, out, args.steps)
        for folder, out in finished(args.out, args.scoring_mode)
    }
    tops = " / ".join(map(str, EVAL_TOPS))
    ceiling = sum(bool((f["dockq"] >= ACCEPTABLE).any()) for f in data.values())
    print(f"{len(data)} blind dockings, an acceptable representative in {ceiling}")
    print(f"| ranking | LOO top {tops} | weights (mean ± sd over the folds) |")
    print("|---|---|---|")
    dfire = sum(hits(f, f["score"]) for f in data.values())
    print(f"| dfire (nothing fitted) | {' / '.join(map(str, dfire))} | |")
    for spec in args.sets:
        names = spec.split("+")
        total, weights = np.zeros(len(EVAL_TOPS), dtype=int), []
        for held in data:
            b = fit([data[c] for c in data if c != held], names, args.ranks)
            weights.append(b)
            total += hits(data[held], design(data[held], names, args.ranks) @ b)
        mean, sd = np.mean(weights, axis=0), np.std(weights, axis=0)
        shown = ", ".join(f"{n} {m:+.2f}±{s:.2f}" for n, m, s in zip(names, mean, sd, strict=True))
        print(f"| {spec} | {' / '.join(map(str, total))} | {shown} |", flush=True)


if __name__ == "__main__":
    main()
