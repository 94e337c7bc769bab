"""Scoring functions behind one small interface, and their one registry.

A scoring function has ``prepare(receptor, ligand, restraints) -> model``,
``score(model, poses) -> (P,) scores`` (batched, larger is better) and ``backends``, the
backends it has kernels for. One with a torch kernel also offers ``device_scorer(model, engine,
workspace_bytes)``: a :class:`DeviceScorer` that GSO on torch calls on poses already on the
device. A new function is a folder of its own (see ``dfire/``) and a line in
:data:`SCORING_FUNCTIONS`.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Protocol

import numpy as np

from ..backend import Engine
from ..errors import EngineError, OptionError, UnsupportedAtomError
from ..molecule.restraints import Restraints
from ..molecule.system import Partner
from .cpydock import CPyDock
from .dfire import DFIRE, SoftDFIRE
from .dfire2 import DFIRE2
from .dna import DNA
from .mj3h import MJ3h
from .names import from_lightdock, to_lightdock
from .pisa import PISA
from .pydfire import PyDFIRE
from .sd import SD
from .sipper import SIPPER
from .tobi import TOBI
from .vdw import VdW


class DeviceScorer(Protocol):
    """What GSO on torch needs from a scoring function: scores of poses on the device, and
    the device memory its model holds (for the memory plan)."""

    engine: Engine

    def score(self, poses: Any) -> Any: ...

    def model_bytes(self) -> int: ...


class ScoringFunction(Protocol):
    """What every scoring function offers."""

    name: str
    backends: dict[str, str]
    #: interaction cutoff (Å): pairs farther apart add nothing
    cutoff: float
    #: (optional, default False) no normal-mode support: LightDock refuses ANM with it
    rigid_only: bool

    def typed_atoms(
        self, partner: Partner, *, source: str = ..., skip_unknown: bool = False
    ) -> np.ndarray:
        """Mask of the atoms this function can score (setup keeps only these); an atom it
        cannot type is a one-line error naming ``source`` and the residue, unless
        ``skip_unknown`` (then dropped with a warning)."""
        ...

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        **options: Any,
    ) -> Any: ...

    def score(
        self, model: Any, poses: np.ndarray, *, backend: str = ..., threads: int | None = None
    ) -> np.ndarray: ...

    def device_scorer(self, model: Any, engine: Engine, workspace_bytes: int) -> DeviceScorer:
        """The model on ``engine``'s device (raises EngineError without a torch kernel)."""
        ...


SCORING_FUNCTIONS: dict[str, type] = {
    "dfire": DFIRE,
    "fastdfire": DFIRE,
    "dfire_soft": SoftDFIRE,
    "vdw": VdW,
    "cpydock": CPyDock,
    "dna": DNA,
    "dfire2": DFIRE2,
    "pisa": PISA,
    "pydfire": PyDFIRE,
    "sd": SD,
    "mj3h": MJ3h,
    "tobi": TOBI,
    "sipper": SIPPER,
}


#: LightDock 0.9.4 functions that are not here, and why (said in one line when asked for).
NOT_AVAILABLE = {
    "ddna": "LightDock 0.9.4 as published cannot run it either: its potential file "
    "(ddna/data/fort.21_xscore_noH_Met) is in no LightDock package on PyPI, so there is no "
    "reference to match; for protein-DNA use dna",
}


def get_scoring(name: str) -> ScoringFunction:
    """A scoring function by name (``dfire``; ``fastdfire`` is LightDock's name), or a weighted
    combination: ``dfire:1,vdw:0.5`` or a LightDock scoring file (:mod:`.combination`)."""
    from .combination import Combination, parse_scoring

    terms = parse_scoring(name, {*SCORING_FUNCTIONS, *NOT_AVAILABLE})
    functions = []
    seen: dict[type, str] = {}
    for term, _ in terms:
        cls = SCORING_FUNCTIONS.get(term)
        if cls is not None and cls in seen:
            raise EngineError(
                f"scoring {name!r}: {seen[cls]} and {term} are the same function; list it once"
            )
        if cls is not None:
            seen[cls] = term
        if term in NOT_AVAILABLE:
            raise EngineError(f"scoring function {term!r} is not available: {NOT_AVAILABLE[term]}")
        try:
            functions.append(SCORING_FUNCTIONS[term]())
        except KeyError:
            raise EngineError(
                f"unknown scoring function {term!r} (available: {', '.join(SCORING_FUNCTIONS)})"
            ) from None
    if len(terms) == 1 and terms[0][1] == 1.0:
        return functions[0]
    return Combination(terms, functions)


def check_installed(function: object, field: str, value: str) -> None:
    """The Python packages a scoring function (each term of a combination) needs, checked
    before any work: a missing one is a one-line refusal naming the option (``field``, the
    schema's name: ``scoring``, ``rank_method``; ``value``, what it was given) and the extra
    to install."""
    for f in getattr(function, "functions", (function,)):
        for package, extra in getattr(f, "requires", {}).items():
            if importlib.util.find_spec(package) is None:
                raise OptionError(
                    field,
                    f"{{0}} {value}: scoring {f.name!r} needs {package}: pip install "
                    f"'sparkledock[{extra}]'",
                )


def check_molecules(function: Any, partner: Partner, source: str = "structure") -> None:
    """One line when ``function`` (or a term of a combination) cannot score a molecule type
    the partner has: a DFIRE-only function given DNA says so, naming the first nucleotide,
    instead of failing on its first unknown atom.

    Raises:
        UnsupportedAtomError: a nucleotide given to a protein-only function.
    """
    from ..molecule.residues import nucleic_kind

    atoms = partner.atoms
    kinds = np.array([nucleic_kind(str(r)) for r in atoms.res_name], dtype=object)
    for f in getattr(function, "functions", (function,)):
        allowed = getattr(f, "molecules", ("protein",))
        bad = (kinds != "") & ~np.isin(kinds, list(allowed))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            able = sorted(
                name
                for name, cls in SCORING_FUNCTIONS.items()
                if name == cls.name and kinds[i] in getattr(cls, "molecules", ())
            )
            raise UnsupportedAtomError(
                f"{source}: scoring {f.name!r} scores {', '.join(allowed)} only, and residue "
                f"chain {atoms.chain[i]} {atoms.res_name[i]} {atoms.res_seq[i]}"
                f"{atoms.ins_code[i]} is {kinds[i].upper()} (functions for it: "
                f"{', '.join(able)})"
            )


def describe_scoring() -> list[dict[str, Any]]:
    """One row per registered function: name, backends, molecule types, the extras it needs,
    whether it has a fast mode and normal-mode support, a one-line summary (LightDock's alias
    ``fastdfire`` is listed with ``dfire``)."""
    rows = []
    for name, cls in SCORING_FUNCTIONS.items():
        if name != cls.name:
            continue
        doc = (cls.__doc__ or "").strip().splitlines()
        rows.append(
            {
                "name": name,
                "backends": sorted(cls.backends),
                "molecules": list(getattr(cls, "molecules", ("protein",))),
                "extras": sorted(set(getattr(cls, "requires", {}).values())),
                "fast": hasattr(cls, "fast_scorer"),
                "rigid_only": bool(getattr(cls, "rigid_only", False)),
                "summary": getattr(cls, "summary", doc[0] if doc else ""),
            }
        )
    return rows


__all__ = [
    "DFIRE",
    "SCORING_FUNCTIONS",
    "DeviceScorer",
    "ScoringFunction",
    "check_molecules",
    "describe_scoring",
    "from_lightdock",
    "get_scoring",
    "to_lightdock",
]
