"""Starting poses drawn as LightDock 0.9.4 draws them, so a setup's files equal LightDock's.

sparkledock's own poses (:mod:`.poses`) give every swarm its own counter-based generator, so a
swarm's poses do not depend on the others. LightDock instead draws every swarm's poses, in
swarm order, from one Mersenne Twister (Python's ``random``, seeded with the starting-points
seed) and the mode extents from one NumPy ``RandomState`` (the ANM seed). This module repeats
those draws and the arithmetic around them one pose at a time, with the same Python and NumPy
operations, so that ``init/initial_positions_*.dat`` are LightDock's byte for byte:

- the translation: rejection sampling in the cube of side ``2 × radius`` (three uniforms per
  try) until the point falls inside the ball;
- the rotation: with restraints on the ligand, the shortest-arc quaternion turning a random
  ligand restraint residue (its C-alpha, else P, else central atom) toward a random one of the
  ten receptor restraint residues nearest the swarm centre (LightDock measures "nearest" from
  the residues' coordinates in the input file's frame to the centre in the centred frame, a
  quirk kept here); with ``flip`` a uniform above 0.5 replaces it by LightDock's unnormalised
  half-turn; with ligand restraints only, toward a point on the line from the receptor's centre
  to the swarm centre; otherwise a uniformly random quaternion (three uniforms);
- the extents: ``RandomState(anm_seed).normal(0, 1)``, receptor's then ligand's, per pose.
"""

from __future__ import annotations

import math
import random

import numpy as np
from scipy.spatial.transform import Rotation

from ..errors import InputFileError
from ..molecule.geometry import lightdock_rotate
from ..molecule.pose import PoseLayout

#: LightDock orients toward one of this many receptor restraint residues nearest the swarm.
CLOSEST_RESTRAINTS = 10
#: LightDock refuses ligand-only restraints when a swarm centre lies this many ligand
#: diameters from the receptor's centre.
MAX_CENTRE_COEFFICIENT = 1.5


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v)
    return v if norm < 0.00001 else v / norm


def _normalised(q: tuple[float, float, float, float]) -> tuple[float, ...]:
    w, x, y, z = q
    norm = math.sqrt((w * w) + (x * x) + (y * y) + (z * z))
    return (w / norm, x / norm, y / norm, z / norm)


def _towards(a: np.ndarray, b: np.ndarray) -> tuple[float, ...]:
    """The shortest-arc unit quaternion turning direction ``a`` onto ``b`` (LightDock's
    ``quaternion_from_vectors``)."""
    u, v = _unit(a), _unit(b)
    norms = np.sqrt(np.dot(u, u) * np.dot(v, v))
    real = norms + np.dot(u, v)
    if real < 1.0e-6 * norms:
        real = 0.0
        w = [-u[1], u[0], 0.0] if abs(u[0]) > abs(u[2]) else [0.0, -u[2], u[1]]
    else:
        w = np.cross(u, v)
    return _normalised((real, w[0], w[1], w[2]))


def _uniform_quaternion(draw: random.Random) -> tuple[float, ...]:
    u1, u2, u3 = draw.random(), draw.random(), draw.random()
    return (
        math.sqrt(1 - u1) * math.sin(2 * math.pi * u2),
        math.sqrt(1 - u1) * math.cos(2 * math.pi * u2),
        math.sqrt(u1) * math.sin(2 * math.pi * u3),
        math.sqrt(u1) * math.cos(2 * math.pi * u3),
    )


def _in_ball(draw: random.Random, radius: float) -> tuple[float, float, float]:
    r2 = radius**2
    while True:
        x = (2 * draw.random() - 1) * radius
        y = (2 * draw.random() - 1) * radius
        z = (2 * draw.random() - 1) * radius
        if x**2 + y**2 + z**2 <= r2:
            return x, y, z


def lightdock_poses(
    centres: np.ndarray,
    glowworms: int,
    layout: PoseLayout,
    seed: int,
    modes_seed: int,
    radius: float,
    rec_sites: np.ndarray | None,
    lig_sites: np.ndarray | None,
    rec_translation: np.ndarray,
    lig_translation: np.ndarray,
    ligand_diameter: float,
    flip: bool = False,
    source: str = "setup",
) -> np.ndarray:
    """Starting poses (S, G, layout.size) as LightDock 0.9.4 draws them (module docstring).

    ``centres``: swarm centres (receptor's centred frame), in swarm order. ``rec_sites`` and
    ``lig_sites``: each restraint residue's C-alpha (else P, else central atom) in its input
    file's frame, active then passive as LightDock lists them (None or empty: no restraints on
    that partner); ``rec_translation``/``lig_translation``: what centres each partner.

    Raises:
        InputFileError: ligand-only restraints with a swarm centre further than 1.5 ligand
            diameters from the receptor's centre (LightDock stops there too).
    """
    draw = random.Random(seed)
    extents = np.random.RandomState(modes_seed)
    rt = [float(v) for v in rec_translation]
    lt = [float(v) for v in lig_translation]
    has_rec = rec_sites is not None and len(rec_sites) > 0
    has_lig = lig_sites is not None and len(lig_sites) > 0
    out = np.empty((len(centres), glowworms, layout.size))
    for row, centre in enumerate(np.asarray(centres, dtype=np.float64).reshape(-1, 3)):
        c = [float(v) for v in centre]
        closest: list[int] = []
        if has_rec:
            gaps = [
                (i, math.sqrt((s[0] - c[0]) ** 2 + (s[1] - c[1]) ** 2 + (s[2] - c[2]) ** 2))
                for i, s in enumerate(rec_sites.tolist())
            ]
            closest = [i for i, _ in sorted(gaps, key=lambda t: t[1])[:CLOSEST_RESTRAINTS]]
        for g in range(glowworms):
            x, y, z = _in_ball(draw, radius)
            tx, ty, tz = c[0] + x, c[1] + y, c[2] + z
            if has_lig:
                if has_rec:
                    r_site = rec_sites[closest[int(draw.random() * len(closest))]].tolist()
                else:
                    coef = math.sqrt(c[0] ** 2 + c[1] ** 2 + c[2] ** 2) / ligand_diameter
                    if coef > MAX_CENTRE_COEFFICIENT:
                        raise InputFileError(
                            f"{source}: swarm {row} lies {coef:.2f} ligand diameters from the "
                            "receptor's centre; ligand-only restraints need swarms within 1.5"
                        )
                    r_site = [c[k] * coef - rt[k] for k in range(3)]
                l_site = lig_sites[int(draw.random() * len(lig_sites))].tolist()
                lx, ly, lz = (l_site[k] + lt[k] for k in range(3))
                rx, ry, rz = (r_site[k] + rt[k] for k in range(3))
                q = _towards(np.array([lx, ly, lz]), np.array([rx - tx, ry - ty, rz - tz]))
                if flip and draw.random() > 0.5:
                    turned = np.array(lightdock_rotate(q, [lx, ly, lz]))
                    axis = _unit(np.array([tx, ty, tz]))
                    v = Rotation.from_rotvec(np.pi * axis).apply(turned)
                    q = (0.0, v[0], v[1], v[2])  # LightDock leaves it unnormalised
            else:
                q = _uniform_quaternion(draw)
            out[row, g, :7] = [tx, ty, tz, *q]
            n_modes = layout.n_rec + layout.n_lig
            for k in range(n_modes):
                out[row, g, 7 + k] = extents.normal(0.0, 1.0)
    return out
