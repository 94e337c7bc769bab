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

import math

import numpy as np

from ..errors import InputFileError, SparkledockError
from ..molecule.residues import MEMBRANE_BEAD, MEMBRANE_RESIDUE
from ..molecule.structure import Atoms

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


#: ``lgd_create_membrane.py``'s defaults: degrees between beads on the first ring, Å between
#: rings, Å of rings beyond the first.
BEAD_ANGLE_DEG, RING_STEP_A, RING_SPAN_A = 15.0, 4.0, 30.0
#: Half-thickness (Å) of the slice about the anchor's C-alpha that sets the rings' centre.
SLICE_HALF_A = 0.5


#: The most beads a membrane may have: its PDB file numbers them (five digits).
MAX_BEADS = 99_999


def bead_count(angle_deg: float, ring_step: float, ring_span: float) -> int:
    """Beads :func:`membrane_beads` would place (about: a ring's count may differ by one
    from floating point), computed without placing them; refuses resolutions that are not
    positive finite numbers and a negative or infinite offset."""
    if not (
        math.isfinite(angle_deg) and angle_deg > 0 and math.isfinite(ring_step) and ring_step > 0
    ):
        raise SparkledockError(
            f"angular ({angle_deg}) and radius ({ring_step}) resolutions must be positive numbers"
        )
    if not (math.isfinite(ring_span) and ring_span >= 0):
        raise SparkledockError(f"the radius offset must be 0 or a positive number, got {ring_span}")
    rings = math.ceil(ring_span / ring_step)
    if rings > MAX_BEADS:
        return rings  # (at least one bead per ring)
    steps = np.maximum(0.5, angle_deg - np.arange(rings))
    return 1 + int(np.ceil(360.0 / steps).sum())


def check_resolution(angle_deg: float, ring_step: float, ring_span: float) -> None:
    """Refuse, before any work, resolutions that are not numbers or that would place more
    beads than a PDB file holds."""
    beads = bead_count(angle_deg, ring_step, ring_span)
    if beads > MAX_BEADS:
        raise SparkledockError(
            f"a membrane of {beads:,} beads or more (angular resolution {angle_deg:g}°, "
            f"rings every {ring_step:g} Å over {ring_span:g} Å) is more than a PDB file holds "
            f"({MAX_BEADS:,}); use coarser resolutions or a smaller offset"
        )


def membrane_beads(
    atoms: Atoms,
    anchor: int,
    angle_deg: float = BEAD_ANGLE_DEG,
    ring_step: float = RING_STEP_A,
    ring_span: float = RING_SPAN_A,
) -> np.ndarray:
    """A flat membrane of beads at the height of atom ``anchor`` (a C-alpha), as
    ``lgd_create_membrane.py`` builds it, point for point: (B, 3).

    The atoms within ±0.5 Å of the anchor's z form a slice; its mean x, y is the centre (the
    first bead). Rings of beads follow from the slice's radius outwards, one every
    ``ring_step`` Å over ``ring_span`` Å, each ring's angular step 1° finer than the last
    (at least 0.5°). The slice's radius is LightDock's ``max(|x_min|, |x_max|) - x_mean``
    (the smaller of the x and y values), not its half-width: kept so that beads equal
    LightDock's; it is the half-width for slices on the positive side of the origin.
    """
    check_resolution(angle_deg, ring_step, ring_span)
    z = float(atoms.coords[anchor, 2])
    inside = (atoms.coords[:, 2] >= z - SLICE_HALF_A) & (atoms.coords[:, 2] <= z + SLICE_HALF_A)
    xs, ys = atoms.coords[inside, 0].tolist(), atoms.coords[inside, 1].tolist()
    mean_x = mean_y = 0.0
    for x, y in zip(xs, ys, strict=True):  # summed in file order, as LightDock sums
        mean_x += x
        mean_y += y
    mean_x /= len(xs)
    mean_y /= len(ys)
    radius = min(max(abs(min(xs)), abs(max(xs))) - mean_x, max(abs(min(ys)), abs(max(ys))) - mean_y)
    points = [[mean_x, mean_y, z]]
    for ring, r in enumerate(np.arange(radius, radius + ring_span, ring_step).tolist()):
        step = math.radians(max(0.5, angle_deg - ring))
        for theta in np.arange(0.0, 2 * np.pi, step).tolist():
            points.append([r * math.cos(theta) + mean_x, r * math.sin(theta) + mean_y, z])
    return np.array(points, dtype=np.float64)
