"""LightDock's ``vdw``: a truncated Lennard-Jones energy over AMBER94 atoms.

Per receptor–ligand pair closer than 10 Å (inclusive): ε = √(ε_i·ε_j), r = r_i + r_j,
p = r⁶ / d⁶ (``pow(r, 6) / pow(d², 3)``, LightDock's expression), e = ε·(p² − 2p), capped
at +1 kcal/mol; the score is minus the sum. Restraints count a residue as satisfied when one
of its atoms is within 3.9 Å (inclusive) of the other partner; LightDock's combination
``S + p_rec·S + p_lig·S`` follows. LightDock's vdw knows no membrane beads (an ``MMB`` residue
has no AMBER type: a one-line error).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...backend import Engine
from ...molecule.pose import PoseLayout
from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..amber import amber_atoms
from ..base import KernelScoring
from ..groups import restraint_groups
from ..terms import Terms, lightdock_score

#: Pairs farther apart than this (Å) add nothing.
VDW_CUTOFF_A = 10.0
#: The per-pair energy cap (kcal/mol).
VDW_CAP = 1.0
#: LightDock's restraint interface cutoff for this function (Å, inclusive).
INTERFACE_CUTOFF_A = 3.9


@dataclass(frozen=True)
class PairModel:
    """What a pairwise AMBER kernel needs, as arrays: coordinates, dense modes, per-atom
    parameters and restraint groups (no membrane: these functions know none)."""

    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    #: per atom: Lennard-Jones well depth and radius, partial charge
    rec_eps: np.ndarray
    rec_radius: np.ndarray
    rec_charge: np.ndarray
    lig_eps: np.ndarray
    lig_radius: np.ndarray
    lig_charge: np.ndarray
    rec_restraint_group: np.ndarray
    n_rec_restraints: int
    lig_restraint_group: np.ndarray
    n_lig_restraints: int


def prepare_pair_model(
    receptor: Partner,
    ligand: Partner,
    restraints: Restraints | None,
    *,
    function: str,
    skip_unknown: bool = False,
    names: tuple[str, str] = ("receptor", "ligand"),
    dna_rules: bool = False,
    translate_names: bool = True,
) -> PairModel:
    """Type both partners with AMBER94 (``dna_rules``: LightDock's dna adapter's names) and
    resolve restraints.

    Raises:
        UnsupportedAtomError: an atom without AMBER parameters (see ``skip_unknown``).
        RestraintError: an active restraint names a residue absent from its partner.
    """
    rules = {"dna_rules": dna_rules, "translate_names": translate_names}
    rec_p, rec_keep = amber_atoms(
        receptor, function=function, source=names[0], skip_unknown=skip_unknown, **rules
    )
    lig_p, lig_keep = amber_atoms(
        ligand, function=function, source=names[1], skip_unknown=skip_unknown, **rules
    )
    receptor, ligand = receptor.subset(rec_keep), ligand.subset(lig_keep)
    groups = restraint_groups(receptor, ligand, restraints, names)
    return PairModel(
        layout=PoseLayout(receptor.n_modes, ligand.n_modes),
        rec_xyz=np.ascontiguousarray(receptor.atoms.coords),
        rec_modes=receptor.full_modes(),
        lig_xyz=np.ascontiguousarray(ligand.atoms.coords),
        lig_modes=ligand.full_modes(),
        rec_eps=rec_p.epsilon,
        rec_radius=rec_p.radius,
        rec_charge=rec_p.charge,
        lig_eps=lig_p.epsilon,
        lig_radius=lig_p.radius,
        lig_charge=lig_p.charge,
        rec_restraint_group=groups.receptor,
        n_rec_restraints=groups.n_receptor,
        lig_restraint_group=groups.ligand,
        n_lig_restraints=groups.n_ligand,
    )


def vdw_score(terms: Terms) -> Any:
    """The function's score from its kernel's terms: minus the energy, restraints combined."""
    return lightdock_score(terms.energy * -1.0, terms)


class VdW(KernelScoring):
    """LightDock's ``vdw`` scoring function: prepare once, score batches of poses."""

    name = "vdw"
    summary = "truncated Lennard-Jones over AMBER94 atoms (LightDock's vdw)"
    cutoff = VDW_CUTOFF_A
    backends: ClassVar[dict[str, str]] = {
        "numba": "numba_kernel",
        "numpy": "numpy_kernel",
        "torch": "torch_kernel",
    }
    molecules: ClassVar[tuple[str, ...]] = ("protein", "dna", "rna")

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        """Atoms with AMBER94 parameters."""
        return amber_atoms(partner, function=self.name, source=source, skip_unknown=skip_unknown)[1]

    def pair_terms(self, model: PairModel) -> Any:
        """The terms the shared torch kernel computes for this function (van der Waals)."""
        from .torch_kernel import PairTerms

        return PairTerms(electrostatics=False, vdw_weight=1.0)

    def pairs(self, model: Any) -> PairModel:
        return model

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        skip_unknown: bool = False,
        names: tuple[str, str] = ("receptor", "ligand"),
        **_: Any,
    ) -> PairModel:
        return prepare_pair_model(
            receptor, ligand, restraints, function=self.name, skip_unknown=skip_unknown, names=names
        )

    def device_scorer(self, model: Any, engine: Engine, workspace_bytes: int) -> Any:
        """The model on ``engine``'s device, for GSO on torch."""
        from .torch_kernel import device_pairs

        self.require("torch")  # (a subclass without a torch kernel refuses in one line)

        return device_pairs(self.pairs(model), self.pair_terms(model), engine, workspace_bytes)

    def torch_score(
        self, model: Any, poses: np.ndarray, threads: int | None, engine: Engine | None
    ) -> np.ndarray:
        from .torch_kernel import score_with

        return score_with(
            self.pairs(model), self.pair_terms(model), poses, threads=threads, engine=engine
        )
