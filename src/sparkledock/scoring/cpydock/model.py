"""LightDock's ``cpydock``: pyDock's electrostatics, desolvation and van der Waals terms over
AMBER94 atoms.

Per pose (receptor–ligand pairs, squared distances d²):

- electrostatics: q_i·q_j / d² for d ≤ 30 Å, each pair clamped to ±ε/332 (ε = 4, a
  distance-dependent dielectric), the sum times 332/ε;
- van der Waals: LightDock's truncated Lennard-Jones (as in ``vdw``) for d ≤ 10 Å;
- desolvation: per atom with a heavy-atom partner within 6.4 Å (nearest distance d_min), the
  buried area ``min(65 − 10·d_min, ASA)`` times its atomic solvation energy, summed per
  partner; ASA is the atom's solvent-accessible area in the unbound partner (FreeSASA with
  pyDock's radii, computed once, as LightDock does).

Energy ``elec + 0.1·vdw − (desolv_rec + desolv_lig)``; the score is minus it, restraints
combined as LightDock does (interface at 3.9 Å, inclusive).

LightDock's quirks kept:

- **The nearest-partner search reads its hydrogen flags as 32-bit words of a 64-bit array.**
  LightDock passes a NumPy int64 array (1 = heavy atom, 0 = hydrogen) that its C code reads
  as ``unsigned int``, and keeps a pair for desolvation when both words are 0. Word k is the
  low half of element k/2 (k even) or its high half, always 0 (k odd), so atom k takes part
  when k is odd or when atom k/2 is a hydrogen (:func:`lightdock_desolvation_mask`). Without
  hydrogens only odd-numbered atoms bury area, against odd-numbered partners.
-
``HIS`` is typed as ``HID`` for charges but stays ``HIS`` for ASP types; ``OXT`` takes the
ASP type of ASP's OD1. Not kept: LightDock reads an optional ``vdw.in`` in the working
directory to change the 0.1 weight; here the weight is fixed (use a combination to reweight).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, ClassVar

import numpy as np

from ...errors import EngineError, SparkledockWarning
from ...molecule.residues import NUCLEOTIDES
from ...molecule.restraints import Restraints
from ...molecule.structure import hydrogen_mask
from ...molecule.system import Partner
from ..amber import amber_atoms
from ..vdw.model import PairModel, VdW, prepare_pair_model

#: LightDock's weight of the van der Waals term.
VDW_WEIGHT = 0.1
#: Electrostatics: dielectric, conversion factor, per-pair clamp, cutoff (Å).
EPSILON = 4.0
FACTOR = 332.0
ELEC_CUTOFF_A = 30.0
#: Desolvation: partners within this (Å) bury area.
SOLVATION_CUTOFF_A = 6.4

#: residue names pyDock's ASP table reads under another name (LightDock's special cases)
_ASP_RESIDUE = {"CYX": "CYS", "HSD": "HID", "HSP": "HIP", "HSE": "HIE", "HID": "HIP"}


@cache
def solvation_table() -> dict:
    text = resources.files("sparkledock").joinpath("data/pydock_solvation.json").read_text()
    return json.loads(text)


def solvation_parameters(partner: Partner, amber_types: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per atom: atomic solvation energy and pyDock radius (0 for hydrogens), and whether it
    is heavy (LightDock's ``element != "H"``)."""
    table = solvation_table()
    asp, asp_e, asp_r = table["asp_type"], table["asp_energy"], table["asp_radius"]
    atoms = partner.atoms
    energy = np.zeros(len(atoms))
    radius = np.zeros(len(atoms))
    heavy = atoms.element != "H"
    for i in np.flatnonzero(heavy):
        res, name = str(atoms.res_name[i]), str(atoms.atom_name[i])
        if name == "OXT":
            res, name = "ASP", "OD1"
        res = _ASP_RESIDUE.get(res, res)
        kind = asp.get(res, {}).get(name)
        if kind is None:
            energy[i] = table["amber_energy"][amber_types[i]]
            radius[i] = table["amber_radius"][amber_types[i]]
        else:
            energy[i] = asp_e[str(kind)]
            radius[i] = asp_r[str(kind)]
    return energy, radius, heavy


def lightdock_desolvation_mask(heavy: np.ndarray) -> np.ndarray:
    """The atoms LightDock's nearest-partner search sees (see the module notes): atom k when
    k is odd, or when atom k // 2 is a hydrogen."""
    k = np.arange(len(heavy))
    return (k % 2 == 1) | ~heavy[k // 2]


def accessible_areas(partner: Partner, radius: np.ndarray, heavy: np.ndarray) -> np.ndarray:
    """Each atom's solvent-accessible area in the unbound partner (−1 for hydrogens), by
    FreeSASA with default parameters, heavy atoms only, at the parsed coordinates (FreeSASA's
    slices depend on the frame in the last digits), as LightDock computes it."""
    try:
        import freesasa
    except ImportError:
        raise EngineError(
            "scoring 'cpydock' needs FreeSASA: pip install 'sparkledock[pydock]'"
        ) from None
    freesasa.setVerbosity(freesasa.silent)
    structure = freesasa.Structure()
    atoms = partner.atoms
    # LightDock gives FreeSASA the atoms' parsed coordinates, not the centred ones
    coords = atoms.coords if partner.parsed_coords is None else partner.parsed_coords
    idx = np.flatnonzero(heavy)
    for i in idx:
        x, y, z = (float(v) for v in coords[i])
        structure.addAtom(
            str(atoms.atom_name[i]), str(atoms.res_name[i]), int(atoms.res_seq[i]),
            str(atoms.chain[i]), x, y, z,
        )  # fmt: skip
    structure.setRadii([float(r) for r in radius[idx]])
    result = freesasa.calc(structure)
    sasa = np.full(len(atoms), -1.0)
    sasa[idx] = [result.atomArea(k) for k in range(len(idx))]
    return sasa


def warn_without_hydrogens(partner: Partner, source: str, function: str) -> None:
    """Warn when a protein partner has no hydrogens: pyDock's AMBER charges are all-atom
    charges, so without hydrogens each residue carries about -0.9 e that is not there and
    the electrostatics mostly counts close atom pairs (benchmarks/notebook/performance.md, issue
    36)."""
    atoms = partner.atoms
    protein = ~np.isin(atoms.res_name.astype(str), list(NUCLEOTIDES))
    if protein.any() and not hydrogen_mask(atoms).any():
        warnings.warn(
            SparkledockWarning(
                f"{source}: no hydrogens; {function}'s electrostatics types atoms with AMBER's "
                "all-atom charges, so each residue carries about -0.9 e of unpaired charge and "
                "the term grows repulsive with the interface's size (add hydrogens, for "
                "example with PDBFixer or reduce, and set up without {0})",
                "noh",
            ),
            stacklevel=3,
        )


@dataclass(frozen=True)
class PyDockModel:
    """The pair model plus pyDock's per-atom desolvation parameters."""

    pairs: PairModel
    #: per atom: whether LightDock's nearest-partner search sees it (not "heavy": see the
    #: module notes), its unbound accessible area and its atomic solvation energy
    rec_heavy: np.ndarray
    rec_sasa: np.ndarray
    rec_solv: np.ndarray
    lig_heavy: np.ndarray
    lig_sasa: np.ndarray
    lig_solv: np.ndarray
    #: the van der Waals term's weight (0.1 here; 1 in LightDock's dna function)
    vdw_weight: float = VDW_WEIGHT

    @property
    def layout(self):
        return self.pairs.layout


class CPyDock(VdW):
    """LightDock's ``cpydock`` scoring function (pyDock)."""

    name = "cpydock"
    summary = "pyDock electrostatics, desolvation and 0.1 x vdw (LightDock's cpydock)"
    cutoff = ELEC_CUTOFF_A
    backends: ClassVar[dict[str, str]] = {
        "numba": "numba_kernel",
        "numpy": "numpy_kernel",
        "torch": "torch_kernel",
    }
    molecules: ClassVar[tuple[str, ...]] = ("protein",)
    #: the Python packages it needs, and the extra that installs them
    requires: ClassVar[dict[str, str]] = {"freesasa": "pydock"}

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        skip_unknown: bool = False,
        names: tuple[str, str] = ("receptor", "ligand"),
        **_: Any,
    ) -> PyDockModel:
        """Type both partners, resolve restraints and compute the unbound areas."""
        parts = []
        for partner, source in ((receptor, names[0]), (ligand, names[1])):
            warn_without_hydrogens(partner, source, self.name)
            params, keep = amber_atoms(
                partner, function=self.name, source=source, skip_unknown=skip_unknown
            )
            partner = partner.subset(keep)
            energy, radius, heavy = solvation_parameters(partner, params.types)
            sasa = accessible_areas(partner, radius, heavy)
            parts.append((partner, lightdock_desolvation_mask(heavy), sasa, energy))
        (receptor, r_heavy, r_sasa, r_solv), (ligand, l_heavy, l_sasa, l_solv) = parts
        pairs = prepare_pair_model(receptor, ligand, restraints, function=self.name, names=names)
        return PyDockModel(pairs, r_heavy, r_sasa, r_solv, l_heavy, l_sasa, l_solv)

    def pairs(self, model: PyDockModel) -> PairModel:
        return model.pairs

    def pair_terms(self, model: PyDockModel) -> Any:
        """Electrostatics, the weighted van der Waals term and desolvation."""
        from ..vdw.torch_kernel import PairTerms

        solv = (
            model.rec_heavy, model.rec_sasa, model.rec_solv,
            model.lig_heavy, model.lig_sasa, model.lig_solv,
        )  # fmt: skip
        return PairTerms(electrostatics=True, vdw_weight=model.vdw_weight, desolvation=solv)
