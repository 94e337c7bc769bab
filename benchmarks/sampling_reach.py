"""Sampling reach: how close a docking's poses came to the bound complex, and how close any
rigid placement of the unbound partners can come.

For a complex whose docking found no acceptable model, this separates the two causes:
the search never sampled near the answer, or no rigid-body pose of the unbound ligand is
acceptable at all (a large unbound-to-bound change). Prints:

- the best rigid placement: the unbound receptor and ligand each superposed (CA atoms
  matched by chain and residue number) onto the bound reference, scored with DockQ;
- per step: the closest glowworm's ligand RMSD (CA atoms, after the receptor superposition,
  normal modes applied) and how many glowworms are within 10 Å. ``init`` reads the setup's
  starting poses.

Usage:
    python benchmarks/sampling_reach.py 4GAM --setup dock_accuracy/4GAM/setup [--steps init 100]
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
from scipy.spatial.transform import Rotation

from sparkledock.analysis.evaluate import evaluate
from sparkledock.io.lightdock import load_setup, read_gso_output, read_poses
from sparkledock.molecule.pose import ligand_conformers
from sparkledock.molecule.structure import Atoms, read_structure, write_structure

HERE = Path(__file__).resolve().parent


def ca_index(atoms: Atoms) -> dict[tuple[str, int], int]:
    """Atom index of every CA, keyed by (chain, residue number)."""
    return {
        (str(atoms.chain[i]), int(atoms.res_seq[i])): i
        for i in np.flatnonzero(atoms.atom_name == "CA")
    }


def superposer(mobile: np.ndarray, target: np.ndarray):
    """The rigid motion taking ``mobile`` points onto ``target`` (least squares), as a function."""
    mc, tc = mobile.mean(0), target.mean(0)
    rotation, _ = Rotation.align_vectors(target - tc, mobile - mc)
    return lambda xyz: rotation.apply(xyz - mc) + tc


def matched(a: Atoms, b: Atoms) -> tuple[np.ndarray, np.ndarray]:
    """CA indices of ``a`` and ``b`` for the residues both have."""
    ia, ib = ca_index(a), ca_index(b)
    keys = sorted(set(ia) & set(ib))
    return np.array([ia[k] for k in keys]), np.array([ib[k] for k in keys])


def best_rigid_placement(
    receptor: Atoms, ligand: Atoms, reference: Atoms, reference_path: Path, out: Path
):
    """DockQ of the unbound partners, each superposed onto its bound counterpart
    (``reference`` is the structure read from ``reference_path``)."""
    placed = []
    for partner in (receptor, ligand):
        i, j = matched(partner, reference)
        move = superposer(partner.coords[i], reference.coords[j])
        placed.append(replace(partner, coords=move(partner.coords)))
    write_structure(Atoms.concatenate(placed), out)
    return evaluate(out, reference_path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("complex")
    parser.add_argument("--setup", type=Path, required=True, help="the docking's setup folder")
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--steps", nargs="+", default=["init", "100"])
    args = parser.parse_args()
    src = args.bench / args.complex
    reference_path = src / f"{args.complex}_target.pdb"
    reference = read_structure(reference_path)
    setup = load_setup(args.setup)
    with tempfile.TemporaryDirectory() as tmp:
        q = best_rigid_placement(
            read_structure(src / f"{args.complex}_r_u.pdb"),
            read_structure(src / f"{args.complex}_l_u.pdb"),
            reference,
            reference_path,
            Path(tmp) / "placed.pdb",
        )
    print(
        f"best rigid placement of the unbound partners: DockQ {q.dockq:.3f}, fnat {q.fnat:.3f}, "
        f"iRMSD {q.irmsd:.2f} Å, LRMSD {q.lrmsd:.2f} Å, {q.capri}"
    )

    # Bound ligand CAs in the docking's frame: superpose the reference's receptor onto the
    # setup's (centred) receptor and carry the reference's ligand along.
    rec, lig = setup.receptor.atoms, setup.ligand.atoms
    ir, jr = matched(rec, reference)
    to_setup = superposer(reference.coords[jr], rec.coords[ir])
    il, jl = matched(lig, reference)
    bound = to_setup(reference.coords[jl])
    n_swarms = int(setup.config["swarms"])
    print("| step | glowworms | closest ligand RMSD Å | swarm | within 10 Å |")
    print("|---|---|---|---|---|")
    for step in args.steps:
        best, where, near, total = np.inf, -1, 0, 0
        for swarm in range(n_swarms):
            if step == "init":
                poses = read_poses(
                    args.setup / "init" / f"initial_positions_{swarm}.dat", setup.layout
                )
            else:
                poses = read_gso_output(args.setup / f"swarm_{swarm}" / f"gso_{step}.out").poses
            xyz = ligand_conformers(
                lig.coords, setup.ligand.modes, setup.ligand.mask, np.asarray(poses), setup.layout
            )[:, il]
            rmsd = np.sqrt(((xyz - bound) ** 2).sum(-1).mean(-1))
            near += int((rmsd <= 10.0).sum())
            total += len(rmsd)
            if rmsd.min() < best:
                best, where = float(rmsd.min()), swarm
        print(f"| {step} | {total} | {best:.2f} | {where} | {near} |")


if __name__ == "__main__":
    main()
