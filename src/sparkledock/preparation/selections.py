"""The atoms LightDock 0.9.4 places swarms from, as ProDy 2.x's selection keywords define them.

LightDock selects, on the receptor file as read (hydrogens, hetero groups and all):

- the *molecule*: ``protein or nucleic or (hetero and not water and not resname MMB)``;
- the atoms that seed swarms without restraints: ``protein and surface or nucleic and name P
  or (hetero and not water and not resname MMB)``;
- with receptor restraints: ``(within 10 of R) and surface or R``, R the restraint residues
  (``chain C and resnum N``, any insertion code).

ProDy's ``surface`` is not solvent exposure: it is a residue class, every atom of a residue
whose C-alpha carries one of the hydrophilic residue names below. ``protein`` is every atom of
a residue with a C-alpha of a known amino acid (not a water or an ion name), ``hetero`` what is
neither protein nor nucleic. The name tables are ProDy's defaults (``prody/atomic/flags.py``,
MIT licence), copied as data so that placement does not depend on ProDy.
"""

from __future__ import annotations

from string import ascii_letters

import numpy as np
from scipy.spatial import cKDTree

from ..molecule.residues import MEMBRANE_RESIDUE
from ..molecule.structure import Atoms


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


STANDARD_AMINO_ACIDS = _names(
    "ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR TRP TYR VAL"
)
#: ProDy's non-standard amino acids.
NONSTANDARD_AMINO_ACIDS = _names(
    "ARN ASH ASX CME CSB CSO CYX GLH GLX HID HIE HIP HISD HISE HISP HSD HSE HSP LYN MEN "
    "MSE PHD PTR SEC SEP TPO TYM XAA XLE"
)
AMINO_ACIDS = STANDARD_AMINO_ACIDS | NONSTANDARD_AMINO_ACIDS
#: ProDy's ``surface`` residue names (standard and non-standard).
SURFACE_RESIDUES = _names(
    "ARG ARN ASH ASN ASP ASX CSO GLH GLN GLU GLX GLY HID HIE HIP HIS HISD HISE HISP HSD "
    "HSE HSP LYN LYS PHD PRO PTR SEP SER THR TPO TYM TYR"
)
#: ProDy's ``nucleic``: nucleobases, nucleosides, nucleotides and modified bases.
NUCLEIC_RESIDUES = _names(
    "2MA 2MG 2YR 3TD 4OC 5GP 5MC 5MU 6MA 7MG A A2P A3P ADE ADN ADP AGS AMP ATP C C2P C3P "
    "C5P CDP CMP CP1 CTN CTP CYT DA DC DG DT DU G GDP GMP GTP GUA GUN MA6 MIA OMC OMG OMU "
    "PSU T THM THY TMP TPP TTP U UDP UMP UR3 URA URI UTP"
)
WATER_RESIDUES = _names("DOD H2O HOH OH2 SOL SPC T3P TIP TIP2 TIP3 TIP4 WAT")
ION_RESIDUES = _names(
    "AL BA CA CAL CD CES CL CLA CO CS CU CU1 CU2 CU2P CUA HG IN IOD K MG MN MN3 NA PB POT "
    "PT RB SOD TB TL WO4 YB ZN ZN2"
)
#: LightDock's restraint patch: surface atoms within this distance of a restraint residue.
RESTRAINT_PATCH_A = 10.0


def _residue_index(atoms: Atoms) -> np.ndarray:
    """One integer per residue (chain, number, insertion code), per atom."""
    if len(atoms) == 0:
        return np.zeros(0, dtype=np.int64)
    chain = np.unique(atoms.chain.astype(str), return_inverse=True)[1].reshape(-1)
    ins = np.unique(atoms.ins_code.astype(str), return_inverse=True)[1].reshape(-1)
    seq = atoms.res_seq.astype(np.int64) - int(atoms.res_seq.min())
    key = (chain * (int(seq.max()) + 1) + seq) * (int(ins.max()) + 1) + ins
    return np.unique(key, return_inverse=True)[1].reshape(-1)


def _by_calpha(atoms: Atoms, names: frozenset[str]) -> np.ndarray:
    """Atoms of residues whose amino-acid C-alpha has one of ``names`` (ProDy's categories)."""
    res_name = atoms.res_name.astype(str)
    calpha = (atoms.atom_name.astype(str) == "CA") & np.isin(res_name, list(AMINO_ACIDS))
    residue = _residue_index(atoms)
    flagged = np.zeros(residue.max() + 1 if len(residue) else 0, dtype=bool)
    hit = calpha & np.isin(res_name, list(names))
    flagged[residue[hit]] = True
    return flagged[residue]


def classes(atoms: Atoms) -> dict[str, np.ndarray]:
    """ProDy's ``protein``, ``surface``, ``nucleic``, ``water`` and ``hetero`` flags."""
    res_name = atoms.res_name.astype(str)
    water = np.isin(res_name, list(WATER_RESIDUES))
    ion = np.isin(res_name, list(ION_RESIDUES))
    protein = _by_calpha(atoms, AMINO_ACIDS) & ~water & ~ion
    nucleic = np.isin(res_name, list(NUCLEIC_RESIDUES))
    return {
        "protein": protein,
        "surface": _by_calpha(atoms, SURFACE_RESIDUES),
        "nucleic": nucleic,
        "water": water,
        "hetero": ~protein & ~nucleic,
    }


def molecule_mask(atoms: Atoms) -> np.ndarray:
    """LightDock's receptor molecule: protein, nucleic acid and hetero groups that are neither
    water nor membrane beads."""
    c = classes(atoms)
    groups = c["hetero"] & ~c["water"] & (atoms.res_name.astype(str) != MEMBRANE_RESIDUE)
    return c["protein"] | c["nucleic"] | groups


def seed_mask(atoms: Atoms, restraint_residues: list[str] | None = None) -> np.ndarray:
    """The molecule's atoms whose k-means centroids become LightDock's first swarm centres
    (see the module docstring); ``restraint_residues``: LightDock identifiers
    (``A.LYS.24``, ``A.GLY.5B``) of the receptor's active and passive restraints."""
    c = classes(atoms)
    molecule = molecule_mask(atoms)
    if not restraint_residues:
        phosphorus = c["nucleic"] & (atoms.atom_name.astype(str) == "P")
        groups = c["hetero"] & ~c["water"] & (atoms.res_name.astype(str) != MEMBRANE_RESIDUE)
        return molecule & ((c["protein"] & c["surface"]) | phosphorus | groups)
    chain, number = atoms.chain.astype(str), atoms.res_seq.astype(np.int64)
    listed = np.zeros(len(atoms), dtype=bool)
    for rid in restraint_residues:
        rchain, _, rnum = rid.split(".")
        listed |= (chain == rchain) & (number == int(rnum.rstrip(ascii_letters)))
    listed &= molecule
    near = np.zeros(len(atoms), dtype=bool)
    if listed.any():
        inside = np.flatnonzero(molecule)
        found = cKDTree(atoms.coords[listed]).query(
            atoms.coords[inside], distance_upper_bound=RESTRAINT_PATCH_A + 1e-9
        )[0]
        near[inside[found <= RESTRAINT_PATCH_A]] = True
    return molecule & ((near & c["surface"]) | listed)
