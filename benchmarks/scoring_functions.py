"""LightDock's other scoring functions: parity with LightDock 0.9.4 and speed per thread, side
by side in one run.

For each function and complex: sparkledock's numba scores of the complex's golden poses
(../shared/bench/<C>/golden_dfire.json, 64 poses from LightDock's own setup) against
LightDock's, without and with the complex's restraints (max relative difference), and
evaluations per second on one thread against LightDock's own evaluation (conformers and
scoring, ``benchmarks/lightdock_eval.py``).

    python benchmarks/scoring_functions.py --lightdock-python /path/to/ld-venv/bin/python \
        [--functions vdw] [--complexes 2X9A 1RKE 4GAM] [--write-golden tests/data/golden_scoring]

``--complexes`` may name ``1DIZ``: LightDock's own protein–DNA example (its regression case,
in tests/data/lightdock_regression), scored on its 75 starting poses.
``--write-golden`` also stores LightDock's scores of the poses (for the tests' parity checks).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from sparkledock.io.lightdock import load_setup
from sparkledock.io.restraints import read_restraints
from sparkledock.molecule.system import Partner
from sparkledock.scoring import get_scoring, to_lightdock

HERE = Path(__file__).resolve().parent


def lightdock_scores(
    python: str,
    setup_dir: Path,
    poses: np.ndarray,
    function: str,
    restraints: Path | None,
    rigid: bool = False,
) -> tuple[np.ndarray, float]:
    """LightDock's scores of ``poses`` and its seconds per evaluation (one thread)."""
    with tempfile.TemporaryDirectory() as tmp:
        pose_file = Path(tmp) / "poses.npy"
        np.save(pose_file, poses)
        cmd = [python, str(HERE / "lightdock_eval.py"), str(setup_dir), str(pose_file)]
        if restraints:
            cmd.append(str(restraints))
        cmd += ["--scoring", to_lightdock(function)] + (["--rigid"] if rigid else [])
        out = subprocess.run(
            cmd,
            check=True,
            capture_output=True,
            text=True,
            cwd=tmp,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return np.array(result["scores"]), float(result["seconds_per_eval"])


#: LightDock's protein-DNA regression case (tests/data/lightdock_regression), by this name.
DNA_EXAMPLE = "1DIZ"


def dna_example(folder: Path) -> tuple[Path, Path, np.ndarray]:
    """(folder with restraints.list, setup folder, starting poses) of the 1DIZ example."""
    import shutil

    data = HERE.parent / "tests" / "data" / "lightdock_regression"
    for path in (data / "1DIZ").iterdir():
        shutil.copy(path, folder)
    for name in ("setup.json", "restraints.list"):
        shutil.copy(data / "dna_restraints" / name, folder)
    poses = np.concatenate(
        [
            np.loadtxt(data / c / "init" / "initial_positions_0.dat")
            for c in ("dna_short", "dna_restraints")
        ]
    )
    return folder, folder, poses


def rate(fn, poses: np.ndarray, repeats: int = 3) -> float:
    """Best-of-``repeats`` evaluations per second."""
    fn(poses[:2])  # compile / warm up
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn(poses)
        best = min(best, time.perf_counter() - start)
    return len(poses) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--functions", nargs="+", default=["vdw"])
    parser.add_argument("--complexes", nargs="+", default=["2X9A", "1RKE", "4GAM"])
    parser.add_argument("--lightdock-python", required=True)
    parser.add_argument("--timing-poses", type=int, default=512)
    parser.add_argument("--write-golden", type=Path)
    args = parser.parse_args()

    print(
        f"# machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}, numba {numba.__version__}"
    )
    header = [
        "function",
        "complex",
        "max rel diff",
        "max rel diff (restraints)",
        "evals/s 1T",
        "LightDock evals/s",
        "x LightDock/thread",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in args.functions:
        function = get_scoring(name)
        for cname in args.complexes:
            if cname == DNA_EXAMPLE:
                cdir, setup_dir, poses = dna_example(Path(tempfile.mkdtemp()))
            else:
                cdir = args.bench / cname
                setup_dir = cdir / "lightdock_setup"
                gold = json.loads((cdir / "golden_dfire.json").read_text())
                poses = np.array([p for case in gold["cases"] for p in case["poses"]])
            setup = load_setup(setup_dir)
            rigid = getattr(function, "rigid_only", False)
            receptor, ligand = setup.receptor, setup.ligand
            if rigid:  # (LightDock refuses normal modes with these functions)
                receptor, ligand = Partner.rigid(receptor.atoms), Partner.rigid(ligand.atoms)
                poses = poses[:, :7]
            diffs, record = [], {}
            ld_rate = None
            for restrained in (False, True):
                rpath = cdir / "restraints.list" if restrained else None
                ref, seconds = lightdock_scores(
                    args.lightdock_python, setup_dir, poses, name, rpath, rigid
                )
                ld_rate = ld_rate or 1.0 / seconds
                model = function.prepare(
                    receptor, ligand, read_restraints(rpath) if rpath else None
                )
                ours = function.score(model, poses, threads=1)
                diffs.append(np.max(np.abs(ours - ref) / np.maximum(np.abs(ref), 1e-300)))
                record["restraints" if restrained else "plain"] = ref.tolist()
            timing = np.repeat(poses, -(-args.timing_poses // len(poses)), axis=0)
            model = function.prepare(receptor, ligand, None)
            ours_rate = rate(lambda p, m=model, f=function: f.score(m, p, threads=1), timing)
            row = [
                name,
                cname,
                f"{diffs[0]:.1e}",
                f"{diffs[1]:.1e}",
                f"{ours_rate:,.0f}",
                f"{ld_rate:,.1f}",
                f"{ours_rate / ld_rate:,.1f}",
            ]
            print("| " + " | ".join(row) + " |", flush=True)
            if args.write_golden and cname != DNA_EXAMPLE:
                args.write_golden.mkdir(parents=True, exist_ok=True)
                out = {
                    "function": name,
                    "complex": cname,
                    "lightdock_version": "0.9.4",
                    "poses": f"../shared/bench/{cname}/golden_dfire.json (all cases, in order)",
                    "restraints": f"../shared/bench/{cname}/restraints.list",
                    "rigid": rigid,
                    "scores": record,
                }
                path = args.write_golden / f"{name}_{cname}.json"
                path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
