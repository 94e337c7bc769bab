"""LightDock's ``dna``: pyDock's electrostatics plus van der Waals (weight 1), no desolvation.

The terms are cpydock's (:mod:`..cpydock.model`: clamped Coulomb within 30 Å with ε = 4,
truncated Lennard-Jones within 10 Å); the energy is ``elec + vdw`` and the score minus it,
restraints combined as LightDock does (interface at 3.9 Å). Typing follows LightDock's dna
adapter: ``HIS``→``HID`` and the long nucleotide names ``THY``/``ADE``/``CYT``/``GUA`` →
``DT``/``DA``/``DC``/``DG``; N-terminal ``H1``/``H2``/``H3`` are typed as ``H``. Like
LightDock, it ignores a ``vdw.in`` weight file here (LightDock reads one from the working
directory; use a combination to reweight).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..amber import amber_atoms
from ..cpydock.model import CPyDock, PyDockModel, warn_without_hydrogens
from ..vdw.model import prepare_pair_model


class DNA(CPyDock):
    """LightDock's ``dna`` scoring function (pyDockDNA)."""

    name = "dna"
    summary = "pyDockDNA electrostatics and van der Waals (LightDock's dna)"
    molecules: ClassVar[tuple[str, ...]] = ("protein", "dna", "rna")
    #: cpydock's kernels compute these terms (its desolvation arrays are empty here)
    kernel_package = "sparkledock.scoring.cpydock"
    #: no desolvation, so no accessible areas: FreeSASA is not needed
    requires: ClassVar[dict[str, str]] = {}

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        return amber_atoms(
            partner, function=self.name, source=source, skip_unknown=skip_unknown, dna_rules=True
        )[1]

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
        """Type both partners (dna rules) and resolve restraints; no desolvation terms."""
        kept = []
        for partner, source in ((receptor, names[0]), (ligand, names[1])):
            warn_without_hydrogens(partner, source, self.name)
            _, keep = amber_atoms(
                partner,
                function=self.name,
                source=source,
                skip_unknown=skip_unknown,
                dna_rules=True,
            )
            kept.append(partner.subset(keep))
        pairs = prepare_pair_model(
            *kept, restraints, function=self.name, names=names, dna_rules=True
        )
        zeros = [np.zeros(len(p.atoms)) for p in kept]
        unseen = [np.zeros(len(p.atoms), dtype=bool) for p in kept]
        return PyDockModel(
            pairs, unseen[0], zeros[0], zeros[0], unseen[1], zeros[1], zeros[1], vdw_weight=1.0
        )

    def pair_terms(self, model: PyDockModel) -> Any:
        """Electrostatics and van der Waals (weight 1), no desolvation."""
        from ..vdw.torch_kernel import PairTerms

        return PairTerms(electrostatics=True, vdw_weight=1.0)
