"""Issue 56, item 1: a cheaper blind protocol, chosen on training complexes.

Compares, complex by complex, cheaper blind protocols docked end to end (``scenarios.py run
--set train --scenarios BLIND --variant ...``: the whole docking, site stage included, under
the variant's steps, glowworms and number of sites) with today's default protocol (100 steps,
200 glowworms, ten sites), whose outcome on the same complexes is known offline from the
site records of ``benchmarks/pools/site_redock/train_all`` (every site of the shipped
learned order docked again under the default restrained protocol): each site's best model
first, in order, then the blind ranking.

Prints per complex the rank of the first acceptable model under each protocol and the
variant's wall time, then top 1 / 5 / 10 and the median and largest wall time.

``sites`` isolates the site dockings' budget: the recorded sites' restraints
(``site_<i>.restraints``) docked again under a smaller budget (``--budget``: swarms,
glowworms, steps), each site's best model judged against the bound reference, and the
protocol's top 1 / 5 / 10 with the first ``--sites`` sites so docked, beside the recorded
default-budget site dockings' (``--near-only``: only the sites near the interface docked
again, the far ones counted as recorded: of 265 far sites' recorded dockings 6 reached an
acceptable model, ``site_redock.py``'s records). Resumable: one ``<out>/<C>/site_<i>.json``
per site docking.

``near`` judges a first search alone: kept blind dockings without sites (``scenarios.py run
... --variant '{"redock_sites": 0, ...}' --keep``), the first 5 and 10 sites of each one's
ranking near the interface or not, beside the recorded default search's sites.

Usage:
    python benchmarks/blind_protocol.py --runs /work/runs/bp_v1 [/work/runs/bp_v2 ...]
    python benchmarks/blind_protocol.py near --out /work/runs/bp_stop
    nice python benchmarks/blind_protocol.py sites --budget '{"swarms": 20}' \
        --out /work/runs/site_budget_s20 [--sites 5] [--complexes 1ACB ...]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "pools" / "site_redock" / "train_all"
SHARED_TRAIN = HERE.parent.parent / "shared" / "train"
TOPS = (1, 5, 10)


def recorded_site(name: str, site: int) -> float:
    """The best model's DockQ of a recorded default-budget site docking (0: a site far from
    the interface that was not docked again)."""
    path = RECORDS / name / f"site_{site}.npz"
    return float(np.load(path)["dockq"][0]) if path.is_file() else 0.0


def default_first(name: str, sites: int, site_dockq=recorded_site) -> int | None:
    """The protocol with ``sites`` sites: the rank of its first acceptable model (the sites'
    best models first, then the blind ranking), or None; ``site_dockq(name, i)``: each
    site's best model's DockQ (default: the recorded default-budget site docking's)."""
    meta = json.loads((RECORDS / name / "sites.json").read_text())
    for i in range(min(sites, len(meta["sites"]))):
        if site_dockq(name, i) >= 0.23:
            return i + 1
    blind = meta.get("first_acceptable")
    return sites + blind if blind else None


def dock_site(name: str, site: int, budget: dict, out: Path) -> dict:
    """A recorded site docked again under ``budget`` (resumable)."""
    from dock_accuracy import inputs
    from sparkledock.docking import DockOptions, dock
    from sparkledock.docking.sites import site_options

    record = out / name / f"site_{site}.json"
    if record.is_file():
        return json.loads(record.read_text())
    files = inputs(SHARED_TRAIN / name)
    work = out / name / f"site_{site}"
    shutil.rmtree(work, ignore_errors=True)
    options = replace(site_options(DockOptions(threads=1, quiet=True)), **budget)
    start = time.perf_counter()
    dock(files["receptor"], files["ligand"], work, restraints=RECORDS / name /
         f"site_{site}.restraints", reference=files["reference"], options=options)  # fmt: skip
    wall = time.perf_counter() - start
    with open(work / "ranking.csv", newline="") as handle:
        best = next(csv.DictReader(handle), None)
    run = json.loads((work / "run.json").read_text())
    result = {
        "dockq": float(best["DockQ"] or 0) if best else 0.0, "wall_s": wall,
        "stages": {s["name"]: s.get("seconds") for s in run.get("stages", [])},
    }  # fmt: skip
    record.write_text(json.dumps(result) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return result


def sites_budget(args: argparse.Namespace) -> None:
    budget = json.loads(args.budget)
    names = [n for n in sorted(d.name for d in RECORDS.iterdir()) if (RECORDS / n / "sites.json"
             ).is_file() and (not args.complexes or n in args.complexes)]  # fmt: skip
    found: dict[tuple[str, int], dict] = {}
    for name in names:
        meta = json.loads((RECORDS / name / "sites.json").read_text())
        for i in range(min(args.sites, len(meta["sites"]))):
            near = meta["fnat"][i] >= 0.1 and meta["irmsd"][i] <= 8.0
            if args.near_only and not near and recorded_site(name, i) < 0.1:
                continue  # (a far site: counted as its recorded docking)
            if (RECORDS / name / f"site_{i}.restraints").is_file():
                found[name, i] = dock_site(name, i, budget, args.out)
                print(name, i, f"{found[name, i]['dockq']:.2f} (recorded "
                      f"{recorded_site(name, i):.2f})", flush=True)  # fmt: skip

    def cheap(name: str, i: int) -> float:
        return found[name, i]["dockq"] if (name, i) in found else recorded_site(name, i)

    print(f"\n{len(names)} complexes, {len(found)} site dockings under {budget}:")
    for label, dockq in (("recorded", recorded_site), ("this budget", cheap)):
        firsts = [default_first(n, args.sites, dockq) for n in names]
        tops = [sum(1 for f in firsts if f and f <= t) for t in TOPS]
        print(f"  {label}: top 1 / 5 / 10 {' / '.join(map(str, tops))}")
    walls = [r["wall_s"] for r in found.values()]
    print(f"  a site docking: median {statistics.median(walls):.0f} s, max {max(walls):.0f} s")


def variant_first(result: Path) -> int | None:
    rows = json.loads(result.read_text())["rows"]
    hits = [i for i, r in enumerate(rows) if r["DockQ"] >= 0.23]
    return hits[0] + 1 if hits else None


def leaders_near(docking: Path, count: int) -> list[bool]:
    """Whether each of the first ``count`` sites of a kept blind docking's ranking (as the
    site stage picks them) is near the interface (fnat >= 0.1, iRMSD <= 8 Å)."""
    from sparkledock.docking.sites import site_leaders
    from sparkledock.io.lightdock import load_setup

    with open(docking / "ranking.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))

    class Row:  # (what site_leaders reads of a ranked solution)
        def __init__(self, row: dict) -> None:
            self.pose = tuple(float(v) for v in row["pose"].split())

    chosen = site_leaders(load_setup(docking / "setup"), [Row(r) for r in rows], count)
    return [float(rows[i]["fnat"]) >= 0.1 and float(rows[i]["iRMSD"]) <= 8.0 for i in chosen]


def search_near(args: argparse.Namespace) -> None:
    """A first search's sites against the recorded default search's: complexes with a near
    site among the first 5 and 10, and the search's time."""
    print("| complex | recorded: near sites in 5 / 10 | this search | its run stage s |")
    print("|---|---|---|---|")
    tally = {"recorded": [0, 0], "this": [0, 0]}
    for folder in sorted(
        p for p in (args.out / "BLIND").iterdir() if (p / "result.json").is_file()
    ):
        meta = json.loads((RECORDS / folder.name / "sites.json").read_text())
        before = [f >= 0.1 and r <= 8.0 for f, r in zip(meta["fnat"], meta["irmsd"], strict=True)]
        now = leaders_near(folder / "dock", 10)
        run = json.loads((folder / "dock" / "run.json").read_text())
        wall = next(s["seconds"] for s in run["stages"] if s["name"] == "run")
        for label, near in (("recorded", before), ("this", now)):
            tally[label][0] += any(near[:5])
            tally[label][1] += any(near[:10])
        print(f"| {folder.name} | {sum(before[:5])} / {sum(before[:10])} | "
              f"{sum(now[:5])} / {sum(now[:10])} | {wall:.0f} |")  # fmt: skip
    for label, (five, ten) in tally.items():
        print(f"{label}: a near site in the first 5 for {five}, in the first 10 for {ten}")


def main() -> None:
    if sys.argv[1:2] == ["near"]:
        p = argparse.ArgumentParser(description="a first search's sites")
        p.add_argument("command")
        p.add_argument("--out", type=Path, required=True, help="scenarios.py's --out (--keep)")
        search_near(p.parse_args())
        return
    if sys.argv[1:2] == ["sites"]:
        p = argparse.ArgumentParser(description="the site dockings' budget")
        p.add_argument("command")
        p.add_argument("--budget", default="{}")
        p.add_argument("--out", type=Path, required=True)
        p.add_argument("--sites", type=int, default=5)
        p.add_argument("--complexes", nargs="*")
        p.add_argument("--near-only", action="store_true", help="dock again only the sites "
                       "near the interface (fnat >= 0.1, iRMSD <= 8 Å) or whose recorded "
                       "docking reached DockQ 0.1; the others count as recorded")  # fmt: skip
        sites_budget(p.parse_args())
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=Path, nargs="+", required=True)
    args = p.parse_args()
    names = sorted(d.name for d in RECORDS.iterdir() if (d / "sites.json").is_file())
    found = {run: {n: run / "BLIND" / n / "result.json" for n in names} for run in args.runs}
    done = [n for n in names if all(f[n].is_file() for f in found.values())]
    columns = {"default, 5 sites": {}, "default, 10 sites": {}}
    for n in done:
        columns["default, 5 sites"][n] = default_first(n, 5)
        columns["default, 10 sites"][n] = default_first(n, 10)
    walls = {}
    for run, files in found.items():
        columns[run.name] = {n: variant_first(files[n]) for n in done}
        walls[run.name] = [json.loads(files[n].read_text())["wall_s"] for n in done]
    print("| complex | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for n in done:
        cells = [str(c[n] or "–") for c in columns.values()]
        print(f"| {n} | " + " | ".join(cells) + " |")
    print(f"\n{len(done)} complexes; top 1 / 5 / 10 (first acceptable model at or above):")
    for label, column in columns.items():
        tops = [sum(1 for v in column.values() if v and v <= t) for t in TOPS]
        wall = ""
        if label in walls:
            wall = f"; wall median {statistics.median(walls[label]):.0f} s, "
            wall += f"max {max(walls[label]):.0f} s"
        print(f"  {label}: {' / '.join(map(str, tops))}{wall}")


if __name__ == "__main__":
    main()
