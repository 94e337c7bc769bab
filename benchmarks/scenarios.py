"""Partial-knowledge docking: LightDock's BM5 study's restraint scenarios, docked with the
default ``dock``, beside LightDock's published results (issue 55).

The scenarios (``../shared/README.md``): ``TI-REC`` (the receptor's true-interface residues
only), ``TI-RANDOM-50`` / ``TI-RANDOM-25`` (a random half / quarter of each side's),
``TI-SINGLE`` (one receptor–ligand pair), ``TI-ONE`` (that receptor residue alone), and the
merged ones, ``TI-50`` / ``TI-25`` / ``TI-REC-50`` / ``TI-REC-25`` (the interface in two or
four padded patches, one docking per patch, their models merged); and ``BLIND``, no
restraints at all (issue 56's blind protocol, its variants chosen on training complexes).

Two commands:

``make``: the training scenarios, made from each ``../shared/train`` complex's true-interface
``.tbl`` by the study's rules, seeded by the complex's name and recorded
(``benchmarks/scenarios/train/<C>/<S>.restraints.list``). Only the single-docking
single-docking scenarios (TI-REC, TI-ONE, TI-RANDOM-50/25, TI-SINGLE: ``floor(f × n)``
residues of a side of n, at least one, as the study's files hold) and the padded patches
(TI-50/25, TI-REC-50/25: :func:`padded_patches`, the rule the twenty's files show).

``run``: dock the scenarios of a set (``twenty``: ``bench`` + ``bench5``; ``train``: the made
ones) with the default ``dock``, one docking per run in a child process (its own peak memory),
and print per scenario the acceptable-or-better successes in the top 1 / 5 / 10, the pool's
ceiling (an acceptable model anywhere in the ranking), the median and largest wall time and
peak memory, beside LightDock's published top 1 / 5 / 10 where the set has them. Each run of
a merged scenario is docked as one alternative of ``dock -r A -r B`` is, and their models are
ranked together by the run's score (as the study merges its runs).
Resumable: each docking leaves ``<out>/<S>/<C>[.runN]/result.json``; its folder's poses are
removed once evaluated (``--keep`` keeps them).

Usage:
    python benchmarks/scenarios.py make [--every 1]
    nice python benchmarks/scenarios.py run --set train --scenarios TI-ONE TI-REC \
        [--complexes 1A2K ...] [--every 8] [--out /work/runs/scenarios_train]
    python benchmarks/scenarios.py run --set twenty [--scenarios ...] [--out ...] --table
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from dock_accuracy import ORDER, TOPS, best_class, lightdock_published
from dock_accuracy import inputs as complex_inputs

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared"
MADE = HERE / "scenarios" / "train"
#: The study's scenarios: name -> number of runs merged (1: a single docking).
SCENARIOS = {
    "TI-REC": 1, "TI-RANDOM-50": 1, "TI-RANDOM-25": 1, "TI-SINGLE": 1, "TI-ONE": 1,
    "TI-50": 2, "TI-25": 4, "TI-REC-50": 2, "TI-REC-25": 4, "BLIND": 1,
}  # fmt: skip
#: The scenario without restraints (issue 56's blind protocol, chosen on training complexes).
BLIND = "BLIND"
#: The scenarios ``make`` writes for training complexes.
MADE_SCENARIOS = ("TI-REC", "TI-ONE", "TI-RANDOM-50", "TI-RANDOM-25", "TI-SINGLE")
#: The padded-patch scenarios ``make`` writes: name -> the two-sided scenario whose receptor
#: patches it takes (the study's TI-REC-k patches are TI-k's receptor halves).
PATCHED = {"TI-50": "TI-50", "TI-25": "TI-25", "TI-REC-50": "TI-50", "TI-REC-25": "TI-25"}
#: Two residues are in contact (TI-SINGLE's pairs) when heavy atoms of theirs lie this close
#: in the bound complex (Å).
CONTACT_A = 5.0
#: LightDock's published top 1 / 5 / 10 on the twenty (``../shared/README.md``).
PUBLISHED = {
    "TI-REC": (1, 3, 3), "TI-RANDOM-25": (10, 14, 17), "TI-RANDOM-50": (12, 17, 18),
    "TI-ONE": (1, 3, 3), "TI-SINGLE": (15, 16, 16), "TI-25": (3, 7, 11), "TI-50": (6, 12, 14),
    "TI-REC-25": (0, 2, 2), "TI-REC-50": (1, 2, 3),
}  # fmt: skip


def seed_of(name: str, scenario: str) -> int:
    """A scenario's seed: a stable function of the complex's and scenario's names."""
    return int.from_bytes(f"{name}/{scenario}".encode(), "little") % (2**32)


def interface(folder: Path) -> tuple[list[str], list[str]]:
    """The receptor's and ligand's true-interface (active) residues of a training complex,
    from its ``.tbl``, in LightDock's identifiers."""
    from sparkledock.io.restraints import read_haddock_restraints
    from sparkledock.molecule.structure import read_structure

    files = complex_inputs(folder)
    parsed = read_haddock_restraints(
        files["restraints"], read_structure(files["receptor"]), read_structure(files["ligand"])
    )
    return list(parsed.receptor.active), list(parsed.ligand.active)


def sample(residues: list[str], fraction: float, rng: np.random.Generator) -> list[str]:
    """``floor(fraction × n)`` of ``residues`` (at least one), drawn without replacement,
    kept in their order."""
    if not residues:
        return []
    k = max(1, int(fraction * len(residues)))
    chosen = sorted(rng.choice(len(residues), size=k, replace=False))
    return [residues[i] for i in chosen]


def contact_pairs(folder: Path, rec: list[str], lig: list[str]) -> list[tuple[str, str]]:
    """The (receptor, ligand) true-interface residue pairs in contact in the bound complex
    (heavy atoms within :data:`CONTACT_A`; the training references number residues as the
    unbound partners do, chain A the receptor's, B the ligand's)."""
    from scipy.spatial import cKDTree

    from sparkledock.molecule.structure import read_structure

    bound = read_structure(complex_inputs(folder)["reference"])
    heavy = np.char.upper(bound.element.astype(str)) != "H"
    ids = bound.residue_ids()
    sides = []
    for wanted in (rec, lig):
        mask = heavy & np.isin(ids, wanted)
        sides.append((bound.coords[mask], ids[mask]))
    (rxyz, rids), (lxyz, lids) = sides
    if not len(rxyz) or not len(lxyz):
        return []
    near = cKDTree(rxyz).query_ball_tree(cKDTree(lxyz), CONTACT_A)
    pairs = {(rids[i], lids[j]) for i, js in enumerate(near) for j in js}
    return sorted(pairs)


def scenario_lines(
    name: str, scenario: str, rec: list[str], lig: list[str], pairs: list[tuple[str, str]]
) -> list[str]:
    """A training scenario's restraint lines (LightDock's format, active), by the study's
    rule, drawn with the scenario's seed (``pairs``: :func:`contact_pairs`, for TI-SINGLE)."""
    rng = np.random.default_rng(seed_of(name, scenario))
    if scenario == "TI-SINGLE":
        r, l_ = pairs[int(rng.integers(len(pairs)))]
        return [f"R {r}", f"L {l_}"]
    if scenario == "TI-REC":
        return [f"R {r}" for r in rec]
    if scenario == "TI-ONE":
        return [f"R {rec[int(rng.integers(len(rec)))]}"]
    fraction = {"TI-RANDOM-50": 0.5, "TI-RANDOM-25": 0.25}[scenario]
    return [f"R {r}" for r in sample(rec, fraction, rng)] + [
        f"L {r}" for r in sample(lig, fraction, rng)
    ]


def padded_patches(residues: list[str], atoms, k: int, rng: np.random.Generator) -> list[list[str]]:
    """A side's true interface split at random into ``k`` near-equal parts, each padded with
    ``k - 1`` times its size of the side's other residues nearest it (least heavy-atom
    distance to the part, on the unbound structure), so that every patch is as large as the
    side's interface and a ``1/k`` of it is true: what the twenty's TI-50 / TI-25 files show
    (e.g. 1RKE's TI-25 patches hold 5 of 21 receptor interface residues and 15 or 16 others,
    the others beside the part, the parts not spatial clusters)."""
    from scipy.spatial import cKDTree

    order = [residues[i] for i in rng.permutation(len(residues))]
    parts = [list(p) for p in np.array_split(np.array(order, dtype=object), k) if len(p)]
    heavy = np.char.upper(atoms.element.astype(str)) != "H"
    ids = atoms.residue_ids()
    others = heavy & ~np.isin(ids, residues)
    patches = []
    for part in parts:
        mine = heavy & np.isin(ids, part)
        if not mine.any():
            patches.append(sorted(part))
            continue
        dist, _ = cKDTree(atoms.coords[mine]).query(atoms.coords[others])
        nearest: dict[str, float] = {}
        for rid, d in zip(ids[others], dist, strict=True):
            nearest[rid] = min(d, nearest.get(rid, np.inf))
        pads = sorted(nearest, key=lambda r: (nearest[r], r))[: (k - 1) * len(part)]
        patches.append(list(part) + pads)
    return patches


def patch_files(folder: Path, rec: list[str], lig: list[str]) -> dict[str, list[list[str]]]:
    """A training complex's padded-patch scenarios: name -> each run's restraint lines."""
    from sparkledock.molecule.structure import read_structure

    files = complex_inputs(folder)
    receptor, ligand = read_structure(files["receptor"]), read_structure(files["ligand"])
    runs = {}
    for scenario in ("TI-50", "TI-25"):
        k = SCENARIOS[scenario]
        rng = np.random.default_rng(seed_of(folder.name, scenario))
        rp = padded_patches(rec, receptor, k, rng)
        lp = padded_patches(lig, ligand, k, rng)
        n = min(len(rp), len(lp))
        runs[scenario] = [[f"R {r}" for r in rp[i]] + [f"L {r}" for r in lp[i]] for i in range(n)]
    for scenario, source in PATCHED.items():
        if scenario != source:
            runs[scenario] = [[x for x in lines if x.startswith("R ")] for lines in runs[source]]
    return runs


def make(every: int) -> None:
    """Write the training scenarios (:data:`MADE_SCENARIOS`) and their record."""
    record = {}
    for folder in sorted((SHARED / "train").iterdir())[::every]:
        if not folder.is_dir():
            continue
        try:
            rec, lig = interface(folder)
        except Exception as exc:  # (a complex whose .tbl cannot be read is recorded, skipped)
            record[folder.name] = f"skipped: {type(exc).__name__}: {exc}"
            continue
        if not rec or not lig:
            record[folder.name] = "skipped: an interface side is empty"
            continue
        out = MADE / folder.name
        out.mkdir(parents=True, exist_ok=True)
        pairs = contact_pairs(folder, rec, lig)
        for scenario in MADE_SCENARIOS:
            if scenario == "TI-SINGLE" and not pairs:
                continue  # (no contact found: the reference's numbering differs)
            lines = scenario_lines(folder.name, scenario, rec, lig, pairs)
            (out / f"{scenario}.restraints.list").write_text("\n".join(lines) + "\n")
        for scenario, runs in patch_files(folder, rec, lig).items():
            if len(runs) < SCENARIOS[scenario]:
                continue  # (a side with fewer interface residues than patches)
            for i, lines in enumerate(runs):
                path = out / f"{scenario}.run{i}.restraints.list"
                path.write_text("\n".join(lines) + "\n")
        record[folder.name] = {"receptor": len(rec), "ligand": len(lig), "pairs": len(pairs)}
    (MADE / "record.json").write_text(json.dumps(
        {"rule": "floor(f*n) per side, at least 1; TI-ONE one receptor residue; TI-SINGLE "
         f"one pair of the sides' residues in contact in the reference (heavy atoms within "
         f"{CONTACT_A} A); TI-50/25: each side's interface in 2/4 random parts, each padded "
         "with (k-1) x its size of the side's nearest other residues (unbound, heavy atoms), "
         "run i pairs the sides' parts i; TI-REC-50/25: TI-50/25's receptor patches; seed: "
         "bytes of 'C/S' little-endian mod 2**32, numpy default_rng",
         "complexes": record},
        indent=1) + "\n")  # fmt: skip
    print(f"{sum(isinstance(v, dict) for v in record.values())} complexes in {MADE}")


def scenario_files(folder: Path, scenario: str, made: bool) -> list[Path]:
    """A complex's restraint files for a scenario (one per run; none for :data:`BLIND`, its
    one run's restraints given as ``-``)."""
    if scenario == BLIND:
        return [Path("-")]
    where = MADE / folder.name if made else folder / "scenarios"
    if SCENARIOS[scenario] == 1:
        return [where / f"{scenario}.restraints.list"]
    return [where / f"{scenario}.run{i}.restraints.list" for i in range(SCENARIOS[scenario])]


def dock_one(args: list[str]) -> None:
    """(In a child process) one docking: receptor, ligand, restraints, reference, out and a
    research variant (JSON: ``patch``, the restraint patch's radius in Å; ``per_restraint``,
    the swarms per restraint residue at most; ``site_swarms`` / ``site_glowworms`` /
    ``site_steps``, the blind site stage's dockings' own; any DockOptions field), or ``{}``:
    the default ``dock``."""
    import dataclasses

    from sparkledock.docking import DockOptions, dock
    from sparkledock.docking import options as dock_options
    from sparkledock.preparation import selections

    receptor, ligand, restraints, reference, out = args[:5]
    restraints = None if restraints == "-" else restraints
    chosen = json.loads(args[5] if len(args) > 5 else "{}")
    name = Path(ligand).name.split("_")[0]
    if (SHARED / "train" / name).is_dir():
        out_of_fold_faces(name)
    if "face" in chosen:  # the starting ligands turn their likely face to the restraints
        face_variant(float(chosen.pop("face")))
    if "patch" in chosen:
        selections.RESTRAINT_PATCH_A = float(chosen.pop("patch"))
    if "per_restraint" in chosen:
        dock_options.DOCK_SETUP_FIXED["swarms_per_restraint"] = int(chosen.pop("per_restraint"))
    if "filter" in chosen:  # (the restraint filter's fraction; 0: every solution kept)
        import importlib  # (the module: ``sparkledock.docking.analyse`` is also its function)

        analyse = importlib.import_module("sparkledock.docking.analyse")
        analyse.FILTER_FRACTION = float(chosen.pop("filter"))
    if chosen.pop("reanalyse", False):  # (a kept docking's analysis done again, as asked)
        record = Path(out) / "sparkledock_dock.json"
        data = json.loads(record.read_text())
        data["ranking"] = {"research": "analysed again"}
        record.write_text(json.dumps(data) + "\n")
    site = {k: chosen.pop(f"site_{k}") for k in ("swarms", "glowworms", "steps")
            if f"site_{k}" in chosen}  # fmt: skip
    if site:  # (the blind site stage's dockings: swarms, glowworms and steps of their own)
        from sparkledock.docking import sites

        shipped = sites.site_options
        sites.site_options = lambda options: dataclasses.replace(shipped(options), **site)
    alternative = chosen.pop("alternative", False)
    options = dataclasses.replace(DockOptions(top=10, quiet=True), **chosen)
    if alternative:  # (one run of a multi-run scenario: what ``dock -r A -r B`` docks it with)
        from sparkledock.docking.alternatives import alternative_options

        options = alternative_options(options)
    dock(receptor, ligand, out, restraints=restraints, reference=reference, options=options)


def likely_face(atoms, name: str, fraction: float) -> list[str]:
    """(Research) the ``fraction`` of a ligand's residues most likely to bind, by the site
    model's log-odds: a training complex's out-of-fold values where they align (the shipped
    model trained on it), else the shipped model's."""
    from blind_learned import site_oof
    from sparkledock.analysis.propensity import likely_residues

    oof = site_oof(name)
    aligned = oof is not None and len(oof[1]) == len(atoms.residue_starts())
    return likely_residues(atoms, fraction, oof[1] if aligned else None)


def out_of_fold_faces(name: str) -> None:
    """(In the child) the ligand faces ``dock`` predicts read a training complex's
    out-of-fold log-odds (:func:`likely_face`): the shipped site model trained on it."""
    from sparkledock.docking import knowledge

    knowledge.likely_residues = lambda atoms, fraction: likely_face(atoms, name, fraction)


def face_variant(fraction: float) -> None:
    """(Research, in the child) the fraction of the ligand's residues the starting ligands
    turn toward the receptor's restraints (0: none)."""
    from sparkledock.docking import knowledge

    knowledge.LIGAND_FACE_FRACTION = dict.fromkeys(knowledge.LIGAND_FACE_FRACTION, fraction)


def result_name(rank: str = "", tag: str = "") -> str:
    """A run's result file: ``result.json``, or a kept docking analysed again
    (``result_<rank>[_<tag>].json``)."""
    return "result" + "".join(f"_{x}" for x in (rank, tag) if x) + ".json"


def docking(
    folder: Path,
    restraints: Path,
    out: Path,
    keep: bool,
    variant: str = "{}",
    rank: str = "",
    tag: str = "",
) -> dict:
    """Dock one run (or read its result): the ranking's rows, wall time, peak memory and
    what the run record says was recognised. ``rank`` / ``tag``: a kept docking analysed
    again, by that method / with the research ``variant`` (its analysis only;
    :func:`result_name`)."""
    result = out / result_name(rank, tag)
    if result.is_file():
        return json.loads(result.read_text())
    files = complex_inputs(folder)
    work = out / "dock"
    again = bool(rank or tag)
    if again:
        if not (work / "setup").is_dir():
            raise SystemExit(f"{work}: no kept docking to rank again (run with --keep)")
        extra = {"rank_method": rank} if rank else {}
        variant = json.dumps({**json.loads(variant), **extra, "reanalyse": True})
    else:
        shutil.rmtree(work, ignore_errors=True)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    argv = [str(files["receptor"]), str(files["ligand"]), str(restraints)]
    argv += [str(files["reference"]), str(work), variant]
    subprocess.run([sys.executable, __file__, "_one", *argv], check=True)
    wall = time.perf_counter() - start
    run = json.loads((work / "run.json").read_text())
    rows = list(csv.DictReader((work / "ranking.csv").open()))
    record = {
        "rows": [
            {"score": float(r["score"]), "CAPRI": r["CAPRI"], "DockQ": float(r["DockQ"] or 0)}
            for r in rows
        ],
        "wall_s": wall,
        "peak_memory_bytes": run.get("peak_memory_bytes"),
        "swarms": json.loads((work / "setup" / "setup.json").read_text())["swarms"],
        "knowledge": run.get("result", {}).get("knowledge"),
        "stages": {s["name"]: s.get("seconds") for s in run.get("stages", [])},
    }
    result.write_text(json.dumps(record) + "\n")
    if not keep and not again:
        shutil.rmtree(work, ignore_errors=True)
    return record


def merged(runs: list[dict], rule: str = "score") -> list[dict]:
    """The runs' ranked models as one ranking: ``score``, as ``dock`` ranks alternatives
    together (:func:`sparkledock.docking.alternatives.merge_rankings`: by the run's score,
    each run keeping its own order, the study's merge), or (research) ``interleave``: each
    run's first, then each one's second, ... in run order; a single run's as it is."""
    from sparkledock.docking.alternatives import merge_rankings

    if len(runs) == 1:
        return runs[0]["rows"]
    if rule == "interleave":
        longest = max(len(r["rows"]) for r in runs)
        return [r["rows"][i] for i in range(longest) for r in runs if i < len(r["rows"])]
    return merge_rankings([r["rows"] for r in runs])


def run(args: argparse.Namespace) -> None:
    made = args.set == "train"
    if made:
        folders = sorted(p.parent for p in MADE.glob("*/TI-ONE.restraints.list"))
        folders = [SHARED / "train" / p.name for p in folders][:: args.every]
    else:
        folders = sorted((p for s in ("bench", "bench5") for p in (SHARED / s).iterdir()
                          if p.is_dir()), key=lambda p: p.name)  # fmt: skip
    if args.complexes:
        folders = [p for p in folders if p.name in args.complexes]
    table = []
    for scenario in args.scenarios:
        hits = {n: 0 for n in (*TOPS, 0)}
        published = {n: 0 for n in TOPS}
        walls, peaks, done = [], [], 0
        for folder in folders:
            paths = scenario_files(folder, scenario, made)
            if not all(p.is_file() or p.name == "-" for p in paths):
                continue
            runs = []
            for i, path in enumerate(paths):
                tag = folder.name if len(paths) == 1 else f"{folder.name}.run{i}"
                where = args.out / scenario / tag
                name = result_name(args.rank_method, args.tag)
                if args.table and not (where / name).is_file():
                    break
                variant = args.variant
                if len(paths) > 1:  # (each run an alternative, as ``dock -r A -r B`` docks it)
                    variant = json.dumps({**json.loads(variant), "alternative": True})
                runs.append(docking(folder, path, where, args.keep, variant,
                                    args.rank_method, args.tag))  # fmt: skip
            if len(runs) < len(paths):
                continue
            rows = merged(runs, args.merge)
            classes = {n: best_class(rows, n) for n in TOPS}
            classes[0] = best_class(rows, len(rows))
            for n in hits:
                hits[n] += ORDER[classes[n]] >= 1
            ld = (
                lightdock_published(folder, "lightdock_bm5_BLIND.list")
                if scenario == BLIND
                else lightdock_published(folder / "scenarios", f"{scenario}.lightdock_bm5.list")
            )
            for n in TOPS:
                published[n] += bool(ld and ld[n])
            walls += [r["wall_s"] for r in runs]
            peaks += [r["peak_memory_bytes"] or 0 for r in runs]
            done += 1
            if not args.table:
                print(f"{scenario} {folder.name}: {' / '.join(classes[n] for n in TOPS)} "
                      f"(pool: {classes[0]}; {sum(r['wall_s'] for r in runs):.0f} s)",
                      flush=True)  # fmt: skip
        if done:
            table.append((scenario, done, hits, published, walls, peaks))
    print()
    print("| scenario | complexes | top 1 / 5 / 10 | in the pool | LightDock published "
          "| median / max wall s per docking | max peak GB |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for scenario, done, hits, published, walls, peaks in table:
        ld = "–" if made else " / ".join(str(published[n]) for n in TOPS)
        print(f"| {scenario} | {done} | {' / '.join(str(hits[n]) for n in TOPS)} | {hits[0]} "
              f"| {ld} | {statistics.median(walls):.0f} / {max(walls):.0f} "
              f"| {max(peaks) / 1e9:.2f} |")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_one"]:
        dock_one(argv[1:])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="write the training scenarios")
    m.add_argument("--every", type=int, default=1)
    r = sub.add_parser("run", help="dock the scenarios and print the table")
    r.add_argument("--set", default="twenty", choices=("twenty", "train"))
    r.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    r.add_argument("--complexes", nargs="*")
    r.add_argument("--every", type=int, default=1, help="every N-th complex (train)")
    r.add_argument("--out", type=Path, default=Path("scenarios_out"))
    r.add_argument("--keep", action="store_true", help="keep each docking's folder")
    r.add_argument("--table", action="store_true", help="only the finished dockings' table")
    r.add_argument(
        "--rank-method", default="", help="research: rank the kept dockings again by this "
        "method (their analysis only)",
    )  # fmt: skip
    r.add_argument("--tag", default="", help="research: the name of a --variant's analysis "
                   "of the kept dockings (result_<rank>_<tag>.json)")  # fmt: skip
    r.add_argument("--merge", default="score", choices=("score", "interleave"),
                   help="research: how the merged scenarios' runs are ranked together")  # fmt: skip
    r.add_argument(
        "--variant", default="{}", help="research: a JSON of placement and DockOptions changes "
        "(see dock_one); the default dock unless given",
    )  # fmt: skip
    args = p.parse_args(argv)
    if args.command == "make":
        make(args.every)
    else:
        run(args)


if __name__ == "__main__":
    main()
