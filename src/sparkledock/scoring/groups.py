"""Restraint residues as atom groups: what every scoring function's kernel flags when one of a
group's atoms is in the interface (LightDock counts a restraint satisfied when any atom of its
residue is)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import RestraintError
from ..molecule.restraints import Restraints
from ..molecule.system import Partner


def residue_groups(residue_ids: np.ndarray, wanted: list[str]) -> tuple[np.ndarray, list[str]]:
    """Per atom, the index into ``wanted`` of its residue, or −1; and residues not found."""
    index = {rid: i for i, rid in enumerate(wanted)}
    groups = np.array([index.get(r, -1) for r in residue_ids], dtype=np.int64)
    found = set(groups[groups >= 0].tolist())
    missing = [rid for i, rid in enumerate(wanted) if i not in found]
    return groups, missing


@dataclass(frozen=True)
class RestraintGroups:
    """Per atom of each partner, its active restraint's index (−1: none), and the counts."""

    receptor: np.ndarray
    n_receptor: int
    ligand: np.ndarray
    n_ligand: int


def restraint_groups(
    receptor: Partner,
    ligand: Partner,
    restraints: Restraints | None,
    names: tuple[str, str] = ("receptor", "ligand"),
) -> RestraintGroups:
    """The active restraints of both partners as atom groups.

    Raises:
        RestraintError: an active restraint names a residue absent from its partner.
    """
    out = []
    for side, partner, name in (("receptor", receptor, names[0]), ("ligand", ligand, names[1])):
        wanted = list(getattr(restraints, side).active) if restraints else []
        group, missing = residue_groups(partner.atoms.residue_ids(), wanted)
        if missing:
            raise RestraintError(
                f"{restraints.source}: {side} restraint {missing[0]} not found in {name}"
            )
        out += [group, len(wanted)]
    return RestraintGroups(*out)
