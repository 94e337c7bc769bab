"""LightDock's ``dfire2``: the DFIRE2 statistical potential (167 atom types, 0.5 Å bins to
15 Å), as LightDock 0.9.4 evaluates it, quirks included.

LightDock's evaluation, kept as is (each quirk changes scores, so parity needs them):

- **Every atom pair of the complex counts**, receptor–receptor and ligand–ligand included,
  not only receptor–ligand pairs: the receptor's and ligand's typed atoms are concatenated and
  every pair ``i < j`` in different residues adds ``E[t_i, t_j, bin]``. Residues are told
  apart by residue number only (chains and insertion codes ignored); the ligand's numbers are
  offset by the receptor's last one.
- **The energy is not negated, and is divided by 100**: LightDock's C returns the sum over
  100, and LightDock maximises it (its other functions maximise minus their energy).
- **The bin** is ``trunc(2·d)`` (pairs with ``2·d < 30`` count); **the interface** is
  ``2·d ≤ 3.9`` (d ≤ 1.95 Å) over the same pairs, and the restraint sets hold concatenated
  indices: a receptor restraint is satisfied when one of its atoms is the first atom of such
  a pair, a ligand restraint when one of its atoms' ligand-local index equals the second
  atom's concatenated index (so intra-receptor bonds across residues satisfy it).
- **Coordinates as parsed**: LightDock builds this function's model from the atoms' parsed
  coordinates, not the centred ones its other functions use (its ``move_to_origin`` moves
  the coordinate arrays, not the atoms), so both partners sit off the origin by the centre of
  their setup file (about 1e-3 Å for LightDock's centred setup files; the whole offset for a
  structure that is not centred). A partner without parsed coordinates uses its centred ones.
- Atoms without a DFIRE2 type (hydrogens, OXT, hetero groups) are left out silently.

Not reproduced: LightDock's C returns its interface arrays with the molecule's length whatever
the number of pairs, so the entries past the real pairs are uninitialised memory that may name
restraint atoms (on 4GAM it does); here only the real pairs count. The table is LightDock's
``dfire2_energies.npy``.
"""

from __future__ import annotations

import json
import lzma
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, ClassVar

import numpy as np

from ...backend import Engine
from ...errors import EngineError
from ...molecule.pose import PoseLayout
from ...molecule.restraints import Restraints
from ...molecule.system import Partner
from ..base import KernelScoring
from ..groups import restraint_groups
from ..terms import Terms, lightdock_score

N_TYPES = 167
N_BINS = 30
#: Pairs with 2·d at or beyond N_BINS add nothing: d < 15 Å.
DFIRE2_CUTOFF_A = N_BINS / 2.0
#: LightDock's interface test on 2·d (so d ≤ 1.95 Å).
INTERFACE_2D = 3.9


@cache
def dfire2_table() -> np.ndarray:
    raw = resources.files("sparkledock").joinpath("data/dfire2.f64.xz").read_bytes()
    table = np.frombuffer(lzma.decompress(raw), dtype="<f8").reshape(N_TYPES, N_TYPES, N_BINS)
    return table.astype(np.float64)


@cache
def dfire2_types() -> dict[str, int]:
    text = resources.files("sparkledock").joinpath("data/dfire2_types.json").read_text()
    return json.loads(text)


def typed(partner: Partner) -> tuple[np.ndarray, np.ndarray]:
    """Each atom's DFIRE2 type (−1: none) and the mask of typed atoms."""
    types = dfire2_types()
    atoms = partner.atoms
    t = np.array(
        [types.get(f"{r} {a}", -1) for r, a in zip(atoms.res_name, atoms.atom_name, strict=True)],
        dtype=np.int64,
    )
    return t, t >= 0


@dataclass(frozen=True)
class DFIRE2Model:
    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    #: concatenated (receptor, then ligand) types and residue indices (LightDock's)
    types: np.ndarray
    residues: np.ndarray
    table: np.ndarray
    rec_restraint_group: np.ndarray
    n_rec_restraints: int
    lig_restraint_group: np.ndarray
    n_lig_restraints: int


def dfire2_score(terms: Terms) -> Any:
    """The energy itself (not negated: LightDock's), restraints combined."""
    return lightdock_score(terms.energy, terms)


class DFIRE2(KernelScoring):
    """LightDock's ``dfire2`` scoring function."""

    name = "dfire2"
    summary = "DFIRE2 potential as LightDock evaluates it (every pair of the complex)"
    cutoff = DFIRE2_CUTOFF_A
    backends: ClassVar[dict[str, str]] = {
        "numba": "numba_kernel",
        "numpy": "numpy_kernel",
        "torch": "torch_kernel",
    }
    molecules: ClassVar[tuple[str, ...]] = ("protein",)

    def device_scorer(self, model: DFIRE2Model, engine: Engine, workspace_bytes: int) -> Any:
        """The model on ``engine``'s device, for GSO on torch."""
        from .torch_kernel import device_dfire2

        return device_dfire2(model, engine, workspace_bytes)

    def torch_score(
        self, model: DFIRE2Model, poses: np.ndarray, threads: int | None, engine: Engine | None
    ) -> np.ndarray:
        import torch

        engine = engine or Engine("torch", "cpu", "fp64")
        if threads and engine.device == "cpu":
            torch.set_num_threads(threads)
        scorer = self.device_scorer(model, engine, 0)
        t = torch.as_tensor(poses, dtype=torch.float64, device=engine.device)
        return scorer.score(t).cpu().numpy()

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        """Atoms with a DFIRE2 type (the others are ignored, as LightDock does)."""
        return typed(partner)[1]

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        names: tuple[str, str] = ("receptor", "ligand"),
        **_: Any,
    ) -> DFIRE2Model:
        rec_t, rec_keep = typed(receptor)
        lig_t, lig_keep = typed(ligand)
        receptor, ligand = receptor.subset(rec_keep), ligand.subset(lig_keep)
        if len(receptor.atoms) == 0 or len(ligand.atoms) == 0:
            side = names[0] if len(receptor.atoms) == 0 else names[1]
            raise EngineError(f"{side}: no atom has a DFIRE2 type")
        rec_res = receptor.atoms.res_seq.astype(np.int64)
        lig_res = ligand.atoms.res_seq.astype(np.int64) + rec_res[-1]
        groups = restraint_groups(receptor, ligand, restraints, names)

        def as_parsed(p: Partner) -> np.ndarray:
            coords = p.atoms.coords if p.parsed_coords is None else p.parsed_coords
            return np.ascontiguousarray(coords, dtype=np.float64)

        return DFIRE2Model(
            layout=PoseLayout(receptor.n_modes, ligand.n_modes),
            rec_xyz=as_parsed(receptor),
            rec_modes=receptor.full_modes(),
            lig_xyz=as_parsed(ligand),
            lig_modes=ligand.full_modes(),
            types=np.concatenate([rec_t[rec_keep], lig_t[lig_keep]]),
            residues=np.concatenate([rec_res, lig_res]),
            table=dfire2_table(),
            rec_restraint_group=groups.receptor,
            n_rec_restraints=groups.n_receptor,
            lig_restraint_group=groups.ligand,
            n_lig_restraints=groups.n_ligand,
        )

    def terms_score(self, terms: Terms) -> Any:
        return dfire2_score(terms)
