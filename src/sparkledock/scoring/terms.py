"""Restraint and membrane terms, combined once for every scoring function and backend.

A kernel returns, per pose, its interaction energy and the fraction of each restraint group
(receptor and ligand restraint residues, membrane beads) that has an atom in the interface
(:class:`Terms`). :func:`lightdock_score` turns a function's score and those fractions into
LightDock's final score, ``S + p_rec·S + p_lig·S − 999·p_membrane``, in LightDock's operation
order. It is plain arithmetic, so the same function runs on floats, NumPy arrays and torch
tensors and gives the same bits on each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: What a membrane bead in the interface costs, per unit of the fraction of beads hit.
MEMBRANE_PENALTY = 999.0


@dataclass(frozen=True)
class Terms:
    """Per pose: the interaction energy and the fractions of restraint groups hit (arrays
    or tensors of one length)."""

    energy: Any
    p_receptor: Any
    p_ligand: Any
    p_membrane: Any


def lightdock_score(score: Any, terms: Terms) -> Any:
    """LightDock's restraint and membrane combination of a function's ``score``.

    ``− 999·p`` equals LightDock's "``− 999·p`` if ``p > 0``" bit for bit, since ``p ≥ 0``.
    """
    return (
        score
        + terms.p_receptor * score
        + terms.p_ligand * score
        - MEMBRANE_PENALTY * terms.p_membrane
    )
