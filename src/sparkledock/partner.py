"""A docking partner: centred atoms plus their normal modes and mode mask."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .structure import Atoms


@dataclass(frozen=True)
class Partner:
    """Receptor or ligand as docked: atoms centred at the origin, with flexibility.

    Attributes:
        atoms: the atom table (coordinates already centred).
        modes: (M, n_masked, 3) normal-mode displacement vectors (M may be 0).
        mask: (N,) bool, the atoms that normal modes move.
    """

    atoms: Atoms
    modes: np.ndarray
    mask: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.atoms)
        if self.mask.shape != (n,) or self.mask.dtype != bool:
            raise ValueError(
                f"mode mask must be ({n},) bool, got {self.mask.shape} {self.mask.dtype}"
            )
        if self.modes.ndim != 3 or self.modes.shape[1:] != (int(self.mask.sum()), 3):
            raise ValueError(
                f"modes must have shape (M, {int(self.mask.sum())}, 3) for this mask, "
                f"got {self.modes.shape}"
            )

    @property
    def n_modes(self) -> int:
        return int(self.modes.shape[0])

    def full_modes(self) -> np.ndarray:
        """Modes spread over all atoms: (M, N, 3), zero for atoms outside the mask.

        Adding a zero displacement leaves a coordinate bit-identical, so kernels can use this
        dense form and still reproduce masked updates exactly.
        """
        full = np.zeros((self.n_modes, len(self.atoms), 3))
        full[:, self.mask, :] = self.modes
        return full

    @classmethod
    def rigid(cls, atoms: Atoms) -> Partner:
        """A partner without normal modes."""
        return cls(atoms, np.zeros((0, len(atoms), 3)), np.ones(len(atoms), dtype=bool))
