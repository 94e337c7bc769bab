"""Blind docking accuracy: `sparkledock dock` without restraints on the twenty complexes of
../shared/bench and ../shared/bench5, next to LightDock's own published blind results.

Protocol (LightDock's blind one): no restraints, LightDock's swarm rule over the whole
receptor surface, 200 glowworms, 100 steps, 10 + 10 normal modes; the search on the fast
scoring path (``--scoring-mode fast``, the final glowworms re-scored exactly) unless
``--scoring-mode exact``; the site stage as ``dock`` runs it (``--redock-sites``). Per
complex: the best CAPRI class of ranking.csv's models (the site models first) in the top 1,
5 and 10 (DockQ against the bound reference), the top model's DockQ, the wall time,
and LightDock's published blind success at top 1 / 5 / 10 (``lightdock_bm5_BLIND.list``:
success at top N = fnat >= 0.1 and (L-RMSD <= 10 or i-RMSD <= 4) among its first N models).

Each docking's whole output folder is kept (``<out>/<mode>/<complex>/``: the setup with every
swarm's final glowworms, the clusters, the ranking), so ranking methods and pool ceilings can
be measured on it afterwards without docking again. Resumable: a finished docking leaves
``accuracy.json`` and is not run again (``--fresh`` reruns).

``--evaluate`` docks nothing: on the finished folders it measures every ranking method of
``sparkledock.analysis.ranking`` side by side. Success at top N: a model with DockQ >= 0.23
(acceptable or better) among the method's first N cluster representatives; next to them the
pool ceilings (any representative, any final glowworm with DockQ >= 0.23), from DockQ of
every final glowworm (``analysis.quality``, equal to the DockQ package's; cached in
``quality.npz`` beside each docking). Last, what choosing a method on these complexes is
worth on a new one: per complex, the method that did best on the *other* complexes
(leave one out), and its success on this one.

``--paratope`` docks the complexes whose receptor is an antibody (2VXT, 2W9E, 3V6Z, 4G6J) on
the antibody's CDRs (``dock --paratope``; ``<out>/<mode>-paratope/``), and with
``--evaluate`` measures those dockings, the ``paratope`` ranking among the methods.

Usage:
    python benchmarks/blind_accuracy.py [--complexes 2X9A ...] [--scoring-mode fast exact]
        [--steps 100] [-g 200] [--swarms 0] [--threads N] [--out blind_accuracy] [--fresh]
        [--paratope]
    python benchmarks/blind_accuracy.py --evaluate [--out blind_accuracy] [--scoring-mode fast]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dock_accuracy
import lab_rankings  # noqa: F401  (the research rankings, compared here)
from dock_accuracy import TOPS, fmt_q, inputs, lightdock_published
from sparkledock.analysis import ranking
from sparkledock.analysis.features import rescore
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.analysis.rank import read_cluster_repr
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.setupdir import SetupDir
from sparkledock.molecule.structure import read_structure
from sparkledock.preparation.paratope import cdr_residues

HERE = Path(__file__).resolve().parent
ACCEPTABLE = 0.23
EVAL_TOPS = (1, 5, 10, 100)
SHARED = HERE.parent.parent / "shared"


def folders(names: list[str] | None) -> list[Path]:
    """The complexes' folders in ../shared/bench and ../shared/bench5 (all twenty by default)."""
    found = {
        p.name: p
        for base in (SHARED / "bench", SHARED / "bench5")
        for p in sorted(base.iterdir())
        if p.is_dir()
    }
    if names:
        missing = [n for n in names if n not in found]
        if missing:
            raise SystemExit(f"no such complex: {', '.join(missing)}")
        return [found[n] for n in names]
    return list(found.values())


def finished(out: Path, mode: str) -> list[tuple[Path, Path]]:
    """(complex folder, docking folder) of every finished docking under ``out/mode``."""
    pairs = [(folder, out / mode / folder.name) for folder in folders(None)]
    return [(folder, done) for folder, done in pairs if (done / "accuracy.json").is_file()]


def lightdock_blind(folder: Path) -> dict[int, bool] | None:
    """LightDock's published blind success at top 1 / 5 / 10."""
    return lightdock_published(folder, "lightdock_bm5_BLIND.list")


def run_one(
    folder: Path, mode: str, out: Path, args: argparse.Namespace, paratope: bool = False
) -> dict:
    """Dock one complex blind in one scoring mode, on its antibody's CDRs with ``paratope``
    (or read the result of an earlier run)."""
    return dock_accuracy.run_one(folder, mode, out, args, restrained=False, paratope=paratope)


def antibody(folder: Path) -> bool:
    """Whether the complex's receptor is an antibody (has CDRs: ``setup.paratope``)."""
    return bool(cdr_residues(read_structure(inputs(folder)["receptor"])))


def mode_folder(mode: str, paratope: bool) -> str:
    """``<out>``'s sub-folder of a scoring mode's dockings (``<mode>-paratope`` on CDRs)."""
    return f"{mode}-paratope" if paratope else mode


def final_glowworms(out: Path, steps: int):
    """A finished docking's setup, every swarm's final poses and scores (concatenated) and
    the indices of the cluster representatives among them."""
    setup = load_setup(out / "setup")
    root = SetupDir(out / "setup")
    poses, scores, rep = [], [], []
    for swarm in range(int(setup.config["swarms"])):
        data = read_gso_output(root.gso(swarm, steps))
        ids = set(read_cluster_repr(root.cluster(swarm)))
        poses.append(data.poses)
        scores.append(data.scores)
        rep.append([g in ids for g in range(len(data.scores))])
    rep = np.flatnonzero(np.concatenate(rep))
    return setup, np.concatenate(poses), np.concatenate(scores), rep


def cached(path: Path, key: str, size: int, compute: Callable[[], np.ndarray]) -> np.ndarray:
    """``compute()``, kept in ``path`` (as array ``key``) beside a docking and read back from
    there while it holds ``size`` values."""
    if path.is_file():
        values = np.load(path)[key]
        if len(values) == size:
            return values
    values = compute()
    np.savez(path, **{key: values})
    return values


def rescored(out: Path, setup, poses: np.ndarray, function: str) -> np.ndarray:
    """The representatives' ``poses`` re-scored by ``function`` (cached beside the docking
    ``out`` as ``rescored_<function>.npz``)."""
    return cached(
        out / f"rescored_{function}.npz",
        "scores",
        len(poses),
        lambda: rescore(setup, poses, function),
    )


def evaluate_folder(
    folder: Path, out: Path, steps: int, methods: list[str], reps_only: bool = False
) -> dict:
    """Pool ceilings and each ranking method's successes of one finished docking."""
    setup, poses, scores, rep = final_glowworms(out, steps)
    cache = out / "quality.npz"
    if cache.is_file() and len(np.load(cache)["dockq"]) == len(poses):
        dockq = np.load(cache)["dockq"]
    elif reps_only:  # DockQ of the representatives only (no ceiling over all glowworms)
        reference = quality_reference(setup, inputs(folder)["reference"])
        dockq = np.full(len(poses), np.nan)
        dockq[rep] = pose_quality(reference, setup, poses[rep])["dockq"]
    else:
        dockq = pose_quality(quality_reference(setup, inputs(folder)["reference"]), setup, poses)[
            "dockq"
        ]
        np.savez(cache, dockq=dockq)
    marks = ranking.landmarks(setup, poses, ranking.landmark_atoms(setup))
    features = {"score": scores[rep], "population": ranking.population(marks[rep], marks)}
    wanted = {need for m in methods for need in ranking.NEEDS[m]}
    if "paratope" in wanted:
        cdrs = setup.config.get("paratope") or []
        features["paratope"] = cached(
            out / "paratope_share.npz",
            "share",
            len(rep),
            lambda: ranking.paratope_share(setup, poses[rep], cdrs),
        )
    for function in sorted(wanted & set(ranking.RESCORED)):
        features[function] = rescored(out, setup, poses[rep], function)
    good = dockq[rep] >= ACCEPTABLE
    result = {
        "complex": folder.name,
        "representatives": len(rep),
        "glowworms": len(poses),
        "ceiling_representatives": bool(good.any()),
        "ceiling_glowworms": None if np.isnan(dockq).any() else bool((dockq >= ACCEPTABLE).any()),
        "best_dockq": float(np.nanmax(dockq)),
        "methods": {},
    }
    for method in methods:
        ranked = ranking.order(method, features)
        result["methods"][method] = {str(n): bool(good[ranked[:n]].any()) for n in EVAL_TOPS}
        spread = ranking.diverse(marks[rep], ranked)
        result["methods"][method + "+diverse"] = {
            str(n): bool(good[spread[:n]].any()) for n in EVAL_TOPS
        }
    return result


def evaluate_all(chosen: list[Path], args: argparse.Namespace) -> None:
    mode = mode_folder(args.modes[0], args.paratope)
    head = ["complex", "reps", "ceiling reps", "ceiling all", "best DockQ"]
    methods = [m + suffix for m in args.methods for suffix in ("", "+diverse")]
    head += [f"{m} top 1 / 5 / 10 / 100" for m in methods] + ["LightDock 1 / 5 / 10"]
    what = f"{mode} mode" + (" (antibodies on their CDRs)" if args.paratope else "")
    print(f"# blind, {what}: success = DockQ >= {ACCEPTABLE} among the first N")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    totals: dict[str, dict[int, int]] = {m: dict.fromkeys(EVAL_TOPS, 0) for m in methods}
    ceilings = [0, 0]
    done = 0
    per_complex: list[dict[str, dict[str, bool]]] = []
    for folder in chosen:
        out = args.out / mode / folder.name
        if not (out / "accuracy.json").is_file():
            continue
        r = evaluate_folder(folder, out, args.steps, args.methods, args.reps_only)
        per_complex.append(r["methods"])
        done += 1
        ceilings[0] += r["ceiling_representatives"]
        ceilings[1] += bool(r["ceiling_glowworms"])
        row = [folder.name, str(r["representatives"])]
        row += ["yes" if r["ceiling_representatives"] else "no"]
        all_ceiling = {True: "yes", False: "no", None: "–"}[r["ceiling_glowworms"]]
        row += [all_ceiling, f"{r['best_dockq']:.2f}"]
        for m in methods:
            hits = r["methods"][m]
            row.append(" / ".join("yes" if hits[str(n)] else "–" for n in EVAL_TOPS))
            for n in EVAL_TOPS:
                totals[m][n] += hits[str(n)]
        published = lightdock_blind(folder)
        row.append(" / ".join("yes" if published[n] else "–" for n in TOPS) if published else "–")
        print("| " + " | ".join(row) + " |", flush=True)
    print()
    every = f"{ceilings[1]} of {done}" if not args.reps_only else "not measured (--reps-only)"
    print(f"pool ceiling: {ceilings[0]} of {done} (representatives), {every} (all final glowworms)")
    for m, counts in totals.items():
        shown = " / ".join(str(counts[n]) for n in EVAL_TOPS)
        print(f"{m}: top 1 / 5 / 10 / 100: {shown} of {done}")
    if done > 1:
        shown = " / ".join(str(n) for n in loo_selection(per_complex, methods)[0])
        print(f"method chosen without the complex (leave one out): {shown} of {done}")


def loo_selection(
    per_complex: list[dict[str, dict[str, bool]]], methods: list[str]
) -> tuple[list[int], list[str]]:
    """Success at each of EVAL_TOPS when, for every complex, the method is the one that did
    best on all the *other* complexes (most top-10 successes, then top 1, 5, 100; ties to the
    first listed): what picking the best method on these complexes is worth on a new one.
    Also the method picked for each complex."""

    def merit(m: str, rows: list[dict[str, dict[str, bool]]]) -> tuple[int, ...]:
        return tuple(sum(r[m][str(n)] for r in rows) for n in (10, 1, 5, 100))

    totals, picks = [0] * len(EVAL_TOPS), []
    for i, held in enumerate(per_complex):
        rest = per_complex[:i] + per_complex[i + 1 :]
        best = max(methods, key=lambda m: (merit(m, rest), -methods.index(m)))
        picks.append(best)
        for j, n in enumerate(EVAL_TOPS):
            totals[j] += held[best][str(n)]
    return totals, picks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--complexes", nargs="+")
    parser.add_argument(
        "--scoring-mode", nargs="+", default=["fast"], choices=["exact", "fast"], dest="modes"
    )
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("-g", "--glowworms", type=int, default=200)
    parser.add_argument("--swarms", type=int, default=0, help="0: LightDock's rule")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument(
        "--redock-sites",
        type=int,
        default=None,
        help="sites docked again (dock --redock-sites; default: the protocol's, 10)",
    )
    parser.add_argument("--out", type=Path, default=Path("blind_accuracy"))
    parser.add_argument("--fresh", action="store_true", help="rerun finished dockings")
    parser.add_argument(
        "--evaluate", action="store_true", help="measure ranking methods on finished dockings"
    )
    parser.add_argument(
        "--reps-only",
        action="store_true",
        help="DockQ of the cluster representatives only (faster; no all-glowworm ceiling)",
    )
    parser.add_argument(
        "--paratope",
        action="store_true",
        help="the antibody complexes only, docked on the antibody's CDRs (dock --paratope; "
        "into <out>/<mode>-paratope)",
    )
    parser.add_argument(
        "--methods",
        nargs="+",
        default=None,
        choices=list(ranking.NEEDS),
        help="ranking methods --evaluate measures (default: all; 'paratope' with --paratope only)",
    )
    args = parser.parse_args()
    if args.methods is None:
        args.methods = [m for m in ranking.NEEDS if args.paratope or m != "paratope"]
    if "paratope" in args.methods and not args.paratope:
        raise SystemExit("--methods paratope ranks dockings made with --paratope")
    chosen = folders(args.complexes)
    if args.paratope:
        chosen = [folder for folder in chosen if antibody(folder)]
    if args.evaluate:
        evaluate_all(chosen, args)
        return

    head = ["complex", "swarms"]
    for mode in args.modes:
        head += [f"{mode} top 1", "top 5", "top 10", "DockQ 1", "best DockQ 10", "wall s"]
    head += ["LightDock top 1 / 5 / 10"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    totals = {mode: dict.fromkeys(TOPS, 0) for mode in [*args.modes, "lightdock"]}
    for folder in chosen:
        row = [folder.name, ""]
        for mode in args.modes:
            where = args.out / mode_folder(mode, args.paratope) / folder.name
            r = run_one(folder, mode, where, args, paratope=args.paratope)
            row[1] = str(r["swarms"])
            row += [r["classes"][str(n)] for n in TOPS]
            row += [fmt_q(r["top1_dockq"]), fmt_q(r["best_dockq"]), f"{r['wall_s']:.0f}"]
            for n in TOPS:
                totals[mode][n] += r["classes"][str(n)] != "incorrect"
        published = lightdock_blind(folder)
        if published:
            row.append(" / ".join("yes" if published[n] else "no" for n in TOPS))
            for n in TOPS:
                totals["lightdock"][n] += published[n]
        else:
            row.append("–")
        print("| " + " | ".join(row) + " |", flush=True)
    print()
    for mode, counts in totals.items():
        shown = " / ".join(str(counts[n]) for n in TOPS)
        print(f"{mode}: acceptable or better in the top 1 / 5 / 10: {shown} of {len(chosen)}")


if __name__ == "__main__":
    main()
