"""Speed of the blind ranking's atom-contact features (``features.atom_contacts``) against
the plain method they replaced (every receptor atom moved per pose, those in the ligand's box
tested), on pools ``restrained_pools.py --blind --keep-setup`` wrote; asserts equal counts.
Also times the two candidate features that share the placement (``shape_complementarity``)
or not (``formal_coulomb``).

Usage:
    python benchmarks/contact_features.py /work/runs/twenty_blind/{4GAM,3AAA,1RKE,2X9A} \
        [--poses 1000]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from lab_features import formal_coulomb, shape_complementarity
from sparkledock.analysis.features import CLASH_A, CONTACT_A, CONTACTS, atom_contacts
from sparkledock.analysis.models import complex_coordinates
from sparkledock.io.lightdock import load_setup


def plain_contacts(setup, poses: np.ndarray) -> dict[str, np.ndarray]:
    """The reference: every receptor atom moved for every pose; the atoms in the ligand's
    box widened by the cutoff enter the trees."""
    n_rec = len(setup.receptor.atoms)
    out = {name: np.zeros(len(poses), dtype=np.int64) for name in CONTACTS}
    for first in range(0, len(poses), 64):
        for p, xyz in enumerate(complex_coordinates(setup, poses[first : first + 64]), first):
            rec, lig = xyz[:n_rec], xyz[n_rec:]
            low, high = lig.min(axis=0) - CONTACT_A, lig.max(axis=0) + CONTACT_A
            near = rec[np.all((rec >= low) & (rec <= high), axis=1)]
            if not len(near):
                continue
            rec_tree, lig_tree = cKDTree(near), cKDTree(lig)
            clash, contact = rec_tree.count_neighbors(lig_tree, [CLASH_A, CONTACT_A])
            out["clash_pairs"][p], out["contact_pairs"][p] = clash, contact - clash
            hits = lig_tree.query_ball_point(near, CONTACT_A, return_length=True)
            out["buried_receptor_atoms"][p] = int((hits > 0).sum())
            hits = rec_tree.query_ball_point(lig, CONTACT_A, return_length=True)
            out["buried_ligand_atoms"][p] = int((hits > 0).sum())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pools", nargs="+", type=Path)
    parser.add_argument("--poses", type=int, default=1000, help="first N representatives")
    args = parser.parse_args()
    print(
        "| pool | receptor + ligand atoms | poses | plain s | atom_contacts s | speed-up | "
        "shape_complementarity s | formal_coulomb s |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for folder in args.pools:
        setup = load_setup(folder / "dock" / "setup")
        poses = np.load(folder / "pool.npz")["pose"][: args.poses]
        start = time.perf_counter()
        plain = plain_contacts(setup, poses)
        t_plain = time.perf_counter() - start
        start = time.perf_counter()
        ours = atom_contacts(setup, poses)
        t_ours = time.perf_counter() - start
        for name in CONTACTS:
            assert np.array_equal(plain[name], ours[name]), (folder.name, name)
        start = time.perf_counter()
        shape_complementarity(setup, poses)
        t_shape = time.perf_counter() - start
        start = time.perf_counter()
        formal_coulomb(setup, poses)
        t_coulomb = time.perf_counter() - start
        atoms = f"{len(setup.receptor.atoms):,} + {len(setup.ligand.atoms):,}"
        print(
            f"| {folder.name} | {atoms} | {len(poses):,} | {t_plain:.2f} | {t_ours:.2f} | "
            f"{t_plain / t_ours:.1f}× | {t_shape:.2f} | {t_coulomb:.2f} |"
        )


if __name__ == "__main__":
    main()
