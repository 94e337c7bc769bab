"""BSAS clustering of a swarm's glowworms on the C-alpha RMSD of their models, as LightDock's
``lgd_cluster_bsas.py`` does: glowworms by decreasing score; each joins the first cluster
whose representative (its first, best member) lies within 4 Å RMSD (rounded to 4 decimals,
no superposition), or starts a new one."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..fileutil import atomic_write_text
from ..io.lightdock import GSOOutput, read_gso_output
from ..io.setupdir import CLUSTER_FILE, model_name
from ..molecule.system import DockingSetup
from .models import complex_atoms, complex_coordinates

BSAS_CUTOFF_A = 4.0


def bsas(coords: np.ndarray, scores: np.ndarray, cutoff: float = BSAS_CUTOFF_A) -> list[list[int]]:
    """Clusters (lists of indices, representative first) of (G, n, 3) coordinates."""
    order = sorted(range(len(scores)), key=lambda g: -scores[g])  # stable, like sorted()
    clusters: list[list[int]] = []
    for g in order:
        for members in clusters:
            diff = coords[members[0]] - coords[g]
            rmsd = round(float(np.sqrt((diff * diff).sum() / len(diff))), 4)
            if rmsd <= cutoff:
                members.append(g)
                break
        else:
            clusters.append([g])
    return clusters


def backbone_mask(setup: DockingSetup) -> np.ndarray:
    """C-alpha (and nucleic P) atoms of the complex: what LightDock's clustering compares."""
    names = complex_atoms(setup).atom_name.astype(str)
    return (names == "CA") | (names == "P")


def cluster_swarm(setup: DockingSetup, gso_file: str | os.PathLike[str]) -> list[list[int]]:
    """BSAS clusters of the glowworms of one ``gso_<step>.out``."""
    return cluster_glowworms(setup, read_gso_output(gso_file))


def cluster_glowworms(setup: DockingSetup, data: GSOOutput) -> list[list[int]]:
    """BSAS clusters of one swarm's glowworms (representative first)."""
    # as the PDB models LightDock clusters hold them: receptor frame, 3 decimals
    coords = complex_coordinates(setup, data.poses, backbone_mask(setup))
    coords = np.round(coords + setup.receptor_centre, 3)
    return bsas(coords, data.scores)


def format_cluster_repr(clusters: list[list[int]], scores: np.ndarray) -> str:
    """LightDock's ``cluster.repr``: ``id:size:score:representative:lightdock_<id>.pdb``."""
    return "".join(
        f"{k}:{len(m)}:{scores[m[0]]:8.5f}:{m[0]}:{model_name(m[0])}\n"
        for k, m in enumerate(clusters)
    )


def write_cluster_repr(setup: DockingSetup, gso_file: str | os.PathLike[str]) -> Path:
    """Cluster one swarm and write ``cluster.repr`` beside its output; returns its path."""
    gso_file = Path(gso_file)
    data = read_gso_output(gso_file)
    target = gso_file.parent / CLUSTER_FILE
    atomic_write_text(target, format_cluster_repr(cluster_glowworms(setup, data), data.scores))
    return target
