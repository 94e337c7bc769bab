"""Restrained docking on the twenty: sparkledock's protocol next to LightDock's, timed.

Docks each complex of ``../shared/bench`` + ``../shared/bench5`` with its true-interface
restraints through the command line (``sparkledock dock ... --reference``), one process per
docking under ``/usr/bin/time -v`` (wall time and peak memory), for each protocol asked:

* ``sparkledock``: the default of ``dock`` (restraint-focused swarms, fast search, the
  restrained ranking);
* ``lightdock``: LightDock 0.9.4's protocol in sparkledock (``--protocol lightdock``: 20
  swarms per restraint residue, exact search, ranking by score);
* ``lightdock-fast``: the same with ``--scoring-mode fast`` (the previous fast mode);
* ``sparkledock-flex``: the default with ``--scoring-mode fast-flex`` (receptor normal modes
  in the fast search as a local shift): a diagnosis cell.

Prints per complex the best CAPRI class in the top 1 / 5 / 10, the top model's DockQ, the
swarms, wall seconds and peak RSS, and LightDock's published true-interface result
(``lightdock_bm5_TI.list``), then the success counts and the median wall time per protocol.

``--time-only`` docks without ``--reference`` (what a user runs: no evaluation stage) and
records wall time and memory only. Every record keeps the stages' seconds from run.json.

Resumable: each finished docking leaves ``<out>/<protocol>/<C>/result.json``. Time it on a
quiet machine (nothing else running) with numba's cache warm: the first docking of a fresh
install compiles the kernels.

Usage:
    python benchmarks/restrained_protocol.py [--protocols sparkledock lightdock]
        [--complexes 2X9A ...] [--threads 2] [--out restrained_protocol]
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

from dock_accuracy import lightdock_published as published
from restrained_choice import acceptable
from restrained_pools import SHARED, complex_inputs, pool_arrays
from sparkledock.docking import DockOptions
from sparkledock.io.lightdock import load_setup

ORDER = {"incorrect": 0, "acceptable": 1, "medium": 2, "high": 3}
TOPS = (1, 5, 10)
PROTOCOLS = {
    "sparkledock": [],
    "lightdock": ["--protocol", "lightdock"],
    "lightdock-fast": ["--protocol", "lightdock", "--scoring-mode", "fast"],
    "sparkledock-flex": ["--scoring-mode", "fast-flex"],
}


def run_one(folder: Path, protocol: str, out: Path, args: argparse.Namespace) -> dict:
    """One docking in its own process (or the record of an earlier one)."""
    record = out / "result.json"
    if record.is_file():
        return json.loads(record.read_text())
    files = complex_inputs(folder)
    work = out / "dock"
    shutil.rmtree(work, ignore_errors=True)
    command = [
        "/usr/bin/time", "-v", sys.executable, "-m", "sparkledock", "dock",
        str(files["receptor"]), str(files["ligand"]), "-r", str(files["restraints"]),
        *([] if args.time_only else ["--reference", str(files["reference"])]),
        "-o", str(work), "--quiet",
        *(["--threads", str(args.threads)] if args.threads else []),
        *PROTOCOLS[protocol],
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{folder.name} {protocol}: {done.stderr.strip().splitlines()[-1:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    hours, minutes, seconds = (float(g) if g else 0.0 for g in wall.groups())
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    rows = list(csv.DictReader((work / "ranking.csv").open()))
    setup = json.loads((work / "setup" / "setup.json").read_text())
    classes = {}
    for n in TOPS:
        found = [r["CAPRI"] for r in rows[:n] if r.get("CAPRI")]
        classes[str(n)] = max(found, key=ORDER.__getitem__) if found else "incorrect"
    if args.time_only:
        classes = {str(n): "–" for n in TOPS}
    run_json = json.loads((work / "run.json").read_text())
    stages = {s["name"]: s["seconds"] for s in run_json.get("stages", [])}
    result = {
        "complex": folder.name,
        "protocol": protocol,
        "swarms": setup["swarms"],
        "classes": classes,
        "top1_dockq": float(rows[0]["DockQ"]) if rows and rows[0].get("DockQ") else None,
        "wall_s": hours * 3600 + minutes * 60 + seconds,
        "peak_rss_gb": int(rss.group(1)) / 2**20,
        "stage_s": stages,
    }
    if args.pools:  # every representative's features and quality, for the diagnosis
        setup = load_setup(work / "setup")
        arrays, _ = pool_arrays(setup, files, DockOptions().steps)
        np.savez_compressed(out / "pool.npz", **arrays)
        result["pool_acceptable"] = int(acceptable(arrays).sum())
    record.write_text(json.dumps(result, indent=1) + "\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--protocols", nargs="+", default=["sparkledock"], choices=list(PROTOCOLS))
    p.add_argument("--complexes", nargs="*")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--out", type=Path, default=Path("restrained_protocol"))
    p.add_argument("--keep", action="store_true", help="keep each docking folder")
    p.add_argument(
        "--time-only",
        action="store_true",
        help="dock without --reference (the docking a user runs, without the evaluation "
        "stage): wall time and memory only, no classes",
    )
    p.add_argument(
        "--pools",
        action="store_true",
        help="also record every representative's features and quality (<C>/pool.npz, for "
        "restrained_choice.py and the search-or-ranking diagnosis), after the timed docking",
    )
    args = p.parse_args(argv)
    folders = sorted(
        (f for s in ("bench", "bench5") for f in (SHARED / s).iterdir() if f.is_dir()),
        key=lambda f: f.name,
    )
    if args.complexes:
        folders = [f for f in folders if f.name in args.complexes]
    head = ["complex"]
    for protocol in args.protocols:
        head += [f"{protocol} top 1 / 5 / 10", "DockQ 1", "swarms", "wall s", "peak GB"]
    head.append("LightDock published top 1 / 5 / 10")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    results: dict[str, list[dict]] = {p: [] for p in args.protocols}
    theirs = []
    for folder in folders:
        cells = [folder.name]
        for protocol in args.protocols:
            try:
                r = run_one(folder, protocol, args.out / protocol / folder.name, args)
            except RuntimeError as exc:
                cells += [f"failed: {exc}", "", "", "", ""]
                continue
            results[protocol].append(r)
            cells.append(" / ".join(r["classes"][str(n)] for n in TOPS))
            dockq = r["top1_dockq"]
            cells += [f"{dockq:.2f}" if dockq is not None else "–", str(r["swarms"])]
            cells += [f"{r['wall_s']:.0f}", f"{r['peak_rss_gb']:.2f}"]
        ld = published(folder)
        theirs.append(ld)
        cells.append(" / ".join("yes" if ld[n] else "no" for n in TOPS) if ld else "–")
        print("| " + " | ".join(cells) + " |", flush=True)
    print()
    for protocol, rows in results.items():
        if not rows:
            continue
        hits = [sum(ORDER.get(r["classes"][str(n)], 0) >= 1 for r in rows) for n in TOPS]
        walls = [r["wall_s"] for r in rows]
        print(
            f"{protocol}: top 1 / 5 / 10 {' / '.join(map(str, hits))} of {len(rows)}; wall "
            f"median {statistics.median(walls):.0f} s, max {max(walls):.0f} s; peak RSS max "
            f"{max(r['peak_rss_gb'] for r in rows):.2f} GB"
        )
    known = [t for t in theirs if t]
    hits = [sum(t[n] for t in known) for n in TOPS]
    print(f"LightDock published: top 1 / 5 / 10 {' / '.join(map(str, hits))} of {len(known)}")


if __name__ == "__main__":
    main()
