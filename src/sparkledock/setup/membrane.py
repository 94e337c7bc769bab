"""Membrane-restricted swarms, LightDock 0.9.4's ``-membrane`` and ``-transmembrane``.

A membrane is a layer of ``MMB`` residues (one ``BJ`` bead each, normal to z) in the receptor
file, as ``lgd_create_membrane.py`` builds it. The beads' z values fall into layers wherever
consecutive sorted values are more than 10 Å apart. With ``-membrane`` (a protein on one side)
swarm centres are kept at or above the top of the upper layer; with ``-transmembrane`` (two
layers: a channel or a receptor spanning the membrane) only centres between the layers,
from the top of the lower to the bottom of the upper, are kept. The beads take no part in
placing swarms otherwise: surface, accessible area and interior test use the receptor
without them. In scoring, DFIRE subtracts 999 × the fraction of beads in the interface.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputFileError
from ..residues import MEMBRANE_BEAD, MEMBRANE_RESIDUE
from ..structure import Atoms

#: Least gap (Å) in z between two membrane layers (LightDock's ``estimate_membrane``).
LAYER_GAP_A = 10.0


def membrane_atoms(atoms: Atoms) -> np.ndarray:
    """Mask of the membrane residues' atoms."""
    return atoms.res_name.astype(str) == MEMBRANE_RESIDUE


def bead_heights(atoms: Atoms, source: str = "receptor") -> np.ndarray:
    """z of every membrane bead (``MMB``/``BJ``), in file order.

    Raises:
        InputFileError: the receptor has no membrane bead.
    """
    beads = membrane_atoms(atoms) & (atoms.atom_name.astype(str) == MEMBRANE_BEAD)
    if not beads.any():
        raise InputFileError(
            f"{source}: no membrane beads ({MEMBRANE_RESIDUE} residues with a {MEMBRANE_BEAD} "
            "atom) for a membrane setup; build them with lgd_create_membrane.py"
        )
    return atoms.coords[beads, 2].copy()


def layers(z: np.ndarray, gap: float = LAYER_GAP_A) -> list[np.ndarray]:
    """The beads' z values split into layers, lowest first: a new layer starts where sorted
    consecutive values are more than ``gap`` apart."""
    ordered = np.sort(np.asarray(z, dtype=np.float64))
    cuts = np.flatnonzero(np.abs(np.diff(ordered)) > gap) + 1
    return np.split(ordered, cuts)


def membrane_side(
    centres: np.ndarray,
    z: np.ndarray,
    shift: float,
    transmembrane: bool,
    source: str = "receptor",
) -> np.ndarray:
    """Which swarm centres (receptor's centred frame) a membrane allows. ``z``: the beads'
    heights in the input frame, ``shift``: the centring translation's z (added to them, as
    LightDock adds its ``translation``).

    Raises:
        InputFileError: ``transmembrane`` with other than two layers.
    """
    found = layers(z)
    means = [layer.mean() for layer in found]
    upper, lower = found[int(np.argmax(means))], found[int(np.argmin(means))]
    height = np.asarray(centres, dtype=np.float64).reshape(-1, 3)[:, 2]
    if transmembrane:
        if len(found) != 2:
            raise InputFileError(
                f"{source}: transmembrane setup needs two membrane layers, the beads form "
                f"{len(found)} (layers are over {LAYER_GAP_A:g} Å apart in z)"
            )
        top, bottom = upper.min() + shift, lower.max() + shift
        return (height >= bottom) & (height <= top)
    return height >= upper.max() + shift
