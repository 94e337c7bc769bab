"""Clash-free models: restrained energy minimisation of docked complexes with OpenMM.

Rigid-body docking leaves receptor and ligand atoms interpenetrating. Each model is completed by
PDBFixer (missing heavy atoms, terminal oxygens, hydrogens at pH 7; chains are split where the
backbone is broken so no bond spans a gap; no missing loops are built), parameterised with
Amber ff99SB-ILDN and minimised with its C-alpha atoms held by harmonic restraints
(1000 kJ/mol/nm², ~2.4 kcal/mol/Å²), so side chains and the interface relax while the docked
pose stays. Two stages: in vacuum (at most 500 iterations), which removes the clashes at a
tenth of the cost of an implicit-solvent evaluation, then in OBC implicit solvent (OpenMM's
native GBSAOBCForce; the ff14SB/GBn2 files use a custom GB force five times slower on CPUs)
for at most 100 iterations, so that surface side chains settle as in water rather than in
vacuum. Both non-periodic with a 1.0 nm cutoff. Measured on a 2X9A model (2,420 atoms with
hydrogens, 2 threads): 36 s against 143 s for 500 iterations in implicit solvent at 1.6 nm,
both clash-free (benchmarks/notebook/performance.md). OpenMM and PDBFixer are an optional extra
(``pip install 'sparkledock[refine]'``); without them a one-line message says so.

Clashes are counted as receptor–ligand heavy-atom pairs closer than 2 Å.
"""

from __future__ import annotations

import io
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from ..errors import SparkledockError
from ..fileutil import atomic_write_text
from ..io.lightdock import format_lightdock_pdb
from ..molecule.structure import Atoms, hydrogen_mask, read_structure

CLASH_A = 2.0
RESTRAINT_K = 1000.0  # kJ/mol/nm² on C-alpha atoms
CUTOFF_NM = 1.0
TOLERANCE = 10.0  # kJ/mol/nm, OpenMM's minimiser convergence
MAX_ITERATIONS = 500  # in vacuum
SOLVENT_ITERATIONS = 100  # then in implicit solvent
#: consecutive residues whose C–N distance exceeds this are not bonded (a chain break)
PEPTIDE_BREAK_A = 2.0
INSTALL_HINT = "refinement needs OpenMM and PDBFixer: pip install 'sparkledock[refine]'"


def require_openmm() -> None:
    """Raise a one-line :class:`SparkledockError` when OpenMM or PDBFixer is missing."""
    try:
        import openmm  # noqa: F401
        import pdbfixer  # noqa: F401
    except ImportError:
        raise SparkledockError(INSTALL_HINT) from None


def interface_clashes(atoms: Atoms, ligand_chains: set[str], cutoff: float = CLASH_A) -> int:
    """Receptor–ligand heavy-atom pairs closer than ``cutoff`` Å."""
    heavy = atoms.select(~hydrogen_mask(atoms))
    lig = np.isin(heavy.chain.astype(str), list(ligand_chains))
    if not lig.any() or lig.all():
        return 0
    pairs = cKDTree(heavy.coords[lig]).query_ball_point(heavy.coords[~lig], cutoff)
    return int(sum(len(p) for p in pairs))


@dataclass(frozen=True)
class RefinedModel:
    """One refined model: where it went, clashes and energies before and after, time."""

    source: Path
    path: Path
    clashes_before: int
    clashes_after: int
    energy_before: float  # kJ/mol, after PDBFixer, before minimisation
    energy_after: float
    seconds: float
    #: lone residues between two chain breaks, left out (no force-field template)
    dropped_residues: int = 0


def _bonded(atoms: Atoms, names: np.ndarray, a: int, b: int, c: int) -> bool:
    """Whether residue [a, b) and the next, [b, c), are joined by a peptide bond."""
    if atoms.chain[a] != atoms.chain[b]:
        return False
    carbon, nitrogen = np.flatnonzero(names[a:b] == "C"), np.flatnonzero(names[b:c] == "N")
    if not len(carbon) or not len(nitrogen):
        return False
    gap = atoms.coords[a + carbon[0]] - atoms.coords[b + nitrogen[0]]
    return float(np.linalg.norm(gap)) <= PEPTIDE_BREAK_A


def _fragments(atoms: Atoms) -> list[tuple[int, int, int]]:
    """Bonded stretches of residues as (first atom, end atom, residue count): a new one at
    every chain change and backbone break (C–N > 2 Å)."""
    starts = [*atoms.residue_starts().tolist(), len(atoms)]
    names = atoms.atom_name.astype(str)
    out: list[tuple[int, int, int]] = []
    first, count = 0, 0
    for i in range(len(starts) - 1):
        a, b = starts[i], starts[i + 1]
        count += 1
        if b == len(atoms) or not _bonded(atoms, names, a, b, starts[i + 2]):
            out.append((first, b, count))
            first, count = b, 0
    return out


def _with_breaks(atoms: Atoms) -> tuple[str, int]:
    """PDB text with a TER after every bonded stretch (so OpenMM bonds no residues across a
    gap), and how many residues were left out: lone residues between two breaks, which no
    force-field template covers (an amino acid both N- and C-terminal)."""
    lines: list[str] = []
    dropped = 0
    for a, b, count in _fragments(atoms):
        if count == 1:
            dropped += 1
            continue
        lines.append(format_lightdock_pdb(atoms.select(np.arange(a, b))) + "TER\n")
    return "".join(lines) + "END\n", dropped


def refine_model(
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    ligand_chains: set[str],
    *,
    restraint_k: float = RESTRAINT_K,
    max_iterations: int = MAX_ITERATIONS,
    solvent_iterations: int = SOLVENT_ITERATIONS,
    threads: int | None = None,
) -> RefinedModel:
    """Refine one model file (module docstring); write the result (with hydrogens) to
    ``target`` atomically.

    Raises:
        SparkledockError: OpenMM or PDBFixer missing; the structure cannot be parameterised
            (the message names the file and OpenMM's reason).
    """
    require_openmm()
    import openmm
    from openmm import app, unit
    from pdbfixer import PDBFixer

    start = time.perf_counter()
    source, target = Path(source), Path(target)
    atoms = read_structure(source)
    before = interface_clashes(atoms, ligand_chains)
    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "model.pdb"
        text, dropped = _with_breaks(atoms.select(~hydrogen_mask(atoms)))
        prepared.write_text(text)
        fixer = PDBFixer(filename=str(prepared))
    fixer.findMissingResidues()
    fixer.missingResidues = {}
    fixer.findNonstandardResidues()
    fixer.replaceNonstandardResidues()
    fixer.removeHeterogens(keepWater=False)
    fixer.findMissingAtoms()
    fixer.addMissingAtoms()
    fixer.addMissingHydrogens(7.0)
    positions = fixer.positions.value_in_unit(unit.nanometer)
    held = [
        atom.index
        for atom in fixer.topology.atoms()
        if atom.name == "CA" and atom.element is not None and atom.element.symbol == "C"
    ]

    def context(*solvent: str) -> openmm.Context:
        forcefield = app.ForceField("amber99sbildn.xml", *solvent)
        try:
            system = forcefield.createSystem(
                fixer.topology,
                nonbondedMethod=app.CutoffNonPeriodic,
                nonbondedCutoff=CUTOFF_NM * unit.nanometer,
                constraints=app.HBonds,
            )
        except Exception as exc:  # OpenMM raises ValueError/Exception with a long text
            reason = str(exc).splitlines()[0]
            raise SparkledockError(
                f"{source}: cannot parameterise for refinement ({reason})"
            ) from None
        hold = openmm.CustomExternalForce("0.5*k*((x-x0)^2+(y-y0)^2+(z-z0)^2)")
        hold.addGlobalParameter("k", restraint_k)
        for name in ("x0", "y0", "z0"):
            hold.addPerParticleParameter(name)
        for index in held:
            hold.addParticle(index, list(positions[index]))
        system.addForce(hold)
        platform = openmm.Platform.getPlatformByName("CPU")
        properties = {"Threads": str(threads)} if threads else {}
        return openmm.Context(system, openmm.VerletIntegrator(0.001), platform, properties)

    energy = unit.kilojoule_per_mole
    vacuum, solvent = context(), context("amber99_obc.xml")
    solvent.setPositions(fixer.positions)
    e0 = solvent.getState(getEnergy=True).getPotentialEnergy().value_in_unit(energy)
    vacuum.setPositions(fixer.positions)
    openmm.LocalEnergyMinimizer.minimize(vacuum, TOLERANCE, max_iterations)
    solvent.setPositions(vacuum.getState(getPositions=True).getPositions())
    if solvent_iterations:
        openmm.LocalEnergyMinimizer.minimize(solvent, TOLERANCE, solvent_iterations)
    state = solvent.getState(getEnergy=True, getPositions=True)
    e1 = state.getPotentialEnergy().value_in_unit(energy)
    text = io.StringIO()
    app.PDBFile.writeFile(fixer.topology, state.getPositions(), text, keepIds=True)
    atomic_write_text(target, text.getvalue())
    after = interface_clashes(read_structure(target), ligand_chains)
    seconds = time.perf_counter() - start
    return RefinedModel(source, target, before, after, e0, e1, seconds, dropped)


def refine_models(
    sources: Sequence[str | os.PathLike[str]],
    folder: str | os.PathLike[str],
    ligand_chains: set[str],
    *,
    threads: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[RefinedModel]:
    """Refine each model into ``folder`` (same file names, ``refined_`` prefixed)."""
    require_openmm()
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    done = []
    for i, source in enumerate(sources):
        result = refine_model(
            source, out / f"refined_{Path(source).name}", ligand_chains, threads=threads
        )
        done.append(result)
        if progress is not None:
            progress(
                f"refined {i + 1}/{len(sources)} {Path(source).name}: clashes "
                f"{result.clashes_before} -> {result.clashes_after}, {result.seconds:.1f} s"
            )
    return done
