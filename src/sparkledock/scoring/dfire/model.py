"""DFIRE scoring as LightDock 0.9.4's ``fastdfire`` computes it.

Liu, Zhang, Zhou & Zhou, "A physical reference state unifies the structure-derived potential
of mean force for protein folding and binding", Proteins 56:93-101 (2004). The table ships
with sparkledock (``data/dfire.f64.xz``) as distributed with LightDock 0.9.4.

For every receptor atom i and ligand atom j with squared distance ``d2 <= 225``:
``k = trunc(2·sqrt(d2) − 1)``, ``E += table[type_i, type_j, DIST_TO_BINS[k] − 1]``; the score
is ``(E·0.0157 − 4.7)·(−1)`` (larger is better). With restraints, ``S + p_rec·S + p_lig·S −
999·p_membrane`` where ``p`` is the fraction of active restraint residues with an atom in the
interface.

LightDock quirks, reproduced when ``lightdock_compat=True`` (the default):

* Interface atoms are those in pairs with ``k <= 3`` (LightDock compares the truncated bin
  index ``k`` with its 3.9 Å cutoff), i.e. closer than 2.5 Å. Without compat: ``d <= 3.9 Å``.
* A pair at exactly 15 Å gets ``k = 29`` and bin 20, one past the 20-bin row; LightDock's flat
  index then reads the next row's first value (``table[a, b + 1, 0]``, or ``table[a + 1, 0,
  0]`` when ``b`` is the last type). Without compat: such a pair uses the last bin (19).

Always (not a switch): pairs closer than 0.5 Å have ``2·d − 1 < 0``; C truncation gives
``k = 0`` for ``0 < d < 0.5`` and undefined behaviour at ``d = 0``; sparkledock uses bin 0 for
all of them. TRP's side-chain types follow LightDock's effective mapping (its residue-atom
matrix), which differs from the names in its own type list for CE2/NE1/CZ3/CH2/CZ2.
"""

from __future__ import annotations

import lzma
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from importlib import import_module, resources
from typing import Any, ClassVar

import numpy as np

from ...backend import Engine
from ...errors import EngineError, SkippedAtomWarning, UnsupportedAtomError
from ...molecule.pose import PoseLayout
from ...molecule.residues import MEMBRANE_RESIDUE
from ...molecule.restraints import Restraints
from ...molecule.spatial import DEFAULT_TILE_SIZE, Tiles, build_tiles
from ...molecule.system import Partner
from ..groups import residue_groups, restraint_groups
from ..terms import Terms, lightdock_score

DFIRE_CUTOFF_A = 15.0
DFIRE_CUTOFF2 = DFIRE_CUTOFF_A * DFIRE_CUTOFF_A
N_TYPES = 168
N_BINS = 20
ENERGY_SCALE = 0.0157
ENERGY_OFFSET = 4.7
INTERFACE_CUTOFF_A = 3.9
#: LightDock's ``k <= 3.9`` test on the truncated index k means k <= 3.
LIGHTDOCK_INTERFACE_K_MAX = 3

#: LightDock's distance → DFIRE bin table (1-based bins), indexed by k = trunc(2d − 1).
DIST_TO_BINS = np.array(
    [
        1,
        1,
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        11,
        12,
        13,
        14,
        14,
        15,
        15,
        16,
        16,
        17,
        17,
        18,
        18,
        19,
        19,
        20,
        20,
        21,
        21,
        22,
        22,
        23,
        23,
        24,
        24,
        25,
        25,
        26,
        26,
        27,
        27,
        28,
        28,
        29,
        29,
        30,
        30,
        31,
    ],
    dtype=np.int64,
)
#: Largest k a pair within the cutoff can have (d = 15 Å → k = 29).
K_MAX = 29
#: 0-based table bin of each k (bin 20 at k = 29 is one past the row: see module notes).
BINS = DIST_TO_BINS[: K_MAX + 1] - 1
BINS.setflags(write=False)

#: Atom names of each residue in DFIRE type order; types are numbered consecutively through
#: this table (CYS N = 0 ... MMB BJ = 167), which is the order of the DCparams file.
RESIDUE_ATOMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("CYS", ("N", "CA", "C", "O", "CB", "SG")),
    ("MET", ("N", "CA", "C", "O", "CB", "CG", "SD", "CE")),
    ("PHE", ("N", "CA", "C", "O", "CB", "CG", "CD1", "CD2", "CE1", "CE2", "CZ")),
    ("ILE", ("N", "CA", "C", "O", "CB", "CG1", "CG2", "CD1")),
    ("LEU", ("N", "CA", "C", "O", "CB", "CG", "CD1", "CD2")),
    ("VAL", ("N", "CA", "C", "O", "CB", "CG1", "CG2")),
    (
        "TRP",
        ("N", "CA", "C", "O", "CB", "CG", "CD1", "CD2", "CE2", "NE1", "CE3", "CZ3", "CH2", "CZ2"),
    ),
    ("TYR", ("N", "CA", "C", "O", "CB", "CG", "CD1", "CD2", "CE1", "CE2", "CZ", "OH")),
    ("ALA", ("N", "CA", "C", "O", "CB")),
    ("GLY", ("N", "CA", "C", "O")),
    ("THR", ("N", "CA", "C", "O", "CB", "OG1", "CG2")),
    ("SER", ("N", "CA", "C", "O", "CB", "OG")),
    ("GLN", ("N", "CA", "C", "O", "CB", "CG", "CD", "OE1", "NE2")),
    ("ASN", ("N", "CA", "C", "O", "CB", "CG", "OD1", "ND2")),
    ("GLU", ("N", "CA", "C", "O", "CB", "CG", "CD", "OE1", "OE2")),
    ("ASP", ("N", "CA", "C", "O", "CB", "CG", "OD1", "OD2")),
    ("HIS", ("N", "CA", "C", "O", "CB", "CG", "ND1", "CD2", "CE1", "NE2")),
    ("ARG", ("N", "CA", "C", "O", "CB", "CG", "CD", "NE", "CZ", "NH1", "NH2")),
    ("LYS", ("N", "CA", "C", "O", "CB", "CG", "CD", "CE", "NZ")),
    ("PRO", ("N", "CA", "C", "O", "CB", "CG", "CD")),
    (MEMBRANE_RESIDUE, ("BJ",)),
)

ATOM_TYPE: dict[tuple[str, str], int] = {
    (res, atom): i
    for i, (res, atom) in enumerate((res, atom) for res, atoms in RESIDUE_ATOMS for atom in atoms)
}
KNOWN_RESIDUES = frozenset(res for res, _ in RESIDUE_ATOMS)


def lightdock_k(d2: float) -> int:
    """LightDock's bin index ``trunc(2·sqrt(d2) − 1)`` in float64, clamped at 0."""
    return max(int(math.sqrt(d2) * 2.0 - 1.0), 0)


@cache
def k_thresholds() -> np.ndarray:
    """``T[m]``: the smallest double ``d2`` for which :func:`lightdock_k` is at least ``m``.

    ``k`` steps up where ``d2 = (m + 1)²/4``; rounding in ``sqrt`` moves some of these edges
    down by one ulp, which this search finds exactly (``lightdock_k`` is monotone).
    """
    out = np.zeros(K_MAX + 2)
    for m in range(1, K_MAX + 2):
        x = (m + 1) ** 2 / 4.0
        while lightdock_k(float(np.nextafter(x, 0.0))) >= m:
            x = float(np.nextafter(x, 0.0))
        out[m] = x
    out.setflags(write=False)
    return out


#: Cells of squared distance, ``c = int(4·d2)`` (exact: scaling by 4 is exact in binary).
N_CELLS = int(DFIRE_CUTOFF2 * 4) + 1


@cache
def cell_bins() -> np.ndarray:
    """Table bin of each squared-distance cell, or −1 where the bin changes inside the cell.

    Every edge ``(m + 1)²/4`` is a multiple of 1/4, so a cell holds at most the one-ulp sliver
    below an edge that ``sqrt`` rounding creates; those few cells (−1) take the exact
    square-root path, every other pair gets its bin from one lookup. Bit-identical to
    ``BINS[lightdock_k(d2)]`` by construction (tests check it on edges and at random).
    """
    thresholds = k_thresholds()
    out = np.empty(N_CELLS, dtype=np.int64)
    for c in range(N_CELLS):
        lo, hi = c / 4.0, (c + 1) / 4.0
        mixed = any(lo < thresholds[m] < hi for m in range(1, K_MAX + 1))
        out[c] = -1 if mixed else BINS[min(lightdock_k(lo), K_MAX)]
    out.setflags(write=False)
    return out


def interface_below(lightdock_compat: bool) -> float:
    """Pairs with ``d2`` below this are interface pairs (no square root needed).

    Compat: LightDock's ``k <= 3``, i.e. below the ``k = 4`` edge; otherwise ``d <= 3.9 Å``.
    """
    if lightdock_compat:
        return float(k_thresholds()[LIGHTDOCK_INTERFACE_K_MAX + 1])
    return float(np.nextafter(INTERFACE_CUTOFF_A**2, np.inf))


@cache
def dfire_table() -> np.ndarray:
    """The DFIRE potential, (168, 168, 20) float64, read once from the packaged data."""
    raw = lzma.decompress(resources.files("sparkledock").joinpath("data/dfire.f64.xz").read_bytes())
    tri = np.frombuffer(raw, dtype="<f8").reshape(-1, N_BINS)
    rows, cols = np.triu_indices(N_TYPES)
    if len(tri) != len(rows):
        raise RuntimeError("packaged DFIRE table is corrupt (wrong size)")
    table = np.empty((N_TYPES, N_TYPES, N_BINS))
    table[rows, cols] = tri
    table[cols, rows] = tri
    table.setflags(write=False)
    return table


@cache
def padded_table(lightdock_compat: bool = True) -> np.ndarray:
    """(168, 168, 21) table whose extra bin 20 holds what a pair at exactly 15 Å scores.

    With compat, bin 20 is what LightDock's flat index ``a·3360 + b·20 + 20`` reads (the next
    row's first value; 0 past the end, where LightDock itself would fail). Without, the last
    bin is repeated.
    """
    base = dfire_table()
    out = np.empty((N_TYPES, N_TYPES, N_BINS + 1))
    out[:, :, :N_BINS] = base
    if lightdock_compat:
        flat = np.concatenate([base.ravel(), [0.0]])
        idx = np.arange(N_TYPES * N_TYPES) * N_BINS + N_BINS
        out[:, :, N_BINS] = flat[idx].reshape(N_TYPES, N_TYPES)
    else:
        out[:, :, N_BINS] = base[:, :, N_BINS - 1]
    out.setflags(write=False)
    return out


#: The DFIRE table's value for atom pairs at distances never observed in its structures
#: (mostly pairs closer than 3 Å: steric clashes).
CLASH_CAP = 10.0
#: Atoms of the backbone, whose clashes a side-chain rearrangement cannot remove.
BACKBONE_ATOMS = ("N", "CA", "C", "O")


def clash_tolerant_table(table: np.ndarray) -> np.ndarray:
    """``table`` with its clash caps (:data:`CLASH_CAP`) set to 0 for every type pair but
    backbone–backbone: side-chain overlaps cost nothing, backbone overlaps as before.

    Why: rigid-body docking of unbound structures leaves near-native poses with side chains
    that interpenetrate (the bound side-chain conformations are not there), and each such
    pair costs DFIRE +10 energy units (0.157 score); forgiving them ranks those poses much
    higher (benchmarks/notebook/performance.md, blind docking). Used for ranking (``dfire_soft``),
    not
    asked of the search.
    """
    backbone = np.zeros(N_TYPES, dtype=bool)
    for (_res, atom), t in ATOM_TYPE.items():
        backbone[t] = atom in BACKBONE_ATOMS
    both = backbone[:, None] & backbone[None, :]
    out = np.where((table == CLASH_CAP) & ~both[:, :, None], 0.0, table)
    out.setflags(write=False)
    return out


def atom_types(
    partner: Partner, *, source: str = "structure", skip_unknown: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """DFIRE type of every atom and a mask of the atoms kept.

    Raises:
        UnsupportedAtomError: an atom or residue DFIRE has no type for (unless
            ``skip_unknown``, which drops such atoms with a :class:`SkippedAtomWarning`).
    """
    atoms = partner.atoms
    types = np.array(
        [ATOM_TYPE.get((r, a), -1) for r, a in zip(atoms.res_name, atoms.atom_name, strict=True)],
        dtype=np.int64,
    )
    unknown = types < 0
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        what = (
            f"atom {atoms.atom_name[i]} of residue"
            if atoms.res_name[i] in KNOWN_RESIDUES
            else "residue"
        )
        where = f"chain {atoms.chain[i]} {atoms.res_name[i]} {atoms.res_seq[i]}{atoms.ins_code[i]}"
        if not skip_unknown:
            raise UnsupportedAtomError(
                f"{source}: DFIRE has no type for {what} {where} (atom {atoms.atom_name[i]}); "
                f"{int(unknown.sum())} such atoms in all (use {{0}} to drop them)",
                "skip_unknown",
            )
        warnings.warn(
            f"{source}: skipped {int(unknown.sum())} atoms unknown to DFIRE, first {where} "
            f"{atoms.atom_name[i]}",
            SkippedAtomWarning,
            stacklevel=3,
        )
    return types, ~unknown


@dataclass(frozen=True)
class DFIREModel:
    """Everything a DFIRE kernel needs, as arrays (built by :meth:`DFIRE.prepare`)."""

    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_types: np.ndarray
    rec_modes: np.ndarray
    rec_tiles: Tiles
    lig_xyz: np.ndarray
    lig_types: np.ndarray
    lig_modes: np.ndarray
    lig_tiles: Tiles
    table: np.ndarray
    bins: np.ndarray
    cell_bins: np.ndarray
    iface_below: float
    iface_kmax: int
    iface_d2max: float
    rec_restraint_group: np.ndarray
    n_rec_restraints: int
    lig_restraint_group: np.ndarray
    n_lig_restraints: int
    membrane_group: np.ndarray
    n_membrane: int
    lightdock_compat: bool


class DFIRE:
    """LightDock's ``fastdfire`` scoring function: prepare once, score batches of poses."""

    name = "dfire"
    summary = "DFIRE potential as LightDock's fastdfire (C); 168 atom types, 20 bins"
    molecules: ClassVar[tuple[str, ...]] = ("protein",)
    #: pairs farther apart than this (Å) add nothing (the cost model counts pairs within it)
    cutoff = DFIRE_CUTOFF_A
    #: backend -> the module of this package holding its kernel ``score_poses(model, poses,
    #: *, threads)`` returning :class:`Terms` (torch's also takes ``engine`` and returns the
    #: final scores, combined on the device by the same functions); numba and numpy agree
    #: bit for bit, torch to 1e-12 (fp64).
    backends: ClassVar[dict[str, str]] = {
        "numba": "numba_kernel",
        "numpy": "numpy_kernel",
        "torch": "torch_kernel",
    }

    def device_scorer(self, model: DFIREModel, engine: Engine, workspace_bytes: int) -> Any:
        """The model on ``engine``'s device, for GSO on torch (built once per model, engine and
        workspace)."""
        self.kernel("torch")  # the same check and message as for scoring
        torch_kernel = import_module(f"{__package__}.{self.backends['torch']}")
        return torch_kernel.device_model(model, engine, workspace_bytes)

    def fast_scorer(
        self,
        model: DFIREModel,
        starts: np.ndarray | None,
        budget_bytes: int | None,
        receptor_flex: bool = False,
    ) -> Any:
        """The fast path's scorer (:mod:`.grid`): the receptor's field over where ligands
        starting from ``starts`` (P, D) can go, with the receptor's normal modes as a local
        shift when ``receptor_flex``; raises ``FieldTooLargeError`` before building a field
        over ``budget_bytes``."""
        grid = import_module(f"{__package__}.grid")
        grid_numba = import_module(f"{__package__}.grid_numba")
        reach = grid.swarm_reach(model, starts) if starts is not None else None
        contact = grid_numba.contact_bytes(model)
        field_budget = None if budget_bytes is None else budget_bytes - contact
        field = grid.prepare_field(model, reach, budget_bytes=field_budget, also_bytes=contact)
        if receptor_flex:
            field = replace(field, shift=grid.receptor_shift(model, starts))
        return grid_numba.FastDFIRE(field, budget_bytes)

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        """Atoms with a DFIRE type (see :func:`atom_types`)."""
        return atom_types(partner, source=source, skip_unknown=skip_unknown)[1]

    def kernel(self, backend: str) -> Callable[..., np.ndarray]:
        """This function's kernel for ``backend`` (imported on first use).

        Raises:
            ValueError: the function has no kernel for that backend.
        """
        if backend not in self.backends:
            known = ", ".join(sorted(self.backends))
            raise EngineError(
                f"no {backend!r} backend for scoring {self.name!r} (available: {known})"
            )
        return import_module(f"{__package__}.{self.backends[backend]}").score_poses

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        *,
        lightdock_compat: bool = True,
        skip_unknown: bool = False,
        tile_size: int = DEFAULT_TILE_SIZE,
        names: tuple[str, str] = ("receptor", "ligand"),
    ) -> DFIREModel:
        """Type atoms, resolve restraints and build tiles for a receptor–ligand pair.

        Raises:
            UnsupportedAtomError: an atom DFIRE does not know (see ``skip_unknown``).
            RestraintError: an active restraint names a residue absent from its partner.
        """
        rec_types, rec_keep = atom_types(receptor, source=names[0], skip_unknown=skip_unknown)
        lig_types, lig_keep = atom_types(ligand, source=names[1], skip_unknown=skip_unknown)
        receptor, ligand = receptor.subset(rec_keep), ligand.subset(lig_keep)
        rec_types, lig_types = rec_types[rec_keep], lig_types[lig_keep]

        groups = restraint_groups(receptor, ligand, restraints, names)
        rec_ids = receptor.atoms.residue_ids()
        membrane_ids = sorted(set(rec_ids[receptor.atoms.res_name == MEMBRANE_RESIDUE]))
        membrane_group, _ = residue_groups(rec_ids, membrane_ids)

        rec_modes = receptor.full_modes()
        lig_modes = ligand.full_modes()
        return DFIREModel(
            layout=PoseLayout(receptor.n_modes, ligand.n_modes),
            rec_xyz=np.ascontiguousarray(receptor.atoms.coords),
            rec_types=rec_types,
            rec_modes=rec_modes,
            rec_tiles=build_tiles(receptor.atoms.coords, rec_modes, tile_size),
            lig_xyz=np.ascontiguousarray(ligand.atoms.coords),
            lig_types=lig_types,
            lig_modes=lig_modes,
            lig_tiles=build_tiles(ligand.atoms.coords, lig_modes, tile_size),
            table=padded_table(lightdock_compat),
            bins=np.array(BINS),
            cell_bins=np.array(cell_bins()),
            iface_below=interface_below(lightdock_compat),
            iface_kmax=LIGHTDOCK_INTERFACE_K_MAX if lightdock_compat else K_MAX,
            iface_d2max=np.inf if lightdock_compat else INTERFACE_CUTOFF_A**2,
            rec_restraint_group=groups.receptor,
            n_rec_restraints=groups.n_receptor,
            lig_restraint_group=groups.ligand,
            n_lig_restraints=groups.n_ligand,
            membrane_group=membrane_group,
            n_membrane=len(membrane_ids),
            lightdock_compat=lightdock_compat,
        )

    def score(
        self,
        model: DFIREModel,
        poses: np.ndarray,
        *,
        backend: str = "numba",
        threads: int | None = None,
        engine: Engine | None = None,
    ) -> np.ndarray:
        """Scores of ``poses`` (P, layout.size) → (P,) float64, larger is better.

        ``backend``: ``"numba"`` (tiled, culled, parallel over poses), ``"numpy"`` (plain
        all-pairs reference; both bit-identical) or ``"torch"``; an ``engine`` (see
        :func:`sparkledock.backend.resolve_engine`) overrides it and sets device and precision.
        """
        poses = model.layout.validate(poses)
        if engine is not None:
            backend = engine.backend
        kernel = self.kernel(backend)
        if backend == "torch":
            return kernel(model, poses, threads=threads, engine=engine)
        return dfire_score(kernel(model, poses, threads=threads))


class SoftDFIRE(DFIRE):
    """DFIRE that forgives side-chain clashes (:func:`clash_tolerant_table`): a ranking
    function for rigid-body poses of unbound structures. Everything else (types, bins,
    restraints, kernels on every backend) is DFIRE's; there is no fast (grid) mode."""

    name = "dfire_soft"
    summary = "DFIRE with side-chain clashes forgiven (ranking of unbound rigid-body poses)"
    fast_scorer = None  # the grid is built from DFIRE's own table

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        **options: Any,
    ) -> DFIREModel:
        """DFIRE's model with the clash-tolerant table."""
        model = super().prepare(receptor, ligand, restraints, **options)
        return replace(model, table=clash_tolerant_table(model.table))


def energy_to_score(energy: Any) -> Any:
    """LightDock's ``(E·0.0157 − 4.7)·(−1)``: the DFIRE score, larger is better (floats,
    arrays or tensors)."""
    return (energy * ENERGY_SCALE - ENERGY_OFFSET) * -1.0


def dfire_score(terms: Terms) -> Any:
    """The final DFIRE score of a kernel's :class:`Terms`: LightDock's combination of the DFIRE
    score with the restraint and membrane terms."""
    return lightdock_score(energy_to_score(terms.energy), terms)
