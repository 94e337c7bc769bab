"""Pilot: does re-scoring after a short restrained minimisation lift the acceptable
representatives of a blind docking?

Near-native rigid-body poses of unbound partners clash in their side chains, which DFIRE
punishes (benchmarks/notebook/performance.md, "Blind docking, second pass"). Here the first
``--top``
representatives of a finished blind docking in ``soft_consensus`` order, and every acceptable
one below them, are written as models, minimised in vacuum with their C-alpha atoms held
(``refine.refine_model`` with ``--iterations`` vacuum steps, no implicit-solvent stage), and
re-scored by DFIRE, ``dfire_soft`` and MJ3h on their heavy atoms. Printed: where the
acceptable ones (DockQ of the docked pose >= 0.23) stand among the relaxed set, in the
``soft_consensus`` order before and after. Resumable (``<out>/<complex>/results.json``).

Usage:
    python benchmarks/relax_rescore.py --blind blind/fast --complex 3BX7 [--top 40]
        [--iterations 200] [--threads 2] [--out relax_rescore]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from blind_accuracy import ACCEPTABLE, final_glowworms, folders
from ranking_consensus import features
from sparkledock.analysis import ranking
from sparkledock.analysis.models import complex_atoms, write_models
from sparkledock.analysis.refine import refine_model
from sparkledock.fileutil import atomic_write_text
from sparkledock.io.lightdock import format_lightdock_pdb
from sparkledock.molecule.structure import hydrogen_mask, read_structure
from sparkledock.workflow.lightdock_tools import complex_score

FUNCTIONS = ("dfire", "dfire_soft", "mj3h")


def consensus_order(scores: dict[str, np.ndarray]) -> np.ndarray:
    """The representatives in ``dock``'s blind order (``soft_consensus``), best first."""
    return ranking.order("soft_consensus", {**scores, "score": scores["dfire"]})


def relaxed_scores(setup, pose: np.ndarray, work: Path, iterations: int, threads: int) -> dict:
    """Minimise one pose's model and re-score it (heavy atoms, partners split by chain)."""
    atoms = complex_atoms(setup)
    rec_chains = set(atoms.chain.astype(str)[: len(setup.receptor.atoms)])
    lig_chains = set(atoms.chain.astype(str)[len(setup.receptor.atoms) :])
    model, relaxed = work / "model.pdb", work / "relaxed.pdb"
    write_models(setup, pose[None], [model])
    refined = refine_model(
        model, relaxed, lig_chains, max_iterations=iterations, solvent_iterations=0,
        threads=threads,
    )  # fmt: skip
    heavy = read_structure(relaxed)
    heavy = heavy.select(~hydrogen_mask(heavy))
    chains = heavy.chain.astype(str)
    parts = {}
    for key, kept in (("rec", rec_chains), ("lig", lig_chains)):
        parts[key] = work / f"{key}.pdb"
        parts[key].write_text(format_lightdock_pdb(heavy.select(np.isin(chains, list(kept)))))
    scores = {name: complex_score(name, parts["rec"], parts["lig"]) for name in FUNCTIONS}
    return {"after": scores, "clashes": [refined.clashes_before, refined.clashes_after]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blind", type=Path, required=True, help="blind_accuracy's <out>/<mode>")
    parser.add_argument("--complex", required=True)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--out", type=Path, default=Path("relax_rescore"))
    args = parser.parse_args()
    docking = args.blind / args.complex
    f = features(folders([args.complex])[0], docking, args.steps)
    order = consensus_order(f)
    picked = list(order[: args.top]) + [i for i in order[args.top :] if f["dockq"][i] >= ACCEPTABLE]
    setup, poses, _, rep = final_glowworms(docking, args.steps)
    work = args.out / args.complex
    work.mkdir(parents=True, exist_ok=True)
    record = work / "results.json"
    done = json.loads(record.read_text()) if record.is_file() else {}
    for n, i in enumerate(picked):
        if str(i) in done:
            continue
        start = time.perf_counter()
        entry = relaxed_scores(setup, poses[rep[i]], work, args.iterations, args.threads)
        entry.update(
            rank=int(np.flatnonzero(order == i)[0]) + 1,
            dockq=float(f["dockq"][i]),
            before={name: float(f[name][i]) for name in FUNCTIONS},
            seconds=time.perf_counter() - start,
        )
        done[str(i)] = entry
        atomic_write_text(record, json.dumps(done) + "\n")
        print(f"{n + 1}/{len(picked)} rank {entry['rank']}: DockQ {entry['dockq']:.2f}, "
              f"clashes {entry['clashes']}, {entry['seconds']:.0f} s", flush=True)  # fmt: skip
    ids = sorted(done, key=lambda k: done[k]["rank"])
    good = np.array([done[k]["dockq"] >= ACCEPTABLE for k in ids])
    for stage in ("before", "after"):
        scores = {name: np.array([done[k][stage][name] for k in ids]) for name in FUNCTIONS}
        places = np.argsort(consensus_order(scores)) + 1
        print(f"{stage} relaxing: acceptable at {places[good].tolist()} of {len(ids)} "
              "(soft_consensus)")  # fmt: skip
    seconds = [done[k]["seconds"] for k in ids]
    gain = np.array([done[k]["after"]["dfire"] - done[k]["before"]["dfire"] for k in ids])
    print(f"DFIRE gain: mean {gain.mean():+.1f}, acceptable {np.round(gain[good], 1).tolist()}; "
          f"{np.mean(seconds):.0f} s per model "
          f"({min(seconds):.0f}-{max(seconds):.0f})")  # fmt: skip


if __name__ == "__main__":
    main()
