"""A site from interface propensity alone: each partner's likeliest surface patch, docked
under restraints (issue 36: a site the blind order does not find).

The site stage docks the blind order's first sites again; where none of them is near the true
interface it cannot help (benchmarks/site_chooser.py: 12 of the twenty have no near site among
the first 50 leaders). The residue model of :mod:`sparkledock.analysis.propensity` reads each
partner alone: its likeliest patch (the residues whose C-alphas lie within ``--radius`` Å of
one residue's, with the highest mean log-odds) on each side, both as active restraints, is a
site independent of the search. This docks that one site per complex with the site stage's
protocol (``site_redock.dock_residues``) and records, per complex, the patches' precision
against the bound interface (a heavy atom within 5 Å of the partner) and the docking's best
models' quality (``<out>/<C>/patch.npz``, as a site's record; ``patch.json``).

Training complexes read their out-of-fold log-odds (``blind_learned.SITE_OOF``: the residue
model fitted without them), the others the shipped model's.

Usage:
    python benchmarks/patch_sites.py --pools /work/runs/train_blind --out /work/runs/patch \
        [--complexes 1ACB ...] [--threads 1] [--keep]
    python benchmarks/patch_sites.py --out /work/runs/patch --summary \
        [--sites /work/runs/site_redock_all /work/runs/site_keep_train]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from blind_learned import SHARED, site_oof
from dock_accuracy import inputs as complex_inputs
from site_propensity import interface_labels, residue_keys
from site_redock import dock_residues
from sparkledock.analysis.propensity import residue_logodds
from sparkledock.io.lightdock import load_setup
from sparkledock.preparation.prepare import _calpha_sites

#: A patch: the residues whose C-alphas lie this close (Å) to its centre residue's.
PATCH_A = 10.0


def residue_points(atoms) -> tuple[np.ndarray, list[str]]:
    """Each residue's LightDock id and where restraints point for it (the package's choice:
    its C-alpha, else its phosphorus, else its atom nearest its centroid)."""
    ids = atoms.residue_ids()
    residues = [str(ids[i]) for i in atoms.residue_starts()]
    return _calpha_sites(atoms, residues), residues


def best_patch(points: np.ndarray, logodds: np.ndarray, radius: float) -> np.ndarray:
    """The residues of the patch with the highest mean log-odds (ties: the first centre)."""
    members = cKDTree(points).query_ball_point(points, radius)
    means = np.array([logodds[m].mean() for m in members])
    return np.array(sorted(members[int(np.argmax(means))]))


def run(args: argparse.Namespace) -> None:
    for name in args.complexes:
        out = args.out / name
        record = out / "patch.npz"
        if record.is_file() and not args.keep:
            continue
        out.mkdir(parents=True, exist_ok=True)
        setup = load_setup(args.pools / name / "dock" / "setup")
        where = next(s for s in ("train", "bench", "bench5") if (SHARED / s / name).is_dir())
        files = complex_inputs(SHARED / where / name)
        oof = site_oof(name)
        meta: dict = {"logodds": "out of fold" if oof is not None else "shipped model"}
        residues = {}
        for side, atoms, mine, other, k in (
            ("receptor", setup.receptor.atoms, "A", "B", 0),
            ("ligand", setup.ligand.atoms, "B", "A", 1),
        ):
            points, ids = residue_points(atoms)
            logodds = oof[k] if oof is not None else residue_logodds(atoms)
            if len(logodds) != len(points):
                raise ValueError(f"{name} {side}: {len(logodds)} log-odds, {len(points)} residues")
            patch = best_patch(points, logodds, args.radius)
            residues[side] = [ids[i] for i in patch]
            truth, _ = interface_labels(files["reference"], residue_keys(atoms), mine, other)
            meta[f"{side}_precision"] = float(truth[patch].mean())
            meta[side] = residues[side]
        protocol = {"glowworms": 200, "steps": 100}
        r = dock_residues(files, residues["receptor"], residues["ligand"], record, args.threads,
                          protocol, args.keep)  # fmt: skip
        (out / "patch.json").write_text(json.dumps(meta) + "\n")
        print(
            f"{name}: patch precision {meta['receptor_precision']:.2f} / "
            f"{meta['ligand_precision']:.2f} -> top-1 DockQ {r['dockq'][0]:.2f}, best of "
            f"{len(r['dockq'])} {r['dockq'].max():.2f} ({float(r['wall_s']):.0f} s)",
            flush=True,
        )


def summary(args: argparse.Namespace) -> None:
    """Per complex: the patches' precision, the patch docking's first model, and whether the
    blind order's first ten sites hold a near one (``--sites``: site_redock.py's records)."""
    rows = []
    for record in sorted(args.out.glob("*/patch.npz")):
        meta = json.loads((record.parent / "patch.json").read_text())
        with np.load(record) as r:
            top, best = float(r["dockq"][0]), float(r["dockq"].max())
        near = None
        found = [r / record.parent.name / "sites.json" for r in args.sites]
        sites = next((f for f in found if f.is_file()), None)
        if sites is not None:
            s = json.loads(sites.read_text())
            near = any(f >= 0.1 and i <= 8.0 for f, i in zip(s["fnat"], s["irmsd"], strict=True))
        rows.append((record.parent.name, meta, top, best, near))
        print(f"| {record.parent.name} | {meta['receptor_precision']:.2f} / "
              f"{meta['ligand_precision']:.2f} | {top:.2f} | {best:.2f} | "
              f"{'-' if near is None else ('yes' if near else 'no')} |")  # fmt: skip
    hits = sum(1 for r in rows if r[2] >= 0.23)
    fresh = sum(1 for r in rows if r[2] >= 0.23 and r[4] is False)
    print(
        f"\n{len(rows)} complexes: an acceptable first model (DockQ >= 0.23) for {hits}; "
        f"{fresh} of them without a near site among the blind order's first ten"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pools", type=Path, default=Path("/work/runs/train_blind"))
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--complexes", nargs="*", default=[])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--radius", type=float, default=PATCH_A)
    p.add_argument("--keep", action="store_true", help="keep the docking (pruned)")
    p.add_argument("--summary", action="store_true")
    p.add_argument("--sites", type=Path, nargs="*", default=[],
                   help="site_redock.py's record folders (the summary's column)")  # fmt: skip
    args = p.parse_args(argv)
    summary(args) if args.summary else run(args)


if __name__ == "__main__":
    main()
