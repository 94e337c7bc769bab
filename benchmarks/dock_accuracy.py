"""Docking accuracy: restrained `sparkledock dock` on the shared complexes, CAPRI successes.

Protocol (LightDock's default): true-interface restraints from each complex's restraints
file, 200 glowworms, 100 steps, 10+10 normal modes, LightDock's swarm rule; models evaluated
with DockQ against the bound reference. Per complex and scoring mode: the best CAPRI class
within the top 1, 5 and 10, the top model's DockQ, the best DockQ in the top 10 and the wall
time; next to LightDock's own published true-interface result where the folder has one
(``lightdock_bm5_TI.list``: success at top N = fnat >= 0.1 and (L-RMSD <= 10 or i-RMSD <= 4)
among its first N models). Then the success rates (acceptable or better) per mode.

Resumable: each finished docking leaves ``<out>/<mode>/<complex>/accuracy.json`` and is not
run again (``--fresh`` reruns).

Usage:
    python benchmarks/dock_accuracy.py [--bench ../shared/bench] [--complexes 2X9A ...]
        [--scoring-mode exact fast] [--steps 100] [-g 200] [--swarms 0] [--threads N]
        [--out dock_accuracy] [--fresh]

``--bench`` takes ``../shared/bench`` (``<C>_r_u.pdb``, ``<C>_l_u.pdb``, ``restraints.list``,
``<C>_target.pdb``) or ``../shared/bench5`` (``<C>_A_noh.pdb``, ``<C>_B_noh.pdb``,
``restraints_TI.list``, ``<C>_reference.pdb``); the complexes default to every folder in it.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import time
from pathlib import Path

from sparkledock.docking import DockOptions, dock

HERE = Path(__file__).resolve().parent
ORDER = {"incorrect": 0, "acceptable": 1, "medium": 2, "high": 3}
TOPS = (1, 5, 10)


def inputs(folder: Path) -> dict[str, Path]:
    """A complex's receptor, ligand, restraints and reference, in any of the three folder
    layouts (``bench``, ``bench5``, ``train``)."""
    name = folder.name
    layouts = [
        (f"{name}_r_u.pdb", f"{name}_l_u.pdb", "restraints.list", f"{name}_target.pdb"),
        (f"{name}_A_noh.pdb", f"{name}_B_noh.pdb", "restraints_TI.list", f"{name}_reference.pdb"),
        (
            f"{name}_r_u.pdb.gz",
            f"{name}_l_u.pdb.gz",
            f"{name}_ambig.tbl",
            f"{name}_target.pdb.gz",
        ),
    ]
    for files in layouts:
        paths = [folder / f for f in files]
        if all(p.is_file() for p in paths):
            return dict(zip(("receptor", "ligand", "restraints", "reference"), paths, strict=True))
    raise SystemExit(f"{folder}: no receptor/ligand/restraints/reference files found")


def best_class(rows: list[dict], n: int) -> str:
    classes = [r["CAPRI"] for r in rows[:n] if r["CAPRI"]]
    return max(classes, key=ORDER.__getitem__) if classes else "incorrect"


def lightdock_published(
    folder: Path, name: str = "lightdock_bm5_TI.list"
) -> dict[int, bool] | None:
    """LightDock's published success at top 1 / 5 / 10 (its ranked results list ``name``:
    true-interface by default, ``lightdock_bm5_BLIND.list`` for blind)."""
    path = folder / name
    if not path.is_file():
        return None
    ok = []
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4:
            irmsd, lrmsd, fnat = (float(v) for v in fields[1:4])
            ok.append(fnat >= 0.1 and (lrmsd <= 10 or irmsd <= 4))
    return {n: any(ok[:n]) for n in TOPS}


def run_one(
    folder: Path,
    mode: str,
    out: Path,
    args: argparse.Namespace,
    restrained: bool = True,
    paratope: bool = False,
) -> dict:
    """Dock one complex in one scoring mode, with its restraints or blind (on an antibody
    receptor's CDRs with ``paratope``), or read the result of an earlier run."""
    record = out / "accuracy.json"
    if record.is_file() and not args.fresh:
        return json.loads(record.read_text())
    files = inputs(folder)
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    dock(
        files["receptor"],
        files["ligand"],
        out,
        restraints=files["restraints"] if restrained else None,
        reference=files["reference"],
        options=DockOptions(
            steps=args.steps,
            glowworms=args.glowworms,
            swarms=args.swarms,
            top=10,
            threads=args.threads,
            quiet=True,
            scoring_mode=mode,
            paratope=paratope,
            redock_sites=getattr(args, "redock_sites", None),  # (blind: the protocol's)
        ),
    )
    wall = time.perf_counter() - start
    rows = list(csv.DictReader((out / "ranking.csv").open()))
    dockq = [float(r["DockQ"]) for r in rows[:10] if r.get("DockQ")]
    result = {
        "complex": folder.name,
        "mode": mode,
        "swarms": json.loads((out / "setup" / "setup.json").read_text())["swarms"],
        "classes": {str(n): best_class(rows, n) for n in TOPS},
        "top1_dockq": dockq[0] if dockq else None,
        "best_dockq": max(dockq) if dockq else None,
        "wall_s": wall,
        "steps": args.steps,
        "glowworms": args.glowworms,
    }
    record.write_text(json.dumps(result, indent=1))
    return result


def fmt_q(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else "–"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--complexes", nargs="+")
    parser.add_argument(
        "--scoring-mode", nargs="+", default=["exact"], choices=["exact", "fast"], dest="modes"
    )
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("-g", "--glowworms", type=int, default=200)
    parser.add_argument("--swarms", type=int, default=0, help="0: LightDock's rule")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--out", type=Path, default=Path("dock_accuracy"))
    parser.add_argument("--fresh", action="store_true", help="rerun finished dockings")
    args = parser.parse_args()
    names = args.complexes or sorted(p.name for p in args.bench.iterdir() if p.is_dir())
    published = {n: lightdock_published(args.bench / n) for n in names}
    show_ld = any(v is not None for v in published.values())

    head = ["complex", "swarms"]
    for mode in args.modes:
        head += [f"{mode} top 1", "top 5", "top 10", "DockQ 1", "best DockQ", "wall s"]
    if show_ld:
        head += ["LightDock TI top 1/5/10"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    results: dict[str, list[dict]] = {m: [] for m in args.modes}
    for name in names:
        cells = [name]
        swarms = None
        for mode in args.modes:
            r = run_one(args.bench / name, mode, args.out / mode / name, args)
            results[mode].append(r)
            swarms = r["swarms"]
            cells += [r["classes"][str(n)] for n in TOPS]
            cells += [fmt_q(r["top1_dockq"]), fmt_q(r["best_dockq"]), f"{r['wall_s']:.0f}"]
        cells.insert(1, str(swarms))
        if show_ld:
            ld = published[name]
            cells.append(" / ".join("yes" if ld[n] else "no" for n in TOPS) if ld else "–")
        print("| " + " | ".join(cells) + " |", flush=True)

    total = len(names)
    print()
    for mode, rows in results.items():
        hits = {n: sum(ORDER[r["classes"][str(n)]] >= 1 for r in rows) for n in TOPS}
        wall = statistics.median(r["wall_s"] for r in rows)
        print(
            f"{mode}: acceptable or better top 1 {hits[1]}/{total}, top 5 {hits[5]}/{total}, "
            f"top 10 {hits[10]}/{total}; median wall {wall:.0f} s"
        )
    if show_ld:
        ld_hits = {n: sum(bool(v and v[n]) for v in published.values()) for n in TOPS}
        print(
            f"LightDock (published, TI): top 1 {ld_hits[1]}/{total}, top 5 {ld_hits[5]}/{total}, "
            f"top 10 {ld_hits[10]}/{total}"
        )


if __name__ == "__main__":
    main()
