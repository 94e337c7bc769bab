"""GPU engine: parity with LightDock, then the SparkleDock configuration timed per complex.

1. Parity (on the device): the golden poses of every shared complex, with and without
   restraints, scored in fp64 (must agree with LightDock 0.9.4 to 1e-9 relative) and fp32 (to
   1e-4 of fp64); and a 5-step GSO run of 2X9A on the device against the numba engine.
   The fast scoring path (``--scoring-mode fast``): the device's fast scores of the same poses
   against the numba fast kernel's (fractions equal, energies within fp32 rounding).
2. Timing: 256 glowworms (the shared setups' count), 100 steps, every swarm at once (starting
   poses are made for all swarms around the setup's swarm centres), per complex and precision:
   seconds per full run (the GSO loop with outputs and checkpoints, after a warm-up run that
   also compiles the fused kernels),
   glowworm-steps per second, the memory plan (swarm groups, predicted peak) and the measured
   peak (``torch.cuda.max_memory_allocated``).

A time budget keeps the whole script inside ``--budget`` seconds (default 540, for a
10-minute device lease): once the measured rate says a full run would not fit, a complex runs
``--short-steps`` steps and its full-run time is extrapolated (marked ``*`` in the table).

Usage (on a CUDA machine; copy ../shared/bench beside it or pass --bench):
    python benchmarks/gpu_bench.py [--bench ../shared/bench] [--device cuda:0]
        [--complexes 2VXT 2X9A ...] [--precisions fp32 fp64] [--modes exact fast protocol]
        [--budget 540] [--json out.json]
Also runs on the CPU (``--device cpu --complexes 2X9A --steps 2``) to check the script.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from sparkledock.backend import Engine
from sparkledock.engine.driver import run_simulation
from sparkledock.io.lightdock import read_gso_output
from sparkledock.scoring.prepared import prepare_scoring

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import BENCH, COMPLEXES, full_setup

ORDER = COMPLEXES


def parity(bench: Path, device: str) -> list[dict]:
    rows = []
    for name in ORDER:
        for restrained in (False, True):
            golden = "golden_dfire_restraints.json" if restrained else "golden_dfire.json"
            data = json.loads((bench / name / golden).read_text())
            poses = np.array([p for c in data["cases"] for p in c["poses"]])
            expected = np.array([s for c in data["cases"] for s in c["scores"]])
            prepared = prepare_scoring(
                bench / name / "lightdock_setup",
                restraints=bench / name / "restraints.list" if restrained else None,
            )
            fp64 = prepared.score(poses, engine=Engine("torch", device, "fp64"))
            fp32 = prepared.score(poses, engine=Engine("torch", device, "fp32"))
            rows.append(
                {
                    "complex": name,
                    "restraints": restrained,
                    "fp64_vs_lightdock": float((abs(fp64 - expected) / abs(expected)).max()),
                    "fp32_vs_fp64": float((abs(fp32 - fp64) / abs(fp64)).max()),
                }
            )
    return rows


def fast_parity(bench: Path, device: str) -> float:
    """Largest relative energy difference of the fast path, device against numba, over every
    complex's golden poses with restraints (fractions must be equal: returns inf if not)."""
    from sparkledock.scoring.dfire import grid, grid_numba

    worst = 0.0
    for name in ORDER:
        data = json.loads((bench / name / "golden_dfire_restraints.json").read_text())
        poses = np.array([p for c in data["cases"] for p in c["poses"]])
        prepared = prepare_scoring(
            bench / name / "lightdock_setup", restraints=bench / name / "restraints.list"
        )
        field = grid.prepare_field(prepared.model, grid.swarm_reach(prepared.model, poses))
        scorer = grid_numba.FastDFIRE(field)
        host = grid_numba.score_poses(field, poses, arrays=scorer.arrays)
        dev = scorer.device_scorer(Engine("torch", device, "fp64"), 2**30).terms(
            torch.as_tensor(poses, device=device)
        )
        for term in ("p_receptor", "p_ligand", "p_membrane"):
            if not np.array_equal(getattr(dev, term).cpu().numpy(), getattr(host, term)):
                return float("inf")
        rel = np.abs(dev.energy.cpu().numpy() - host.energy) / np.maximum(np.abs(host.energy), 1)
        worst = max(worst, float(rel.max()))
    return worst


def gso_parity(bench: Path, device: str, tmp: Path) -> float:
    """Largest pose difference after 5 steps of 2X9A swarms 0 and 65: device vs numba."""
    roots = []
    for label, engine in (("numba", Engine()), ("torch", Engine("torch", device, "fp64"))):
        root = tmp / f"parity_{label}"
        shutil.copytree(bench / "2X9A" / "lightdock_setup", root)
        for path in [root, *root.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        run_simulation(root, 5, swarms=[0, 65], quiet=True, engine=engine)
        roots.append(root)
    worst = 0.0
    for swarm in (0, 65):
        a, b = (read_gso_output(r / f"swarm_{swarm}" / "gso_5.out").poses for r in roots)
        worst = max(worst, float(np.abs(a - b).max()))
    return worst


def protocol_runs(args: argparse.Namespace, device: str, tmp: Path, start: float) -> list[dict]:
    """Whole restrained dockings (``dock`` with its default protocol: restraint-focused
    swarms, fast search, early stopping, the restrained ranking) on the device, timed from
    the structures to the ranked models; complexes that the budget leaves no time for are
    skipped (listed)."""
    from sparkledock.docking import DockOptions, dock

    print("| complex | protocol | swarms | precision | wall s |", flush=True)
    print("|---|---|---|---|---|", flush=True)
    rows = []
    for cx in args.complexes:
        folder = args.bench / cx
        left = args.budget - (time.perf_counter() - start)
        if left < 30:
            print(f"| {cx} | sparkledock | skipped: {left:.0f} s of the budget left | | |")
            continue
        out = tmp / f"{cx}_protocol"
        engine = Engine("torch", device, "fp32")
        t0 = time.perf_counter()
        dock(
            folder / f"{cx}_r_u.pdb",
            folder / f"{cx}_l_u.pdb",
            out,
            restraints=folder / "restraints.list",
            options=DockOptions(quiet=True, engine=engine),
        )
        wall = time.perf_counter() - t0
        swarms = json.loads((out / "setup" / "setup.json").read_text())["swarms"]
        print(f"| {cx} | sparkledock | {swarms} | fp32 | {wall:.1f} |", flush=True)
        rows.append({"complex": cx, "swarms": swarms, "precision": "fp32", "wall_s": wall})
        shutil.rmtree(out, ignore_errors=True)
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--bench", type=Path, default=BENCH)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--complexes", nargs="+", default=ORDER)
    ap.add_argument("--precisions", nargs="+", default=["fp32", "fp64"])
    ap.add_argument(
        "--modes",
        nargs="+",
        default=["exact", "fast", "protocol"],
        choices=["exact", "fast", "protocol"],
        help="protocol: a whole restrained `dock` (sparkledock's default protocol) per complex",
    )
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--short-steps", type=int, default=10)
    ap.add_argument("--budget", type=float, default=540.0, help="seconds for the whole script")
    ap.add_argument("--skip-parity", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    start = time.perf_counter()
    device = args.device
    name = torch.cuda.get_device_name(device) if device.startswith("cuda") else platform.processor()
    print(f"# sparkledock gpu_bench on {name} (torch {torch.__version__})", flush=True)
    result: dict = {"device": name, "torch": torch.__version__, "runs": []}
    tmp = Path(tempfile.mkdtemp(prefix="sparkledock_gpu_"))
    try:
        if not args.skip_parity:
            rows = parity(args.bench, device)
            result["parity"] = rows
            worst64 = max(r["fp64_vs_lightdock"] for r in rows)
            worst32 = max(r["fp32_vs_fp64"] for r in rows)
            drift = gso_parity(args.bench, device, tmp)
            result["gso_pose_drift"] = drift
            fast = fast_parity(args.bench, device) if "fast" in args.modes else 0.0
            result["fast_vs_numba"] = fast
            ok = worst64 < 1e-9 and worst32 < 1e-4 and drift < 1e-6 and fast < 1e-4
            print(
                f"parity: fp64 vs LightDock max rel {worst64:.2e} (<1e-9), fp32 vs fp64 "
                f"{worst32:.2e} (<1e-4), GSO poses after 5 steps vs numba {drift:.1e}, "
                f"fast path vs numba {fast:.1e} (<1e-4, fractions equal): "
                f"{'OK' if ok else 'FAILED'}",
                flush=True,
            )
            if not ok:
                return 1
        # warm-up: CUDA context, allocator, and the torch.compile of each precision's kernel
        warm, _, _ = full_setup(args.bench, "2X9A", tmp / "warm")
        for precision in args.precisions:
            engine = Engine("torch", device, precision)
            run_simulation(warm, 2, swarms=[0, 1], quiet=True, engine=engine)
        runs: list[tuple[str, str]] = [
            ("exact", p) for p in args.precisions if "exact" in args.modes
        ]
        runs += [("fast", "fp64")] if "fast" in args.modes else []
        print(
            "| complex | swarms | mode | precision | steps run | s per 100-step run "
            "| glowworm-steps/s | groups | predicted peak GiB | measured peak GiB |",
            flush=True,
        )
        print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
        rate = None
        for cx in args.complexes:
            for mode, precision in runs:
                root, swarms, glow = full_setup(args.bench, cx, tmp / f"{cx}_{mode}_{precision}")
                work = swarms * glow * args.steps
                left = args.budget - (time.perf_counter() - start)
                steps = args.steps
                if rate is not None and work / rate > 0.8 * left:
                    steps = args.short_steps
                t0 = time.perf_counter()
                run = run_simulation(
                    root,
                    steps,
                    quiet=True,
                    engine=Engine("torch", device, precision),
                    scoring_mode=mode,
                )
                seconds = time.perf_counter() - t0
                rate = swarms * glow * steps / seconds
                full = seconds * args.steps / steps
                plan = run.plan
                peak = (run.peak_bytes or 0) / 2**30
                mark = "" if steps == args.steps else "*"
                print(
                    f"| {cx} | {swarms} | {mode} | {precision} | {steps} | {full:.1f}{mark} "
                    f"| {rate:,.0f} | {plan.n_groups} | {plan.predicted_peak / 2**30:.2f} "
                    f"| {peak:.2f} |",
                    flush=True,
                )
                result["runs"].append(
                    {
                        "complex": cx,
                        "mode": mode,
                        "swarms": swarms,
                        "glowworms": glow,
                        "precision": precision,
                        "steps": steps,
                        "seconds": seconds,
                        "seconds_full_run": full,
                        "extrapolated": steps != args.steps,
                        "glowworm_steps_per_s": rate,
                        "groups": plan.n_groups,
                        "predicted_peak_bytes": plan.predicted_peak,
                        "measured_peak_bytes": run.peak_bytes,
                    }
                )
                shutil.rmtree(root)
        if "protocol" in args.modes:
            result["protocol"] = protocol_runs(args, device, tmp, start)
        print(f"total {time.perf_counter() - start:.0f} s; * = extrapolated from short runs")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if args.json:
            args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
