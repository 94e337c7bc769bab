"""The docking system: the two partners (atoms, normal modes, mode masks) and what a setup
describes (partners, pose layout, options, frames). What scoring, setup, GSO and analysis
take; :mod:`.io` only reads and writes the files behind it."""

from __future__ import annotations

import string
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .pose import PoseLayout
from .structure import Atoms


@dataclass(frozen=True)
class Partner:
    """Receptor or ligand as docked: atoms centred at the origin, with flexibility.

    Attributes:
        atoms: the atom table (coordinates already centred).
        modes: (M, n_masked, 3) normal-mode displacement vectors (M may be 0).
        mask: (N,) bool, the atoms that normal modes move.
        parsed_coords: (N, 3) the coordinates as the structure file gave them, before
            centring, when known (LightDock's dfire2 scores those: see its notes).
    """

    atoms: Atoms
    modes: np.ndarray
    mask: np.ndarray
    parsed_coords: np.ndarray | None = None

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

    def subset(self, keep: np.ndarray) -> Partner:
        """The partner restricted to the atoms in ``keep`` (modes follow their atoms)."""
        if keep.all():
            return self
        parsed = None if self.parsed_coords is None else self.parsed_coords[keep]
        return Partner(
            self.atoms.select(keep), self.modes[:, keep[self.mask], :], self.mask[keep], parsed
        )

    def without_modes(self) -> Partner:
        """The same atoms with no normal modes (for rigid-only scoring functions)."""
        return replace(self, modes=np.zeros((0, int(self.mask.sum()), 3)))

    @classmethod
    def rigid(cls, atoms: Atoms) -> Partner:
        """A partner without normal modes."""
        return cls(atoms, np.zeros((0, len(atoms), 3)), np.ones(len(atoms), dtype=bool))


@dataclass(frozen=True)
class DockingSetup:
    """What a LightDock setup directory describes: two partners and the pose layout."""

    path: Path
    receptor: Partner
    ligand: Partner
    layout: PoseLayout
    config: dict
    #: centre of the receptor as its parsed file places it (LightDock's frame: clustering)
    receptor_centre: np.ndarray
    #: where the centred receptor sits in the frame models are written in: the input
    #: structure's frame for sparkledock's setups, the parsed file's for LightDock's
    model_centre: np.ndarray

    # (setup.json's entries that the stages read, typed; ``config`` keeps the whole file)
    @property
    def n_swarms(self) -> int:
        """How many swarms the setup has."""
        return int(self.config.get("swarms", 0))

    @property
    def n_glowworms(self) -> int:
        """Glowworms per swarm."""
        return int(self.config.get("glowworms", 0))

    @property
    def paratope(self) -> list[str]:
        """The CDR residues (LightDock ids) of a setup made with ``--paratope`` (else none)."""
        return list(self.config.get("paratope") or [])

    def structure_name(self, partner: str) -> str:
        """The file name setup.json gives ``partner``'s structure (``receptor``/``ligand``)."""
        return str(self.config[f"{partner}_pdb"])


CHAIN_IDS = string.ascii_uppercase + string.ascii_lowercase + string.digits


def ligand_chain_ids(receptor: Atoms, ligand: Atoms) -> dict[str, str]:
    """The ligand's chain ids in a complex: kept, except those the receptor also has, which
    take the first ids neither partner uses (so the two partners stay apart in models)."""
    rec = set(receptor.chain.astype(str))
    lig = list(dict.fromkeys(ligand.chain.astype(str)))
    free = (c for c in CHAIN_IDS if c not in rec and c not in lig)
    return {c: (next(free) if c in rec else c) for c in lig}
