"""Sites from an exhaustive rigid-body scan (issue 36: the site stage can only find a near
site that is among the blind order's first leaders, and on the twenty 12 of 20 have none
among their first 50; benchmarks/notebook/performance.md, "twelfth part").

Glowworm swarms sample the score's landscape where their swarms start; an FFT scan
(Katchalski-Katzir) visits every translation of every rotation of a grid, so a site
missed by the swarms may still be found. This scans the unbound partners of a complex:

- grids of ``--spacing`` Å: the receptor's contact shell (points 2.5-6 Å from its nearest
  atom score +1, points closer than 2.5 Å a clash of ``CLASH``: soft, as unbound side chains
  clash) and the ligand's heavy
  atoms, one point each; every translation of ``--rotations`` quasi-uniform rotations
  (a Sobol sequence mapped to unit quaternions) is scored by one correlation;
- the best ``PEAKS`` translations of each rotation (at least ``PEAK_GAP`` cells apart) are
  kept, then re-scored by DFIRE (the package's exact kernel);
- orders of the candidates: shape alone, DFIRE alone, and their rank sum; each order's
  first ``--sites`` distinct sites (``ranking.leaders``, 15 Å landmark RMSD, as the site
  stage picks them) are labelled near (fnat >= 0.1, iRMSD <= 8 Å) by the built-in
  evaluation, and so are the blind order's first 50 sites (the archived pool's rigid poses on
  the same setup frame), for the interleaved order (blind and scan sites in turn);
- two orders read from the records afterwards: ClusPro's (the densest site of the best DFIRE
  candidates first) and the blind order's first 50 sites re-ordered by the scan's support
  (how many of its best DFIRE candidates lie within 15 Å of each).

Writes one record per complex (``<out>/<C>.npz``), resumably; ``--summary`` prints the
table: complexes with a near site among the first 5 / 10 sites of each order.

Usage:
    python benchmarks/fft_sites.py --out /work/runs/fft_sites [--complexes 1A2K ...] \
        [--archives benchmarks/pools/blind_train] [--rotations 2048] [--spacing 1.5]
    python benchmarks/fft_sites.py --out /work/runs/fft_sites --summary
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

import numpy as np
import scipy.fft
from scipy.spatial import cKDTree
from scipy.spatial.transform import Rotation
from scipy.stats import qmc

import blind_learned as bl
from dock_accuracy import inputs as complex_inputs
from site_recall import near
from site_redock import HEAD, sites
from sparkledock.analysis.features import rescore
from sparkledock.analysis.quality import pose_quality, quality_reference
from sparkledock.analysis.ranking import landmark_atoms, landmarks, leaders, population
from sparkledock.analysis.ranks import average_ranks
from sparkledock.io.lightdock import load_setup
from sparkledock.preparation.options import SetupOptions
from sparkledock.preparation.prepare import prepare_setup

#: The receptor's contact shell (Å from its nearest heavy atom) and clash core.
SHELL_A = (2.5, 6.0)
#: A ligand atom in the receptor's core costs this many contacts.
CLASH = -3.0
#: Translations kept per rotation, and how many grid cells apart.
PEAKS = 4
PEAK_GAP = 3
#: Site spacing (Å landmark RMSD; the site stage's; ``HEAD``: how far down an order).
RADIUS = 15.0
#: scipy.fft's threads (``--workers``).
WORKERS = [-1]
#: Where a complex's inputs are looked for (under ``../shared``).
FOLDERS = ("train", "bench", "bench5")
#: The blind order's sites recorded (for the scan's support re-order of them).
BLIND_SITES = 50
#: The orders compared (``interleaved_*``: blind and scan sites in turn, blind first).
ORDERS = ("blind", "shape", "dfire", "shape+dfire")


def rotations(count: int) -> np.ndarray:
    """``count`` quasi-uniform rotations (Shoemake's map of a scrambled Sobol sequence,
    seed 0), as quaternions ``w, x, y, z`` (the pose layout's)."""
    u = qmc.Sobol(3, scramble=True, seed=0).random(count)
    a, b = np.sqrt(1 - u[:, 0]), np.sqrt(u[:, 0])
    t1, t2 = 2 * np.pi * u[:, 1], 2 * np.pi * u[:, 2]
    return np.stack([b * np.cos(t2), a * np.sin(t1), a * np.cos(t1), b * np.sin(t2)], axis=1)


def receptor_grid(xyz: np.ndarray, ligand_radius: float, spacing: float):
    """The receptor's shell grid (``CLASH`` core, +1 shell), its corner and size: the box
    holds the shell with a ligand radius of margin each side, so no correlation wraps."""
    pad = SHELL_A[1] + ligand_radius + 2 * spacing
    low = xyz.min(axis=0) - pad
    n = int(np.ceil((xyz.max(axis=0) + pad - low).max() / spacing))
    n = scipy.fft.next_fast_len(n, real=True)
    axis = np.arange(n) * spacing
    points = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3) + low
    near, _ = cKDTree(xyz).query(points, distance_upper_bound=SHELL_A[1])
    grid = np.zeros(len(points), dtype=np.float32)
    grid[near <= SHELL_A[1]] = 1.0
    grid[near < SHELL_A[0]] = CLASH
    return grid.reshape(n, n, n), low, n


def scan(receptor: np.ndarray, ligand: np.ndarray, quats: np.ndarray, spacing: float) -> tuple:
    """Every rotation's best translations by shape: (poses (R·PEAKS, 7), shape scores)."""
    radius = np.linalg.norm(ligand, axis=1).max()
    grid, low, n = receptor_grid(receptor, radius, spacing)
    spectrum = scipy.fft.rfftn(grid, workers=WORKERS[0])
    mats = Rotation.from_quat(quats[:, [1, 2, 3, 0]]).as_matrix()
    poses, scores = [], []
    lig = np.zeros((n, n, n), dtype=np.float32)
    for q, m in zip(quats, mats, strict=True):
        cells = np.rint(ligand @ m.T / spacing).astype(np.int64) % n
        lig[:] = 0
        np.add.at(lig, (cells[:, 0], cells[:, 1], cells[:, 2]), 1.0)
        # score(s) = sum_x R(x + s) L(x): the ligand's centre at the receptor grid's cell s
        product = spectrum * np.conj(scipy.fft.rfftn(lig, workers=WORKERS[0]))
        corr = scipy.fft.irfftn(product, s=grid.shape, workers=WORKERS[0]).ravel()
        top = np.argpartition(corr, -64)[-64:]
        top = top[np.argsort(-corr[top])]
        kept: list[np.ndarray] = []
        for i in top:
            cell = np.array(np.unravel_index(i, grid.shape))
            if all(np.abs(cell - c).max() >= PEAK_GAP for c in kept):
                kept.append(cell)
                poses.append(np.concatenate([low + cell * spacing, q]))
                scores.append(corr[i])
            if len(kept) == PEAKS:
                break
    return np.array(poses), np.array(scores)


def blind_sites(archive: Path, setup, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The archived blind pool's first ``count`` sites under the shipped order (as the site
    stage picks them, ``site_redock.sites``), as rigid poses on ``setup``'s frame (the modes
    left out), and their landmarks."""
    pool = bl.read_archive(archive)
    pool["marks"] = bl.pool_marks(pool)
    chosen = sites(pool, count, RADIUS)
    q = pool["pose_q"][chosen].astype(np.float64)
    poses = np.concatenate([pool["pose_t"][chosen].astype(np.float64), q], axis=1)
    return poses, pool["marks"][chosen]


def complex_setup(name: str, out: Path) -> tuple[dict[str, Path], object]:
    """A complex's input files and a setup of its unbound partners without normal modes
    (its frame is the blind pools' setups', whose ligand landmarks it reproduces)."""
    folder = next(bl.SHARED / d / name for d in FOLDERS if (bl.SHARED / d / name).is_dir())
    files = complex_inputs(folder)
    work = out / f"{name}_setup"
    shutil.rmtree(work, ignore_errors=True)
    options = SetupOptions(glowworms=10, noxt=True, noh=True, now=True)
    prepare_setup(files["receptor"], files["ligand"], work, options=options)
    setup = load_setup(work)
    shutil.rmtree(work, ignore_errors=True)
    return files, setup


def blind_record(archive: Path, setup, reference) -> dict[str, np.ndarray]:
    """The blind order's first :data:`BLIND_SITES` sites: near labels, DockQ, poses, landmarks."""
    poses, marks = blind_sites(archive, setup, BLIND_SITES)
    q = pose_quality(reference, setup, poses)
    return {
        "blind_near": near(q["fnat"], q["irmsd"]), "blind_dockq": q["dockq"],
        "blind_poses": poses, "blind_marks": marks.astype(np.float32),
    }  # fmt: skip


def run(name: str, out: Path, args: argparse.Namespace) -> None:
    """Scan one complex and record its orders' first sites and their labels."""
    files, setup = complex_setup(name, out)
    start = time.perf_counter()
    poses, shape = scan(
        setup.receptor.atoms.coords, setup.ligand.atoms.coords, rotations(args.rotations),
        args.spacing,
    )  # fmt: skip
    wall_scan = time.perf_counter() - start
    dfire = rescore(setup, poses, "dfire")
    wall = time.perf_counter() - start
    both = -(average_ranks(-shape) + average_ranks(-dfire))
    keys = {"shape": shape, "dfire": dfire, "shape+dfire": both}
    marks = landmarks(setup, poses, landmark_atoms(setup))
    reference = quality_reference(setup, files["reference"])
    every = pose_quality(reference, setup, poses)  # (every candidate: other orders post hoc)
    record = {
        "wall_scan_s": np.array(wall_scan), "wall_s": np.array(wall), "poses": poses,
        "shape": shape, "dfire": dfire, "fnat": every["fnat"], "irmsd": every["irmsd"],
        "marks": marks.astype(np.float32),
    }  # fmt: skip
    for label, key in keys.items():
        ranked = np.lexsort((np.arange(len(key)), -key))[:HEAD]
        chosen = leaders(marks, ranked, RADIUS, args.sites)
        record[f"{label}_near"] = near(every["fnat"][chosen], every["irmsd"][chosen])
        record[f"{label}_dockq"] = every["dockq"][chosen]
        record[f"{label}_poses"] = poses[chosen]
    archive = args.archives / f"{name}.npz"
    if archive.is_file():
        record.update(blind_record(archive, setup, reference))
    save(record, out / f"{name}.npz")
    print(f"{name}: {len(poses)} candidates, scan {wall_scan:.0f} s, all {wall:.0f} s; near at "
          + ", ".join(f"{k} {np.flatnonzero(record[f'{k}_near'])[:3] + 1}"
                      for k in ORDERS if f"{k}_near" in record), flush=True)  # fmt: skip


def save(record: dict[str, np.ndarray], path: Path) -> None:
    """Write a record whole or not at all."""
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **record)
    tmp.replace(path)


def relabel_blind(name: str, out: Path, archives: Path) -> None:
    """Update a record's blind sites (to :data:`BLIND_SITES`) without scanning again."""
    path = out / f"{name}.npz"
    record = dict(np.load(path))
    if len(record.get("blind_near", ())) >= BLIND_SITES:
        return
    files, setup = complex_setup(name, out)
    record.update(blind_record(archives / f"{name}.npz", setup,
                               quality_reference(setup, files["reference"])))  # fmt: skip
    save(record, path)


def density_sites(marks: np.ndarray, key: np.ndarray, top: int, count: int) -> np.ndarray:
    """ClusPro's order: of the ``top`` best candidates by ``key``, the one with the most
    others within :data:`RADIUS` Å (landmark RMSD) leads a site; its neighbours leave; again."""
    idx = np.argsort(-key, kind="stable")[:top]
    m = marks[idx].astype(np.float64)
    d2 = ((m[:, None, :] - m[None, :, :]) ** 2).sum(axis=-1) / (m.shape[1] // 3)
    close = d2 <= RADIUS * RADIUS
    alive = np.ones(len(idx), dtype=bool)
    out: list[int] = []
    while len(out) < count and alive.any():
        counts = np.where(alive, (close & alive[None, :]).sum(axis=1), -1)
        best = int(np.argmax(counts))
        out.append(int(idx[best]))
        alive &= ~close[best]
    return np.array(out, dtype=np.int64)


def supported(record: dict[str, np.ndarray], top: int) -> np.ndarray:
    """The blind sites re-ordered by the scan's support: rank sum of the blind order and the
    count of the ``top`` best DFIRE candidates within :data:`RADIUS` Å of each site."""
    idx = np.argsort(-record["dfire"], kind="stable")[:top]
    lm, fm = record["blind_marks"].astype(np.float64), record["marks"][idx].astype(np.float64)
    support = population(lm, fm, RADIUS)
    n = len(lm)
    return np.lexsort((np.arange(n), average_ranks(-support) + np.arange(1, n + 1)))


def interleaved(blind: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Blind and scan sites in turn, blind first (near labels)."""
    return np.stack([blind, other], axis=1).ravel()


def near_of(record: dict[str, np.ndarray], chosen: np.ndarray) -> np.ndarray:
    """Near labels of chosen scan candidates."""
    return near(record["fnat"][chosen], record["irmsd"][chosen])


def summary(out: Path, depths: tuple[int, ...] = (5, 10, 20)) -> None:
    """Complexes with a near site among each order's first sites (a scan order has 10 sites,
    the blind order 50, an interleaved one 20: at 20 it is the union of both orders' ten)."""
    records = {p.stem: dict(np.load(p)) for p in sorted(out.glob("*.npz")) if "tmp" not in p.name}
    records = {n: r for n, r in records.items() if "blind_near" in r}
    print(f"{len(records)} complexes scanned (with an archived blind pool)\n")
    print("| order | " + " | ".join(f"near site in first {d}" for d in depths) + " |")
    print("|---|" + "---|" * len(depths))
    rows = {k: [r[f"{k}_near"] for r in records.values()] for k in ORDERS}
    for k in ORDERS[1:]:
        rows[f"blind / {k} in turn"] = [
            interleaved(r["blind_near"][:10], r[f"{k}_near"]) for r in records.values()
        ]
    for top in (500, 1000):
        rows[f"ClusPro-like: densest of DFIRE's best {top}"] = [
            near_of(r, density_sites(r["marks"], r["dfire"], top, 10)) for r in records.values()
        ]
    if all(len(r["blind_near"]) >= BLIND_SITES for r in records.values()):
        for top in (200, 500, 1000):
            rows[f"blind's first {BLIND_SITES} by scan support ({top})"] = [
                r["blind_near"][supported(r, top)] for r in records.values()
            ]
    for label, nears in rows.items():
        print(f"| {label} | " + " | ".join(str(sum(bool(n[:d].any()) for n in nears))
                                         for d in depths) + " |")  # fmt: skip
    walls = [float(r["wall_s"]) for r in records.values()]
    if walls:
        print(f"\nscan + DFIRE re-score: median {np.median(walls):.0f} s, max {max(walls):.0f} s")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--complexes", nargs="*")
    p.add_argument("--archives", type=Path, default=bl.HERE / "pools" / "blind_train")
    p.add_argument("--rotations", type=int, default=2048)
    p.add_argument("--spacing", type=float, default=1.5)
    p.add_argument("--sites", type=int, default=10)
    p.add_argument("--workers", type=int, default=-1, help="scipy.fft's threads")
    p.add_argument("--summary", action="store_true")
    args = p.parse_args(argv)
    WORKERS[0] = args.workers
    if args.summary:
        summary(args.out)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    names = args.complexes or sorted(p.stem for p in args.archives.glob("*.npz"))
    for name in names:
        if not (args.out / f"{name}.npz").is_file():
            run(name, args.out, args)
        elif (args.archives / f"{name}.npz").is_file():
            relabel_blind(name, args.out, args.archives)


if __name__ == "__main__":
    main()
