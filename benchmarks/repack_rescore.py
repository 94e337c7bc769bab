"""Would re-scoring after a side-chain repack rank blind near-natives higher? (issue 36)

Rigid-body poses of unbound partners that are near the native carry side-chain clashes (the
bound rotamers are not there), so DFIRE charges them; ``dfire_soft`` forgives the clashes.
FASPR (through its wrapper ``pyfaspr``, installed only for this measurement) rebuilds every
side chain of a posed complex in a few tenths of a second; DFIRE on the repacked complex is
then a candidate feature. Per blind training pool (``restrained_pools.py --blind
--keep-setup``): the acceptable representatives and the ``soft_consensus`` top
``--top`` incorrect ones are repacked and re-scored; per ranking (raw DFIRE, raw
``dfire_soft``, DFIRE after the repack), the rank of the first acceptable among them. A
measurement only: nothing here is shipped.

Usage:
    pip install pyfaspr
    python benchmarks/repack_rescore.py /work/runs/train_blind [--complexes ...] [--top 30]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from restrained_learned import capri_label
from sparkledock.analysis.models import complex_atoms, complex_coordinates
from sparkledock.analysis.ranking import order
from sparkledock.io.lightdock import load_setup
from sparkledock.molecule.pose import PoseLayout
from sparkledock.molecule.structure import Atoms, clean, read_structure, write_structures
from sparkledock.molecule.system import DockingSetup, Partner
from sparkledock.scoring.prepared import prepare_scoring


def repacked_scores(setup: DockingSetup, poses: np.ndarray, functions: list[str]) -> dict:
    """DFIRE-family scores of each posed complex after FASPR rebuilt its side chains."""
    import subprocess

    from pyfaspr.faspr_utils import FASPR_BINARY  # (the binary: the wrapper's own parser
    # needs every residue's backbone complete)

    atoms = complex_atoms(setup)
    n_rec = len(setup.receptor.atoms)
    rec_chains = set(atoms.chain[:n_rec].astype(str))
    # FASPR needs every residue's backbone (N, CA, C, O): the others keep their side chains
    key = np.char.add(atoms.chain.astype(str), atoms.res_seq.astype(str))
    key = np.char.add(key, atoms.ins_code.astype(str))
    names = atoms.atom_name.astype(str)
    complete = np.ones(len(atoms), dtype=bool)
    for k in np.unique(key):
        at = key == k
        if not {"N", "CA", "C", "O"} <= set(names[at]):
            complete[at] = False
    packable, kept = np.flatnonzero(complete), np.flatnonzero(~complete)
    out = {f: np.zeros(len(poses)) for f in functions}
    with tempfile.TemporaryDirectory() as tmp:
        for p, xyz in enumerate(complex_coordinates(setup, poses)):
            posed = Path(tmp) / "posed.pdb"
            write_structures(atoms.select(packable), xyz[packable][None], [posed])
            # (FASPR reads atom names by column: a name of fewer than four characters starts
            # in column 14, whatever element a file gave it)
            lines = []
            for line in posed.read_text().splitlines():
                if line.startswith(("ATOM", "HETATM")):
                    name = line[12:16].strip()
                    line = line[:12] + (name if len(name) == 4 else f" {name:<3}") + line[16:]
                lines.append(line)
            posed.write_text("\n".join(lines) + "\n")
            packed = Path(tmp) / "packed.pdb"
            subprocess.run(
                [FASPR_BINARY, "-i", str(posed), "-o", str(packed)], check=True,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            whole = clean(read_structure(packed), source="FASPR output")
            if len(kept):
                as_was = atoms.select(kept)
                whole = Atoms.concatenate([whole, replace(as_was, coords=xyz[kept])])
            on_rec = np.isin(whole.chain.astype(str), list(rec_chains))
            rec, lig = whole.select(np.flatnonzero(on_rec)), whole.select(np.flatnonzero(~on_rec))
            rigid = DockingSetup(
                path=Path(tmp), receptor=Partner.rigid(rec), ligand=Partner.rigid(lig),
                layout=PoseLayout(0, 0), config={"receptor_pdb": "r.pdb", "ligand_pdb": "l.pdb"},
                receptor_centre=np.zeros(3),
                model_centre=np.zeros(3),
            )  # fmt: skip
            identity = np.array([[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]])
            for f in functions:
                out[f][p] = prepare_scoring(rigid, scoring=f).score(identity)[0]
    return out


def first(ok: np.ndarray, key: np.ndarray) -> int | None:
    ranked = np.lexsort((np.arange(len(key)), -key))
    hits = np.flatnonzero(ok[ranked])
    return int(hits[0]) + 1 if len(hits) else None


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pools", type=Path)
    p.add_argument("--complexes", nargs="*")
    p.add_argument("--top", type=int, default=30)
    args = p.parse_args(argv)
    print("| complex | candidates (acceptable) | dfire | dfire_soft | repacked dfire | "
          "repacked dfire_soft | s per pose |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    totals: dict[str, list] = {k: [] for k in ("dfire", "soft", "rp", "rps")}
    for folder in sorted(args.pools.iterdir()):
        if args.complexes and folder.name not in args.complexes:
            continue
        if not (folder / "pool.npz").is_file() or not (folder / "dock" / "setup").is_dir():
            continue
        pool = dict(np.load(folder / "pool.npz"))
        ok = capri_label(pool) >= 1
        if not ok.any():
            continue
        ranked = order("soft_consensus", pool)
        wrong = [i for i in ranked if not ok[i]][: args.top]
        chosen = np.array(sorted(set(np.flatnonzero(ok).tolist()) | set(wrong)))
        setup = load_setup(folder / "dock" / "setup")
        start = time.perf_counter()
        packed = repacked_scores(setup, pool["pose"][chosen], ["dfire", "dfire_soft"])
        each = (time.perf_counter() - start) / len(chosen)
        good = ok[chosen]
        row = {
            "dfire": first(good, pool["dfire"][chosen]),
            "soft": first(good, pool["dfire_soft"][chosen]),
            "rp": first(good, packed["dfire"]),
            "rps": first(good, packed["dfire_soft"]),
        }
        for k, v in row.items():
            totals[k].append(v)
        cells = " | ".join(str(row[k]) for k in ("dfire", "soft", "rp", "rps"))
        print(f"| {folder.name} | {len(chosen)} ({int(good.sum())}) | {cells} | {each:.2f} |",
              flush=True)  # fmt: skip
    print("\n| ranking of the candidates | first acceptable at 1 / ≤3 / ≤5 | MRR |\n|---|---|---|")
    for k, label in (("dfire", "dfire"), ("soft", "dfire_soft"), ("rp", "repacked dfire"),
                     ("rps", "repacked dfire_soft")):  # fmt: skip
        r = totals[k]
        tops = " / ".join(str(sum(1 for x in r if x is not None and x <= n)) for n in (1, 3, 5))
        mrr = np.mean([1 / x if x else 0.0 for x in r]) if r else 0.0
        print(f"| {label} | {tops} | {mrr:.3f} |")


if __name__ == "__main__":
    main()
