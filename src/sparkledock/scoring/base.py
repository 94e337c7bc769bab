"""What the scoring functions share around their kernels: the backend lookup and one-line
refusal, the engine's backend, pose validation and, for functions whose kernels return
:class:`~.terms.Terms`, LightDock's restraint combination of minus the energy."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any, ClassVar

import numpy as np

from ..backend import Engine
from ..errors import EngineError, SkippedAtomWarning, UnsupportedAtomError
from ..molecule.pose import PoseLayout
from .groups import restraint_groups
from .terms import Terms, lightdock_score


def lookup_types(
    partner: Any,
    type_of: Callable[[str, str], int],
    function: str,
    *,
    source: str = "structure",
    skip_unknown: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Per atom, ``type_of(residue, atom)`` (−1: no type) and the mask of typed atoms; an
    untyped atom is a one-line error naming ``source`` and the residue, or (with
    ``skip_unknown``) dropped with a warning. The table-typed functions share this."""
    atoms = partner.atoms
    t = np.array(
        [type_of(str(r), str(a)) for r, a in zip(atoms.res_name, atoms.atom_name, strict=True)],
        dtype=np.int64,
    )
    unknown = t < 0
    if unknown.any():
        i = int(np.flatnonzero(unknown)[0])
        where = f"chain {atoms.chain[i]} {atoms.res_name[i]} {atoms.res_seq[i]}{atoms.ins_code[i]}"
        message = (
            f"{source}: {function} has no type for atom {atoms.atom_name[i]} of residue {where}; "
            f"{int(unknown.sum())} such atoms in all"
        )
        if not skip_unknown:
            raise UnsupportedAtomError(message + " (use {0} to drop them)", "skip_unknown")
        warnings.warn(message + ", skipped", SkippedAtomWarning, stacklevel=4)
    return t, ~unknown


@dataclass(frozen=True)
class TypedAtomModel:
    """A prepared pair of partners for a function that scores typed atom pairs through one
    table (pisa, pydfire): coordinates and full-length modes of the typed atoms, their type
    indices, the table, an optional distance-bin map and the restraint atom groups."""

    layout: PoseLayout
    rec_xyz: np.ndarray
    rec_modes: np.ndarray
    lig_xyz: np.ndarray
    lig_modes: np.ndarray
    rec_types: np.ndarray
    lig_types: np.ndarray
    table: np.ndarray
    #: distance-bin map (pydfire's DIST_TO_BINS); empty where the kernel bins itself (pisa)
    bins: np.ndarray
    rec_restraint_group: np.ndarray
    n_rec_restraints: int
    lig_restraint_group: np.ndarray
    n_lig_restraints: int


def prepare_typed(
    receptor: Any,
    ligand: Any,
    restraints: Any,
    types: Callable[..., tuple[np.ndarray, np.ndarray]],
    table: np.ndarray,
    *,
    bins: np.ndarray | None = None,
    first_type: int = 0,
    skip_unknown: bool = False,
    names: tuple[str, str] = ("receptor", "ligand"),
) -> TypedAtomModel:
    """:class:`TypedAtomModel` of two partners: ``types(partner, source=, skip_unknown=)``
    gives per atom its type and the typed-atom mask (:func:`lookup_types`); untyped atoms
    are dropped (or refused there), type indices start at ``first_type``."""
    rt, rk = types(receptor, source=names[0], skip_unknown=skip_unknown)
    lt, lk = types(ligand, source=names[1], skip_unknown=skip_unknown)
    receptor, ligand = receptor.subset(rk), ligand.subset(lk)
    groups = restraint_groups(receptor, ligand, restraints, names)
    return TypedAtomModel(
        layout=PoseLayout(receptor.n_modes, ligand.n_modes),
        rec_xyz=np.ascontiguousarray(receptor.atoms.coords),
        rec_modes=receptor.full_modes(),
        lig_xyz=np.ascontiguousarray(ligand.atoms.coords),
        lig_modes=ligand.full_modes(),
        rec_types=rt[rk] - first_type,
        lig_types=lt[lk] - first_type,
        table=table,
        bins=np.zeros(0, dtype=np.int64) if bins is None else np.ascontiguousarray(bins),
        rec_restraint_group=groups.receptor,
        n_rec_restraints=groups.n_receptor,
        lig_restraint_group=groups.ligand,
        n_lig_restraints=groups.n_ligand,
    )


def refuse_normal_modes(function: str, partners: Any, names: tuple[str, str]) -> None:
    """One line for a partner with normal modes given to a rigid-only function (LightDock
    refuses ANM with its mj3h and tobi)."""
    for partner, source in zip(partners, names, strict=True):
        if partner.n_modes:
            raise EngineError(
                f"{source}: scoring {function!r} has no normal-mode support (LightDock refuses "
                "ANM with it); use a setup without normal modes"
            )


class KernelScoring:
    """A scoring function with one kernel module per backend (``backends``: backend → module
    name in the function's folder, or in ``kernel_package``); kernels are
    ``score_poses(model, poses, *, threads) -> Terms``."""

    name: ClassVar[str]
    backends: ClassVar[dict[str, str]]
    #: the package holding the kernel modules (default: the function's own folder)
    kernel_package: ClassVar[str | None] = None

    def require(self, backend: str) -> None:
        """A one-line EngineError unless this function has a kernel for ``backend``."""
        if backend not in self.backends:
            known = ", ".join(sorted(self.backends))
            raise EngineError(
                f"no {backend!r} backend for scoring {self.name!r} (available: {known})"
            )

    def kernel(self, backend: str) -> Callable[..., Any]:
        """This function's kernel for ``backend``, or a one-line EngineError."""
        self.require(backend)
        package = self.kernel_package or type(self).__module__.rpartition(".")[0]
        return import_module(f"{package}.{self.backends[backend]}").score_poses

    def reference_coordinates(self, model: Any) -> np.ndarray | None:
        """The ligand points whose minimum-volume ellipsoid centre is the glowworms'
        reference point (LightDock takes it from its scoring adapter's ligand model); None:
        the ligand's atoms."""
        return None

    def terms_score(self, terms: Terms) -> Any:
        """The score from a kernel's terms: minus the energy, restraints combined."""
        return lightdock_score(terms.energy * -1.0, terms)

    def torch_score(
        self, model: Any, poses: np.ndarray, threads: int | None, engine: Engine | None
    ) -> np.ndarray:
        raise NotImplementedError  # (only reached with "torch" in ``backends``)

    def device_scorer(self, model: Any, engine: Engine, workspace_bytes: int) -> Any:
        self.require("torch")  # the one-line refusal without a torch kernel
        raise NotImplementedError

    def score(
        self,
        model: Any,
        poses: np.ndarray,
        *,
        backend: str = "numba",
        threads: int | None = None,
        engine: Engine | None = None,
    ) -> np.ndarray:
        """Scores of ``poses`` (P, layout.size) → (P,) float64, larger is better."""
        poses = model.layout.validate(poses)
        if engine is not None:
            backend = engine.backend
        if backend == "torch":
            self.require(backend)
            return self.torch_score(model, poses, threads, engine)
        return self.terms_score(self.kernel(backend)(model, poses, threads=threads))
