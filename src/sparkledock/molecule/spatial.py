"""Atom tiles: the spatial structure that lets kernels skip far atom pairs exactly.

A tile is a run of consecutive atoms (in file order, so a tile is a few neighbouring residues
and stays compact). Each tile knows its axis-aligned bounding box at rest and, per normal
mode, the largest displacement any of its atoms can take per unit extent. For a pose with
extents ``e``, no atom of tile ``t`` leaves its rest box grown by
``Σ_k |e_k| · reach[t, k]`` (triangle inequality), so a kernel can rule out whole tiles
before building their conformer.

Keeping atoms in file order (rather than sorting them into cells) means a kernel that walks
tiles in order visits atom pairs in the same order as an all-pairs loop; skipped pairs add
nothing, so the culled sum is bit-identical to the all-pairs sum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_TILE_SIZE = 32


@dataclass(frozen=True)
class Tiles:
    """Consecutive-atom tiles of one molecule.

    Attributes:
        starts: (T + 1,) int64; tile ``t`` holds atoms ``starts[t]:starts[t + 1]``.
        lo, hi: (T, 3) rest-state bounding boxes.
        reach: (T, M) largest mode-vector norm in each tile, per mode.
    """

    starts: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    reach: np.ndarray

    @property
    def count(self) -> int:
        return len(self.starts) - 1

    @property
    def max_size(self) -> int:
        return int(np.diff(self.starts).max(initial=0))


def build_tiles(coords: np.ndarray, full_modes: np.ndarray, size: int = DEFAULT_TILE_SIZE) -> Tiles:
    """Cut ``coords`` (N, 3) into tiles of at most ``size`` consecutive atoms.

    ``full_modes`` is (M, N, 3), zero for atoms that modes do not move.
    """
    n = len(coords)
    if size < 1:
        raise ValueError("tile size must be positive")
    starts = np.arange(0, n + size, size, dtype=np.int64)
    starts[-1] = n
    starts = np.unique(starts)
    if n == 0:
        starts = np.zeros(1, dtype=np.int64)
    count = len(starts) - 1
    lo = np.empty((count, 3))
    hi = np.empty((count, 3))
    reach = np.zeros((count, full_modes.shape[0]))
    norms = np.sqrt((full_modes**2).sum(axis=2)) if full_modes.shape[0] else None
    for t in range(count):
        a, b = starts[t], starts[t + 1]
        lo[t] = coords[a:b].min(axis=0)
        hi[t] = coords[a:b].max(axis=0)
        if norms is not None:
            reach[t] = norms[:, a:b].max(axis=1)
    return Tiles(starts, lo, hi, reach)
