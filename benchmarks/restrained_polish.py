"""Does exact polishing of the best restrained models lift the top of the ranking?

Reads dockings kept by ``restrained_pools.py --keep`` (``<pools>/<C>/dock`` and ``pool.npz``),
ranks each pool as ``dock`` ships it (the 40 % filter, then the mean of the ranks by score and
by restraint satisfaction), polishes the top N models with the run's exact scoring function
(:func:`sparkledock.analysis.polish.polish`) and compares, per variant, how many complexes have
an acceptable model (CAPRI) in the top 1 / 5 / 10, the mean reciprocal rank of the first one
and the top model's mean DockQ:

* ``shipped``: the ranking as docked;
* ``polished, same order``: the top N polished in place (does polishing improve the models?);
* ``polished, consensus``: the top N polished, re-ranked among themselves by the same consensus
  over their polished scores and satisfaction;
* ``polished, by score``: the top N polished, re-ranked among themselves by polished score.

Choose on the training complexes only (``--set train`` pools).

Usage:
    python benchmarks/restrained_polish.py /work/runs/polish_train --top 10 20 [--rounds 8]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from dock_accuracy import inputs as complex_inputs
from polish import PolishSteps, polish
from restrained_choice import METHODS, _consensus, acceptable, order
from sparkledock.analysis.filter import satisfaction
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.engine.context import setup_restraints
from sparkledock.io.lightdock import load_setup
from sparkledock.scoring.prepared import prepare_scoring

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
TOPS = (1, 5, 10)


def variants(folder: Path, tops: list[int], steps: PolishSteps) -> tuple[dict, float, int]:
    """Per variant name, (is acceptable, DockQ) of the ranked models; polish seconds; N."""
    with np.load(folder / "pool.npz") as data:
        pool = {k: data[k] for k in data.files}
    setup = load_setup(folder / "dock" / "setup")
    restraints = setup_restraints(setup)
    scorer = prepare_scoring(setup, restraints=restraints)
    ranked = order(pool, METHODS["score+sat"])
    ok, dockq = acceptable(pool), pool["dockq"]
    out = {"shipped": (ok[ranked], dockq[ranked])}
    files = complex_inputs(SHARED / "train" / folder.name)
    reference = quality_reference(setup, files["reference"])
    seconds = 0.0
    for n in tops:
        head = ranked[:n]
        start = time.perf_counter()
        poses, scores = polish(
            lambda p: scorer.score(p, threads=2),
            pool["pose"][head],
            setup.layout,
            steps,
            scores=pool["score"][head],
        )
        seconds = time.perf_counter() - start
        q = pose_quality(reference, setup, poses)
        q_ok = (q["fnat"] >= 0.1) & ((q["lrmsd"] <= 10.0) | (q["irmsd"] <= 4.0))
        rest_ok, rest_q = ok[ranked[n:]], dockq[ranked[n:]]
        out[f"N={n}, polished, same order"] = (
            np.concatenate([q_ok, rest_ok]),
            np.concatenate([q["dockq"], rest_q]),
        )
        part = {
            "score": scores,
            "satisfaction_all": satisfaction(setup, poses, restraints, include_passive=True),
        }
        cons = _consensus(part, METHODS["score+sat"])
        for name, key in (("consensus", cons), ("by score", scores)):
            within = np.lexsort((np.arange(len(head)), -scores, -key))
            out[f"N={n}, polished, {name}"] = (
                np.concatenate([q_ok[within], rest_ok]),
                np.concatenate([q["dockq"][within], rest_q]),
            )
    return out, seconds, len(pool["score"])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path)
    p.add_argument("--top", type=int, nargs="*", default=[10, 20])
    p.add_argument("--rounds", type=int, default=PolishSteps.rounds)
    p.add_argument("--shift", type=float, default=PolishSteps.shift)
    p.add_argument("--turn", type=float, default=PolishSteps.turn)
    p.add_argument("--extent", type=float, default=PolishSteps.extent)
    args = p.parse_args(argv)
    steps = PolishSteps(args.shift, args.turn, args.extent, args.rounds)
    found = args.pools.glob("*/pool.npz")
    folders = sorted(f.parent for f in found if (f.parent / "dock").is_dir())
    results: dict[str, list] = {}
    print(
        "| complex | reps | polish s (largest N) | first acceptable at: "
        + ", ".join(["shipped", *(f"N={n} consensus" for n in args.top)])
        + " |"
    )
    print("|---|---|---|---|")
    for folder in folders:
        got, seconds, reps = variants(folder, args.top, steps)
        firsts = []
        for name, (ok, dq) in got.items():
            results.setdefault(name, []).append((ok, dq))
            if name == "shipped" or name.endswith("consensus"):
                hit = np.flatnonzero(ok)
                firsts.append(str(hit[0] + 1) if len(hit) else "–")
        print(f"| {folder.name} | {reps} | {seconds:.1f} | {', '.join(firsts)} |", flush=True)
    print(f"\n{len(folders)} complexes\n")
    print("| variant | top 1 / 5 / 10 | MRR | mean top-1 DockQ |")
    print("|---|---|---|---|")
    for name, rows in results.items():
        tops = [sum(bool(ok[:n].any()) for ok, _ in rows) for n in TOPS]
        mrr = np.mean([1.0 / (np.flatnonzero(ok)[0] + 1) if ok.any() else 0.0 for ok, _ in rows])
        top1 = np.mean([dq[0] for _, dq in rows])
        print(f"| {name} | {' / '.join(map(str, tops))} | {mrr:.3f} | {top1:.3f} |")


if __name__ == "__main__":
    main()
