"""Ranking cluster representatives of all swarms by score (LightDock's ``lgd_rank.py``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputFileError
from ..fileutil import atomic_write_text, read_text_input
from ..io.lightdock import GSOOutput, read_gso_output, split_pose_line
from ..io.pack import ensure_unpacked
from ..io.setupdir import SetupDir, model_name

RANKING_HEADER = (
    "Swarm  Glowworm   Coordinates                                             "
    "RecID  LigID  Luciferin  Neigh   VR     RMSD    PDB             Clashes  Scoring\n"
)


@dataclass(frozen=True)
class Ranked:
    """One ranked solution: a cluster representative of a swarm."""

    swarm: int
    glowworm: int
    pose: tuple[float, ...]
    luciferin: float
    neighbors: int
    vision_range: float
    score: float

    def line(self) -> str:
        coords = "(" + ", ".join(f"{c:5.3f}" for c in self.pose) + ")"
        return (
            f"{self.swarm:5d} {self.glowworm:6d} {coords:>60s} {0:6d} {0:6d} "
            f"{self.luciferin:11.5f} {self.neighbors:5d} {self.vision_range:7.3f} "
            f"{-1.0:8.3f} {model_name(self.glowworm):>16s} {0:6d} {self.score:8.3f}"
        )


def read_cluster_repr(path: str | os.PathLike[str]) -> list[int]:
    """Representative glowworm ids of a ``cluster.repr``, in file order."""
    return list(read_cluster_sizes(path))


def read_cluster_sizes(path: str | os.PathLike[str]) -> dict[int, int]:
    """Each representative glowworm id of a ``cluster.repr`` and its cluster's size, in file
    order."""
    path = Path(path)
    if not path.exists():
        raise InputFileError(f"{path}: no such file (cluster the swarm first)")
    sizes = {}
    for lineno, line in enumerate(read_text_input(path, "cluster").splitlines(), start=1):
        try:
            fields = line.split(":")
            sizes[int(fields[3])] = int(fields[1])
        except (IndexError, ValueError):
            raise InputFileError(f"{path}:{lineno}: malformed cluster line") from None
    return sizes


def rank(
    root: str | os.PathLike[str],
    swarms: list[int],
    step: int,
    use_clusters: bool = True,
    *,
    require_clusters: bool = True,
    gso_name: str | None = None,
) -> list[Ranked]:
    """Representatives (or all glowworms) of the swarms at ``step``, best score first.

    With ``require_clusters=False`` a swarm without ``cluster.repr`` contributes all its
    glowworms (LightDock's ``lgd_rank.py``); ``gso_name`` reads another file than
    ``gso_<step>.out`` in each swarm folder.
    """
    return rank_glowworms(
        chosen_glowworms(
            root, swarms, step, use_clusters, require_clusters=require_clusters, gso_name=gso_name
        )
    )


def chosen_glowworms(
    root: str | os.PathLike[str],
    swarms: list[int],
    step: int,
    use_clusters: bool = True,
    *,
    require_clusters: bool = True,
    gso_name: str | None = None,
) -> dict[int, tuple[GSOOutput, list[int] | None]]:
    """Per swarm, its glowworms at ``step`` and the ids to rank (its cluster representatives,
    or None: all), as :func:`rank` reads them."""
    folder = SetupDir(root)
    chosen = {}
    for swarm in swarms:
        gso = folder.swarm(swarm) / gso_name if gso_name else folder.gso(swarm, step)
        data = read_gso_output(gso)
        clusters = folder.cluster(swarm)
        clustered = use_clusters and (require_clusters or clusters.is_file())
        chosen[swarm] = (data, read_cluster_repr(clusters) if clustered else None)
    return chosen


def rank_glowworms(chosen: dict[int, tuple[GSOOutput, Sequence[int] | None]]) -> list[Ranked]:
    """Rank swarms' glowworms, best score first: per swarm, its final glowworms and the ids
    to rank (its cluster representatives; all glowworms for None)."""
    solutions = []
    for swarm, (data, ids) in chosen.items():
        solutions.extend(
            Ranked(
                swarm,
                g,
                tuple(data.poses[g]),
                float(data.luciferin[g]),
                int(data.neighbors[g]),
                float(data.vision_range[g]),
                float(data.scores[g]),
            )
            for g in (range(len(data.scores)) if ids is None else ids)
        )
    return sorted(solutions, key=lambda r: -r.score)


def write_ranking(path: str | os.PathLike[str], ranking: list[Ranked]) -> None:
    """``rank_by_scoring.list`` in LightDock's format."""
    atomic_write_text(path, RANKING_HEADER + "".join(r.line() + "\n" for r in ranking))


def read_ranking(path: str | os.PathLike[str]) -> list[Ranked]:
    """Read a ranking in LightDock's format (ours or LightDock's ``rank_by_scoring.list``;
    a finished docking's, packed with its swarm files, is unpacked first)."""
    path = Path(path)
    if not path.is_file():
        ensure_unpacked(path.parent)
    out = []
    for lineno, line in enumerate(read_text_input(path, "ranking").splitlines(), start=1):
        if not line.strip() or line.startswith("Swarm"):
            continue
        try:
            head, pose, fields = split_pose_line(line)
            swarm, glowworm = (int(v) for v in head)
            out.append(
                Ranked(
                    swarm,
                    glowworm,
                    tuple(pose),
                    float(fields[2]),
                    int(fields[3]),
                    float(fields[4]),
                    float(fields[-1]),
                )
            )
        except ValueError:
            raise InputFileError(f"{path}:{lineno}: malformed ranking line") from None
    return out
