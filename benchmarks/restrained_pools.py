"""Restrained dockings' pools, with every cluster representative's features and quality.

For choosing (on ``../shared/train``) and measuring (on ``../shared/bench`` + ``bench5``) the
restrained protocol: docks each complex with its true-interface restraints under one protocol,
then, per cluster representative of the final step, records its features (the run's score,
the DFIRE energy without restraint terms, ``dfire_soft``, MJ3h, restraint satisfaction,
cluster size and population, swarm) and its quality against the bound reference (fnat,
iRMSD, LRMSD, DockQ, by :mod:`sparkledock.analysis.quality`), and the swarm centres. Rankings
and swarm subsets are then compared offline (``restrained_choice.py``) without docking again.

With ``--blind``, the same without restraints (blind docking's pools: the training data of
the learned ranking, issue 36); the satisfaction features are then absent.

With ``--early-steps``, the pools of earlier snapshots are recorded too (``pool_<step>.npz``,
their glowworms re-scored exactly), so shorter runs can be judged from the same docking.

Resumable: each finished complex leaves ``<out>/<C>/pool.npz`` and ``pool.json`` and is not
docked again; the docking folder itself is removed (``--keep`` keeps it).

Usage:
    python benchmarks/restrained_pools.py --set train [--every 6] [--complexes 1A2K ...]
        [--protocol sparkledock] [--spacing 6] [--scoring-mode fast] [--steps 100] [-g 200]
        [--threads 2] [--blind] [--keep | --keep-setup] [--out pools/train_s6]

Restrained pools are archived without their poses (``--archive DIR``: ``DIR/<C>/pool.npz``
and ``pool.json``, a few tens of KB each, read by ``restrained_choice.py`` and
``restrained_learned.py`` as pool folders), so the restrained ranking can be retrained
without the dockings:
    nice python benchmarks/restrained_pools.py --set train --early-steps \
        --out /work/runs/train_restrained --skip-archived benchmarks/pools/restrained_train
    python benchmarks/restrained_pools.py --archive benchmarks/pools/restrained_train \
        --out /work/runs/train_restrained

The learned ranking's training data (issue 36), blind, the protocol users run, resumable
(on another machine too: the pools already archived in the repository are skipped):
    nice python benchmarks/restrained_pools.py --set train --blind --keep-setup \
        --early-steps --out /work/runs/train_blind --skip-archived benchmarks/pools/blind_train
    nice python benchmarks/blind_learned.py /work/runs/train_blind \
        --archive benchmarks/pools/blind_train
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from dock_accuracy import inputs as complex_inputs
from sparkledock.analysis.cluster import cluster_glowworms
from sparkledock.analysis.features import rescore
from sparkledock.analysis.filter import satisfaction
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.analysis.ranking import landmark_atoms, landmarks, population
from sparkledock.docking import DockOptions, dock
from sparkledock.engine.context import setup_restraints
from sparkledock.engine.spec import SAVE_EVERY
from sparkledock.io.lightdock import load_setup, read_gso_output
from sparkledock.io.setupdir import SetupDir
from sparkledock.molecule.structure import read_structure
from sparkledock.scoring.prepared import prepare_scoring

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"


def complexes(which: str, every: int, names: list[str] | None) -> list[Path]:
    """The complex folders of a set (``train``, ``bench``, ``bench5``, ``twenty``): every
    ``every``-th in name order, or those named."""
    sets = {"train": ["train"], "bench": ["bench"], "bench5": ["bench5"]}
    sets["twenty"] = ["bench", "bench5"]
    folders = sorted(
        (p for s in sets[which] for p in (SHARED / s).iterdir() if p.is_dir()),
        key=lambda p: p.name,
    )
    if names:
        return [p for p in folders if p.name in names]
    return folders[::every]


def pool(folder: Path, out: Path, args: argparse.Namespace) -> dict:
    """Dock one complex and record its pool (or read the record of an earlier run)."""
    record = out / "pool.json"
    if record.is_file():
        return json.loads(record.read_text())
    files = complex_inputs(folder)
    chains = set(read_structure(files["reference"]).chain.astype(str))
    if len(chains) < 2:  # (its pool could not be labelled: refused before docking)
        raise ValueError(f"{files['reference']}: one chain ({''.join(chains)}), no complex")
    work = out / "dock"
    shutil.rmtree(work, ignore_errors=True)
    start = time.perf_counter()
    options = DockOptions(
        steps=args.steps,
        glowworms=args.glowworms,
        swarms=args.swarms,
        threads=args.threads,
        quiet=True,
        protocol=args.protocol,
        scoring_mode=args.scoring_mode,
        swarm_spacing=args.spacing,
        rank_method="dfire",
        redock_sites=0,  # (the search's pool; site_redock.py docks a blind pool's sites)
    )
    restraints = None if args.blind else files["restraints"]
    dock(files["receptor"], files["ligand"], work, restraints=restraints, options=options)
    wall = time.perf_counter() - start
    setup = load_setup(work / "setup")
    for step in args.early_steps:
        if step < args.steps and step % SAVE_EVERY == 0:
            arrays, _ = pool_arrays(setup, files, step, rescore_exactly=True)
            np.savez_compressed(out / f"pool_{step}.npz", **arrays)
    arrays, q = pool_arrays(setup, files, args.steps)
    np.savez_compressed(out / "pool.npz", **arrays)
    result = {
        "complex": folder.name,
        "swarms": len(arrays["centres"]),
        "representatives": len(arrays["score"]),
        "acceptable": int((q["dockq"] >= 0.23).sum()),
        "best_dockq": float(q["dockq"].max()) if len(arrays["score"]) else 0.0,
        "wall_s": wall,
        "protocol": {
            k: getattr(args, k)
            for k in (
                "protocol",
                "spacing",
                "scoring_mode",
                "steps",
                "glowworms",
                "swarms",
                "threads",
                "blind",
            )
        },
    }
    record.write_text(json.dumps(result, indent=1) + "\n")
    if args.keep_setup:  # the partners, modes and masks: enough to rebuild any pose's complex
        for path in [*(work / "setup").glob("swarm_*"), work / "setup" / "init"]:
            shutil.rmtree(path, ignore_errors=True)
    elif not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def pool_arrays(
    setup, files: dict[str, Path], step, rescore_exactly: bool = False, final: int | None = None
):
    """The representatives of every swarm's glowworms at ``step`` (one step, or one per
    swarm), with features and quality; and the quality arrays. Scores are exact: the final
    step's are; an earlier snapshot of a fast search holds fast scores, re-scored here when
    ``rescore_exactly`` (for the swarms whose step is not ``final``)."""
    folder_ = SetupDir(setup.path)
    n_swarms = int(setup.config["swarms"])
    steps = np.broadcast_to(np.asarray(step), (n_swarms,))
    restraints = setup_restraints(setup)  # (None for a blind docking)
    exact = prepare_scoring(setup, restraints=restraints) if rescore_exactly else None
    reps, swarm_of, size, everyone = [], [], [], []
    scores = []
    for swarm in range(n_swarms):
        data = read_gso_output(folder_.gso(swarm, int(steps[swarm])))
        if exact is not None and steps[swarm] != final:
            data = dataclasses.replace(data, scores=exact.score(data.poses))
        clusters = cluster_glowworms(setup, data)
        everyone.append(data.poses)
        for members in clusters:
            reps.append(data.poses[members[0]])
            scores.append(data.scores[members[0]])
            swarm_of.append(swarm)
            size.append(len(members))
    poses = np.array(reps)
    marks_atoms = landmark_atoms(setup)
    marks = landmarks(setup, poses, marks_atoms)
    pop = population(marks, landmarks(setup, np.concatenate(everyone), marks_atoms))
    ref = quality_reference(setup, files["reference"])
    q = pose_quality(ref, setup, poses)
    centres = np.array(
        [
            [float(line[30:38]), float(line[38:46]), float(line[46:54])]
            for line in folder_.swarm_centres.read_text().splitlines()
            if line.startswith(("ATOM", "HETATM"))
        ]
    )
    arrays = {
        "pose": poses,
        "swarm": np.array(swarm_of),
        "score": np.array(scores),
        "dfire": rescore(setup, poses, "dfire"),
        "dfire_soft": rescore(setup, poses, "dfire_soft"),
        "mj3h": rescore(setup, poses, "mj3h"),
        **(
            {
                "satisfaction": satisfaction(setup, poses, restraints),
                "satisfaction_all": satisfaction(setup, poses, restraints, include_passive=True),
            }
            if restraints is not None
            else {}
        ),
        "cluster_size": np.array(size),
        "population": pop,
        "centres": centres,
        **{k: np.asarray(v) for k, v in q.items()},
    }
    return arrays, q


#: What an archived restrained pool leaves out: the poses (27 numbers a representative, only
#: for rebuilding models) and the early snapshots.
UNARCHIVED = ("pose",)


def archive_pools(source: Path, archive: Path) -> list[str]:
    """Every finished pool under ``source`` (``<C>/pool.npz``) written to ``archive/<C>/``
    without :data:`UNARCHIVED` (with its ``pool.json``); a pool already archived with the same
    arrays is left as it is. Returns the complexes written."""
    written = []
    for path in sorted(source.glob("*/pool.npz")):
        out = archive / path.parent.name
        with np.load(path) as data:
            kept = {k: data[k] for k in data.files if k not in UNARCHIVED}
        target = out / "pool.npz"
        if target.is_file():
            with np.load(target) as old:
                if sorted(old.files) == sorted(kept) and all(
                    np.array_equal(old[k], v) for k, v in kept.items()
                ):
                    continue
        out.mkdir(parents=True, exist_ok=True)
        tmp = out / "pool.tmp.npz"
        np.savez_compressed(tmp, **kept)
        tmp.replace(target)
        shutil.copyfile(path.parent / "pool.json", out / "pool.json")
        written.append(path.parent.name)
    return written


def archived(archive: Path, name: str) -> bool:
    """Whether ``name``'s pool is in ``archive``: a blind archive (``<C>.npz``,
    ``blind_learned.py --archive``) or a restrained one (``<C>/pool.npz``)."""
    return (archive / f"{name}.npz").is_file() or (archive / name / "pool.npz").is_file()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--set", default="train", choices=("train", "bench", "bench5", "twenty"))
    p.add_argument("--every", type=int, default=1, help="every N-th complex in name order")
    p.add_argument("--complexes", nargs="*")
    p.add_argument("--protocol", default="sparkledock")
    p.add_argument("--spacing", type=float, default=None)
    p.add_argument("--scoring-mode", default=None)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("-g", "--glowworms", type=int, default=200)
    p.add_argument("-s", "--swarms", type=int, default=0, help="0: the protocol's swarm rule")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--keep", action="store_true", help="keep each docking folder")
    p.add_argument("--blind", action="store_true", help="dock without the restraints")
    p.add_argument(
        "--keep-setup",
        action="store_true",
        help="keep each docking's setup without its swarms' files (a few MB: the pools' poses "
        "can be rebuilt and re-scored from it)",
    )
    p.add_argument(
        "--early-steps",
        type=int,
        nargs="*",
        default=[30, 50, 70],
        help="also record the pools of these snapshots (pool_<step>.npz), re-scored exactly",
    )
    p.add_argument(
        "--skip-archived",
        type=Path,
        help="skip the complexes archived here (<C>.npz, blind_learned.py --archive; or "
        "<C>/pool.npz, --archive): a machine without the earlier pools goes on where the "
        "archives stop",
    )
    p.add_argument(
        "--archive",
        type=Path,
        help="write the finished pools under --out here without their poses, and stop",
    )
    args = p.parse_args(argv)
    if args.archive:
        written = archive_pools(args.out, args.archive)
        print(f"archived {len(written)} pools in {args.archive}")
        return
    print("| complex | swarms | reps | acceptable reps | best DockQ | wall s |")
    print("|---|---|---|---|---|---|")
    for folder in complexes(args.set, args.every, args.complexes):
        if args.skip_archived and archived(args.skip_archived, folder.name):
            continue
        out = args.out / folder.name
        out.mkdir(parents=True, exist_ok=True)
        try:
            r = pool(folder, out, args)
        except Exception as exc:  # one complex's failure is recorded, not fatal
            print(f"| {folder.name} | failed: {type(exc).__name__}: {exc} |", flush=True)
            (out / "failed.txt").write_text(f"{type(exc).__name__}: {exc}\n")
            shutil.rmtree(out / "dock", ignore_errors=True)  # (a failed docking's files)
            continue
        print(
            f"| {r['complex']} | {r['swarms']} | {r['representatives']} | {r['acceptable']} | "
            f"{r['best_dockq']:.3f} | {r['wall_s']:.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())
