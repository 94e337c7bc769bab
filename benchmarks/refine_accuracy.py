"""Clashes and DockQ of docked models before and after LightDock's ``-min`` minimiser and
OpenMM refinement, with the time per model.

For each finished docking of ``dock_accuracy.py`` (``<acc>/<mode>/<complex>``: its setup,
``ranking.csv`` and ``top_<n>.pdb``), each of the top models (10 by default):

- as docked: inter-chain heavy-atom pairs closer than 2 Å (``refine.interface_clashes``) and
  DockQ against the bound reference;
- ``-min``: LightDock's local minimisation (``gso.minimize_best``: SciPy's Powell, at most 5
  iterations, xtol 0.5, ftol 1e-4, over the whole pose vector, modes included) of the model's
  pose on the docking's own scoring function (DFIRE with its restraints), as ``-min`` applies
  it to a swarm's best glowworm at each step: the score before and after, clashes, DockQ;
- ``--refine``: ``refine.refine_model`` (PDBFixer, Amber ff99SB-ILDN, vacuum then OBC
  implicit solvent, C-alpha restraints): clashes, DockQ of the refined model.

Resumable model by model: each complex's numbers go to ``<out>/<complex>.json`` as each model
is done (``--fresh`` redoes them; a larger ``--top`` adds the missing models).

Usage:
    python benchmarks/refine_accuracy.py --acc dock_accuracy/fast [--complexes 2X9A ...]
        [--top 10] [--threads 2] [--out refine_accuracy] [--skip-refine] [--fresh]
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import time
from pathlib import Path

import numpy as np

from sparkledock.analysis.evaluate import evaluate
from sparkledock.analysis.models import write_models
from sparkledock.analysis.refine import interface_clashes, refine_model
from sparkledock.engine.context import setup_restraints
from sparkledock.engine.gso import minimize_best
from sparkledock.fileutil import atomic_write_text
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.setupdir import SetupDir
from sparkledock.molecule.structure import read_structure
from sparkledock.scoring.prepared import prepare_scoring

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"


def ligand_chains(model: Path, setup) -> set[str]:
    """The ligand's chains in a written model: those the receptor does not have."""
    receptor = set(setup.receptor.atoms.chain.astype(str))
    return set(read_structure(model).chain.astype(str)) - receptor


def one_complex(docking: Path, reference: Path, out: Path, args: argparse.Namespace) -> dict:
    """The table rows of one docking's top models (see the module docstring)."""
    record = out / f"{docking.name}.json"
    rows = list(csv.DictReader((docking / "ranking.csv").open()))[: args.top]
    done = {}
    if record.is_file() and not args.fresh:  # resume model by model
        done = {m["rank"]: m for m in json.loads(record.read_text())["models"]}
        if all(int(row["rank"]) in done for row in rows):
            return {"complex": docking.name, "models": [done[int(r["rank"])] for r in rows]}
    setup = load_setup(docking / "setup")
    steps = json.loads((docking / "accuracy.json").read_text())["steps"]
    scoring = prepare_scoring(setup, restraints=setup_restraints(setup))
    work = out / docking.name
    work.mkdir(parents=True, exist_ok=True)
    models = []
    for row in rows:
        if int(row["rank"]) in done:
            models.append(done[int(row["rank"])])
            continue
        model = docking / row["model"]
        chains = ligand_chains(model, setup)
        data = read_gso_output(SetupDir(setup.path).gso(int(row["swarm"]), steps))
        pose = data.poses[int(row["glowworm"])]
        entry = {
            "rank": int(row["rank"]),
            "score": float(scoring.score(pose[None])[0]),
            "clashes": interface_clashes(read_structure(model), chains),
            "dockq": evaluate(model, reference).dockq,
        }
        start = time.perf_counter()
        poses, scores = minimize_best(
            pose[None, None].copy(), np.array([[entry["score"]]]), scoring.score
        )
        entry["min_s"] = time.perf_counter() - start
        entry["min_score"] = float(scores[0, 0])
        minimised = work / f"min_{row['model']}"
        write_models(setup, poses[0], [minimised])
        entry["min_clashes"] = interface_clashes(read_structure(minimised), chains)
        entry["min_dockq"] = evaluate(minimised, reference).dockq
        if not args.skip_refine:
            refined = refine_model(
                model, work / f"refined_{row['model']}", chains, threads=args.threads
            )
            entry["refine_s"] = refined.seconds
            entry["refine_clashes"] = refined.clashes_after
            entry["refine_dockq"] = evaluate(refined.path, reference).dockq
            entry["refine_dropped"] = refined.dropped_residues
        models.append(entry)
        print(f"{docking.name} rank {entry['rank']}: {entry}", flush=True)
        kept = {**done, **{m["rank"]: m for m in models}}  # beyond --top too
        result = {"complex": docking.name, "models": [kept[k] for k in sorted(kept)]}
        atomic_write_text(record, json.dumps(result, indent=1) + "\n")
    return {"complex": docking.name, "models": models}


def fmt(values: list[float], digits: int = 2) -> str:
    return f"{statistics.mean(values):.{digits}f}" if values else "–"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--acc", type=Path, required=True, help="dock_accuracy.py's <out>/<mode>")
    p.add_argument("--bench", type=Path, default=BENCH)
    p.add_argument("--complexes", nargs="+")
    p.add_argument("--top", type=int, default=10)
    p.add_argument("--threads", type=int, default=None)
    p.add_argument("--out", type=Path, default=Path("refine_accuracy"))
    p.add_argument("--skip-refine", action="store_true", help="only -min")
    p.add_argument("--fresh", action="store_true")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    names = args.complexes or sorted(d.name for d in args.acc.iterdir() if d.is_dir())
    print(
        "| complex | models | clashes docked / -min / refined | DockQ docked / -min / refined "
        "| acceptable docked / -min / refined | score docked → -min | s per model -min / refine |"
    )
    print("|---|---|---|---|---|---|---|")
    every: list[dict] = []
    for name in names:
        docking = args.acc / name
        if not (docking / "accuracy.json").is_file():
            print(f"| {name} | not docked yet | | | | | |")
            continue
        reference = args.bench / name / f"{name}_target.pdb"
        models = one_complex(docking, reference, args.out, args)["models"]
        every += models
        print(row_text(name, models), flush=True)
    if every:
        print(row_text("**all**", every))


def row_text(name: str, models: list[dict]) -> str:
    def col(key: str) -> list[float]:
        return [m[key] for m in models if key in m]

    def ok(key: str) -> str:
        values = col(key)
        return str(sum(v >= 0.23 for v in values)) if values else "–"

    return (
        f"| {name} | {len(models)} | {fmt(col('clashes'), 1)} / {fmt(col('min_clashes'), 1)} / "
        f"{fmt(col('refine_clashes'), 1)} | {fmt(col('dockq'), 3)} / {fmt(col('min_dockq'), 3)} / "
        f"{fmt(col('refine_dockq'), 3)} | {ok('dockq')} / {ok('min_dockq')} / {ok('refine_dockq')} "
        f"| {fmt(col('score'))} → {fmt(col('min_score'))} | {fmt(col('min_s'), 1)} / "
        f"{fmt(col('refine_s'), 1)} |"
    )


if __name__ == "__main__":
    main()
