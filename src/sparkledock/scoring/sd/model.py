"""LightDock's ``sd``: electrostatics and van der Waals with a switching function between 7
and 9 Å, over AMBER94 atoms, as LightDock 0.9.4 evaluates them.

Per receptor atom i, over ligand atoms j with d² < 81 Å² in order: e = 83·q_i·q_j/d²
(332/ε, ε = 4), the Lennard-Jones term k = ε_ij·(p² − 2p) with p = r⁶/d⁶ is added to a
**running per-receptor-atom sum** v_i (capped at 5·10⁶), and the pair adds ``e + v_i`` (times
the switch ``(81 − d²)²·(81 + 2d² − 147)/32³`` beyond 7 Å). LightDock's quirks kept: the
running sum (each pair adds every earlier pair's van der Waals term of the same receptor atom
again); atom names are typed as they are (no OP1/OP2 translation). The score is minus the
energy. Restraints: interface at 3.9 Å (inclusive).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..amber import amber_atoms
from ..vdw.model import PairModel, VdW, prepare_pair_model

SD_CUTOFF_A = 9.0


class SD(VdW):
    """LightDock's ``sd`` scoring function."""

    name = "sd"
    summary = "switched electrostatics and van der Waals, AMBER94 (LightDock's sd)"
    cutoff = SD_CUTOFF_A
    backends: ClassVar[dict[str, str]] = {"numba": "numba_kernel", "numpy": "numpy_kernel"}
    molecules: ClassVar[tuple[str, ...]] = ("protein",)

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        return amber_atoms(
            partner,
            function=self.name,
            source=source,
            skip_unknown=skip_unknown,
            translate_names=False,
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
    ) -> PairModel:
        return prepare_pair_model(
            receptor,
            ligand,
            restraints,
            function=self.name,
            skip_unknown=skip_unknown,
            names=names,
            translate_names=False,
        )
