"""Blind docking's best sites docked again under their own restraints (issue 36: the pools'
quality, not their ranking, is what limits the blind top 10).

A blind pool ranked by the shipped learned model holds, among its first ten distinct sites,
one near the true interface (fnat >= 0.1, iRMSD <= 8 Å) for many more training complexes
than it holds an acceptable model in its first ten (benchmarks/notebook/performance.md, "eighth
part").
This second stage takes the first ``--sites`` distinct sites of the learned order (leaders
of a greedy landmark-RMSD clustering at ``--radius`` Å), turns each site's interface
residues (within 5 Å of the other partner) into restraints on both partners, and docks
again with the restrained protocol users run (its swarm rule, fast search, learned
restrained ranking). The sites' best models are then merged: site by site in the learned
order, one (or, in the summary's other column, two) from each.

Reads blind pool folders (``restrained_pools.py --blind --keep-setup``) and their archived
features (``blind_learned.py --archive``); writes, resumably, one record per site
(``<out>/<C>/site_<i>.npz``: the redock's best models' scores, restraint satisfaction,
cluster sizes and quality; its restraints beside it, ``site_<i>.restraints``). The
restrained docking itself is removed once recorded.

Usage:
    python benchmarks/site_redock.py --pools /work/runs/train_blind \
        --archives benchmarks/pools/blind_train --out /work/runs/site_redock \
        [--complexes 1IJK ...] [--sites 10] [--radius 15] [--keep]
    python benchmarks/site_redock.py --out /work/runs/site_redock --summary
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

from blind_learned import SHARED, pool_marks, read_archive
from dock_accuracy import inputs as complex_inputs
from sparkledock.analysis import learned
from sparkledock.analysis.contacts import pose_interfaces
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.analysis.ranking import leaders
from sparkledock.docking import DockOptions, dock
from sparkledock.docking.sites import restraint_lines
from sparkledock.io.lightdock import load_setup
from sparkledock.io.setupdir import SetupDir

#: How far down the learned order the sites are looked for.
HEAD = 600
#: The redock's ranked models recorded per site.
KEEP = 20


def sites(
    pool: dict[str, np.ndarray], count: int, radius: float, key: np.ndarray | None = None
) -> np.ndarray:
    """The first ``count`` distinct sites of the shipped learned order (or of ``key``'s):
    representatives no closer than ``radius`` Å (landmark RMSD) to a better one (the
    package's ``ranking.leaders``, as ``dock --redock-sites`` picks them)."""
    key = learned.learned_key(pool, "blind") if key is None else key
    ranked = np.lexsort((np.arange(len(key)), -key))
    marks = pool["marks"] if "marks" in pool else pool_marks(pool)
    return leaders(marks, ranked[:HEAD], radius, count)


def ranked_models(folder: Path) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The redock's ranking: its columns (score, restraint satisfaction, cluster size) and
    poses, best first."""
    lines = (folder / "ranking.csv").read_text().splitlines()
    head, rows = lines[0].split(","), [r.split(",") for r in lines[1:]]
    columns = {
        name: np.array([float(r[head.index(name)] or 0) for r in rows])
        for name in ("score", "restraints", "cluster_size")
    }
    poses = np.array([[float(v) for v in r[head.index("pose")].split()] for r in rows])
    return columns, poses


def prune(dock_folder: Path) -> None:
    """Keep a site docking re-rankable (``dock`` on the same folder ranks it again when the
    shipped model changes) at a tenth of its size: each swarm's last snapshot only."""
    for swarm in SetupDir(dock_folder / "setup").swarms():
        snapshots = sorted(swarm.glob("gso_*.out"), key=lambda p: int(p.stem.split("_")[1]))
        for path in snapshots[:-1]:
            path.unlink()


def redock_site(
    files: dict[str, Path],
    setup,
    pose: np.ndarray,
    out: Path,
    threads: int,
    protocol: dict,
    keep: bool = False,
) -> dict[str, np.ndarray]:
    """One site docked again under its interface's restraints; its ranked models' quality
    (``keep``: its docking kept, pruned, in ``<out>/dock``)."""
    receptor, ligand = pose_interfaces(setup, pose[None])[0]
    return dock_residues(files, receptor, ligand, out, threads, protocol, keep)


def dock_residues(
    files: dict[str, Path],
    receptor: list[str],
    ligand: list[str],
    out: Path,
    threads: int,
    protocol: dict,
    keep: bool = False,
) -> dict[str, np.ndarray]:
    """A restrained docking with ``receptor`` and ``ligand`` residues (LightDock ids) as
    active restraints, recorded in ``out`` as :func:`redock_site` records a site."""
    work = out.with_suffix("")
    kept = keep and (work / "dock" / "sparkledock_dock.json").is_file()
    if not kept:  # (a kept docking is ranked again by dock when the shipped model changed)
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    restraints = work.parent / f"{work.name}.restraints"
    restraints.write_text(restraint_lines(receptor, ligand))  # (as the package writes them)
    start = time.perf_counter()
    dock(
        files["receptor"], files["ligand"], work / "dock", restraints=restraints,
        options=DockOptions(threads=threads, quiet=True, top=1, **protocol),
    )  # fmt: skip
    wall = time.perf_counter() - start
    if kept and out.is_file():  # (the docking's own time, not the ranking's)
        with np.load(out) as before:
            wall = float(before["wall_s"])
    columns, poses = ranked_models(work / "dock")
    redock = load_setup(work / "dock" / "setup")
    q = pose_quality(quality_reference(redock, files["reference"]), redock, poses[:KEEP])
    if keep:
        prune(work / "dock")
    else:
        shutil.rmtree(work, ignore_errors=True)
    record = {
        **{k: v[:KEEP] for k, v in columns.items()},
        "wall_s": np.array(wall), "n_models": np.array(len(poses)),
        "n_receptor": np.array(len(receptor)), "n_ligand": np.array(len(ligand)),
        **{k: np.asarray(v) for k, v in q.items()},
    }  # fmt: skip
    np.savez(out, **record)
    return record


def run(args: argparse.Namespace) -> None:
    names = args.complexes or sorted(
        p.stem for p in args.archives.glob("*.npz") if (args.pools / p.stem / "dock").is_dir()
    )
    for name in names:
        folder = args.pools / name
        pool = read_archive(args.archives / f"{name}.npz")
        with np.load(folder / "pool.npz") as data:  # (poses, and the sites' quality)
            site_quality = {k: data[k] for k in ("pose", "dockq", "fnat", "irmsd")}
        poses = site_quality["pose"]
        setup = load_setup(folder / "dock" / "setup")
        where = next(s for s in ("train", "bench", "bench5") if (SHARED / s / name).is_dir())
        files = complex_inputs(SHARED / where / name)
        out = args.out / name
        out.mkdir(parents=True, exist_ok=True)
        chosen = sites(pool, args.sites, args.radius)
        meta = {
            "sites": chosen.tolist(),
            "dockq": site_quality["dockq"][chosen].tolist(),
            "fnat": site_quality["fnat"][chosen].tolist(),
            "irmsd": site_quality["irmsd"][chosen].tolist(),
            "first_acceptable": first_learned(pool),
        }
        (out / "sites.json").write_text(json.dumps(meta) + "\n")
        for i, index in enumerate(chosen):
            path = out / f"site_{i}.npz"
            skip = args.near_only and not near_site(meta["fnat"][i], meta["irmsd"][i])
            again = args.keep and (path.with_suffix("") / "dock").is_dir()
            if (path.is_file() and not again) or skip:
                continue
            protocol = {"glowworms": args.glowworms, "steps": args.steps}
            r = redock_site(files, setup, poses[index], path, args.threads, protocol, args.keep)
            print(
                f"{name} site {i}: blind DockQ {meta['dockq'][i]:.2f} fnat {meta['fnat'][i]:.2f}"
                f" -> redock top-1 DockQ {r['dockq'][0]:.2f}, best of {KEEP} "
                f"{r['dockq'].max():.2f} ({float(r['wall_s']):.0f} s)",
                flush=True,
            )


def near_site(fnat: float, irmsd: float) -> bool:
    """Whether a site is near the true interface (some native contacts, interface within
    8 Å): the sites whose redock may give an acceptable model."""
    return fnat >= 0.1 and irmsd <= 8.0


def first_learned(pool: dict[str, np.ndarray]) -> int | None:
    """The rank of the first acceptable model in the blind learned order (with the
    shipped model's diversity step)."""
    from sparkledock.analysis.ranking import model_diversity

    key = learned.learned_key(pool, "blind")
    ranked = model_diversity(pool_marks(pool), np.lexsort((np.arange(len(key)), -key)), "blind")
    hits = np.flatnonzero(pool["label"][ranked] >= 1)
    return int(hits[0]) + 1 if len(hits) else None


def merged_first(records: list[dict], per_site: int) -> int | None:
    """The rank of the first acceptable model when each site, in order, gives its best
    ``per_site`` redocked models."""
    rank = 0
    for r in records:
        for dq in r["dockq"][:per_site]:
            rank += 1
            if dq >= 0.23:
                return rank
    return None


def summary(args: argparse.Namespace) -> None:
    rows = {}
    for folder in sorted(p for p in args.out.iterdir() if (p / "sites.json").is_file()):
        meta = json.loads((folder / "sites.json").read_text())
        near = [near_site(f, r) for f, r in zip(meta["fnat"], meta["irmsd"], strict=True)]
        records = []
        for i in range(min(args.sites, len(meta["sites"]))):
            path = folder / f"site_{i}.npz"
            if path.is_file():
                records.append(dict(np.load(path)))
            elif not near[i]:  # (not redocked: --near-only)
                records.append({"dockq": np.zeros(KEEP), "wall_s": np.array(0.0)})
            else:
                break
        if len(records) < min(args.sites, len(meta["sites"])):
            continue
        rows[folder.name] = (meta["first_acceptable"], records, near[: args.sites])
    print(f"| complex | blind learned first hit | near sites (of {args.sites}) | redock top-1 "
          "DockQ per site | merged first hit (1 / 2 per site) | wall s |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for name, (blind, records, near) in rows.items():
        per = " ".join(f"{r['dockq'][0]:.2f}" for r in records)
        m1, m2 = merged_first(records, 1), merged_first(records, 2)
        wall = sum(float(r["wall_s"]) for r in records)
        print(f"| {name} | {blind or '–'} | {sum(near)} | {per} | {m1 or '–'} / {m2 or '–'} "
              f"| {wall:.0f} |")  # fmt: skip
    n = len(rows)
    for cut in (1, 5, 10):
        blind = sum(1 for b, _, _ in rows.values() if b and b <= cut)
        m1 = sum(1 for _, r, _ in rows.values() if (m := merged_first(r, 1)) and m <= cut)
        m2 = sum(1 for _, r, _ in rows.values() if (m := merged_first(r, 2)) and m <= cut)
        print(f"top {cut}: blind learned {blind} / {n}; merged, 1 per site {m1}; 2 per site {m2}")
    # the sites ordered by what their redocks say (only where every site was redocked)
    full = {k: r for k, (_, r, _) in rows.items() if all("score" in x for x in r)}
    if not full:
        return
    print(f"\nsites reordered, {len(full)} complexes with every site redocked (1 per site):")
    for label, key in ORDERS.items():
        # (records of the first --near-only runs keep no satisfaction or cluster size)
        known = [r for r in full.values() if all(_reads(key, x) for x in r)]
        firsts = [merged_first(sorted(r, key=key), 1) for r in known]
        tops = [sum(1 for f in firsts if f and f <= cut) for cut in (1, 5, 10)]
        scope = "" if len(known) == len(full) else f" (the {len(known)} whose records have it)"
        print(f"  {label}: top 1 / 5 / 10 {' / '.join(map(str, tops))}{scope}")


def _reads(key, record: dict) -> bool:
    """Whether an order's key can be read from a site record."""
    try:
        key(record)
    except KeyError:
        return False
    return True


#: Orders of a complex's redocked sites (best first) tried on training complexes: the blind
#: order, the redock's best score, its restraint satisfaction, its best cluster's size.
ORDERS = {
    "blind order (the package's, docking.sites.site_order)": lambda r: 0,
    "redock top-1 score": lambda r: -float(r["score"][0]),
    "redock top-1 satisfaction, then score": lambda r: (-r["restraints"][0], -r["score"][0]),
    "redock top-1 cluster size": lambda r: -float(r["cluster_size"][0]),
    "redock mean score of top 5": lambda r: -float(np.mean(r["score"][:5])),
    # (added before the second choice: orders that do not grow with the site's size, the
    # restraint residues on both sides)
    "redock top-1 score per restraint residue": lambda r: -float(r["score"][0]) / _size(r),
    "redock top-1 score per root of restraint residues": (
        lambda r: -float(r["score"][0]) / np.sqrt(_size(r))
    ),
}


def _size(record: dict) -> float:
    """A site's size: its restraint residues on both partners."""
    return float(record["n_receptor"] + record["n_ligand"])


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pools", type=Path, default=Path("/work/runs/train_blind"))
    p.add_argument("--archives", type=Path, default=Path(__file__).parent / "pools" / "blind_train")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--complexes", nargs="*")
    p.add_argument("--sites", type=int, default=10)
    p.add_argument("--radius", type=float, default=15.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("-g", "--glowworms", type=int, default=200, help="the site dockings' glowworms")
    p.add_argument("--steps", type=int, default=100, help="the site dockings' steps")
    p.add_argument("--summary", action="store_true")
    p.add_argument(
        "--keep",
        action="store_true",
        help="keep each site docking (last snapshots only) in OUT/<C>/site_<i>/dock, so that "
        "a new shipped model can rank it again without docking",
    )
    p.add_argument(
        "--near-only",
        action="store_true",
        help="redock only the sites near the true interface (a measurement's shortcut: the "
        "others are read as giving no acceptable model)",
    )
    args = p.parse_args(argv)
    summary(args) if args.summary else run(args)


if __name__ == "__main__":
    main()
