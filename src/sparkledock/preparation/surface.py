"""Solvent-accessible surface and the count of swarms it calls for.

LightDock sets the number of swarms to ``ceil(SASA / 50 Å²)`` of the receptor file, computed by
freesasa with its defaults (Lee–Richards, ProtOr radii, heavy atoms of ATOM records).
sparkledock's protocol counts from its own Shrake–Rupley area (the element radii below, within
about 1.5 % of freesasa's on the benchmark complexes), so the same command gives the same
docking whether or not the optional freesasa is installed. LightDock's protocol and commands
ask for freesasa's area (``lightdock_area``) and equal LightDock's count where freesasa is
installed (the ``pydock`` extra); without it they fall back to the own area, with a warning.
"""

from __future__ import annotations

import importlib.util
import math
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
from numba import njit
from scipy.spatial import cKDTree

from ..errors import SparkledockWarning
from ..molecule.residues import MEMBRANE_RESIDUE
from ..molecule.structure import (
    MMCIF_SUFFIXES,
    Atoms,
    hydrogen_mask,
    structure_text,
    write_structure,
)

PROBE_RADIUS_A = 1.4
#: Heavy-atom radii (Å), ProtOr-like averages per element.
ELEMENT_RADII = {"C": 1.80, "N": 1.64, "O": 1.46, "S": 1.77, "SE": 1.90, "P": 1.80}
DEFAULT_RADIUS_A = 1.80
SPHERE_POINTS = 100
SURFACE_DENSITY_A2 = 50.0


def sphere_points(count: int) -> np.ndarray:
    """``count`` nearly evenly spread unit vectors (golden-angle spiral)."""
    k = np.arange(count) + 0.5
    y = 1.0 - 2.0 * k / count
    r = np.sqrt(1.0 - y * y)
    phi = k * math.pi * (3.0 - math.sqrt(5.0))
    return np.stack([np.cos(phi) * r, y, np.sin(phi) * r], axis=1)


def atom_radii(atoms: Atoms) -> np.ndarray:
    """Radius of every atom by element (name's first letter when the element is missing)."""
    elements = [str(e) or str(n)[:1] for e, n in zip(atoms.element, atoms.atom_name, strict=True)]
    return np.array([ELEMENT_RADII.get(e.upper(), DEFAULT_RADIUS_A) for e in elements])


@njit(cache=True)
def _exposed(coords, radii, starts, neighbours, unit):
    n_pts = unit.shape[0]
    out = np.zeros(coords.shape[0])
    for i in range(coords.shape[0]):
        ri = radii[i]
        free = 0
        for p in range(n_pts):
            x = coords[i, 0] + ri * unit[p, 0]
            y = coords[i, 1] + ri * unit[p, 1]
            z = coords[i, 2] + ri * unit[p, 2]
            buried = False
            for q in range(starts[i], starts[i + 1]):
                j = neighbours[q]
                dx = x - coords[j, 0]
                dy = y - coords[j, 1]
                dz = z - coords[j, 2]
                if dx * dx + dy * dy + dz * dz < radii[j] * radii[j]:
                    buried = True
                    break
            if not buried:
                free += 1
        out[i] = 4.0 * math.pi * ri * ri * free / n_pts
    return out


def atom_sasa(
    atoms: Atoms, probe: float = PROBE_RADIUS_A, points: int = SPHERE_POINTS
) -> np.ndarray:
    """Solvent-accessible area of every atom (Å²), Shrake–Rupley over the heavy atoms.

    Hydrogens get no area and bury nothing (freesasa, which LightDock's count uses, skips
    them too; given the carbon radius they would inflate the area by half).
    """
    heavy = ~hydrogen_mask(atoms)
    if not heavy.all():
        area = np.zeros(len(atoms))
        area[heavy] = atom_sasa(atoms.select(heavy), probe, points)
        return area
    radii = atom_radii(atoms) + probe
    tree = cKDTree(atoms.coords)
    pairs = tree.query_pairs(2.0 * radii.max(), output_type="ndarray")
    d = np.linalg.norm(atoms.coords[pairs[:, 0]] - atoms.coords[pairs[:, 1]], axis=1)
    pairs = pairs[d < radii[pairs[:, 0]] + radii[pairs[:, 1]]]
    both = np.concatenate([pairs, pairs[:, ::-1]])
    both = both[np.argsort(both[:, 0], kind="stable")]
    starts = np.searchsorted(both[:, 0], np.arange(len(atoms) + 1))
    return _exposed(atoms.coords, radii, starts, both[:, 1].copy(), sphere_points(points))


def swarm_count(
    atoms: Atoms, density: float = SURFACE_DENSITY_A2, sasa: np.ndarray | None = None
) -> int:
    """Swarms for a receptor: one per ``density`` Å² of accessible surface (LightDock's rule);
    ``sasa``: the per-atom areas when the caller has them already."""
    sasa = atom_sasa(atoms) if sasa is None else sasa
    return math.ceil(float(sasa.sum()) / density)


def lightdock_area_of(source: Path, raw: Atoms, without_membrane: bool = False) -> float | None:
    """The receptor's accessible area as LightDock computes it: freesasa's defaults on the
    receptor file (without its membrane beads when asked, as LightDock's ``_no_membrane``
    copy). None when freesasa is not installed or cannot read the file."""
    try:
        import freesasa
    except ImportError:
        return None
    freesasa.setVerbosity(freesasa.silent)
    text, name = structure_text(source)
    is_pdb = not (name.lower().endswith(MMCIF_SUFFIXES) or text.lstrip().startswith("data_"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "receptor.pdb"
        if is_pdb:
            lines = text.splitlines(keepends=True)
            if without_membrane:
                lines = [
                    line
                    for line in lines
                    if not (line.startswith(("ATOM", "HETATM")) and line[17:20] == MEMBRANE_RESIDUE)
                ]
            path.write_text("".join(lines))
        else:
            keep = raw.res_name.astype(str) != MEMBRANE_RESIDUE
            write_structure(raw.select(keep) if without_membrane else raw, path)
        try:
            return float(freesasa.calc(freesasa.Structure(os.fspath(path))).totalArea())
        except Exception:  # freesasa raises plain Exception on files it cannot use
            return None


def receptor_swarm_count(
    source: Path,
    raw: Atoms,
    body: Atoms,
    density: float,
    without_membrane: bool = False,
    lightdock_area: bool = False,
) -> tuple[int, str]:
    """Swarms for a receptor from its surface (LightDock's rule, ``ceil(area / density)``)
    and whose area set it: Shrake–Rupley's of ``body`` (the cleaned receptor without
    membrane, ``"sparkledock"``), or with ``lightdock_area`` freesasa's of the file
    (``"freesasa"``, LightDock's count), falling back to the own area with a warning when
    freesasa is missing or cannot read the file."""
    if not lightdock_area:
        return swarm_count(body, density), "sparkledock"
    area = lightdock_area_of(source, raw, without_membrane)
    if area is None:
        why = (
            "freesasa cannot read it"
            if importlib.util.find_spec("freesasa")
            else "freesasa is not installed (pip install freesasa for LightDock's count)"
        )
        warnings.warn(
            f"{source}: {why}, so the swarm count comes from sparkledock's own surface area "
            "(within about 1.5 % of LightDock's)",
            SparkledockWarning,
            stacklevel=2,
        )
        return swarm_count(body, density), "sparkledock"
    return math.ceil(area / density), "freesasa"
