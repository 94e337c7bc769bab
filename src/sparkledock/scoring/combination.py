"""Weighted combinations of scoring functions, as LightDock runs them with a scoring file.

A combination's score is ``Σ w_i·S_i`` in the order given, each ``S_i`` being function i's
own score with LightDock's restraint combination (``S + p_rec·S + p_lig·S``), exactly as
LightDock sums its functions' weighted values per glowworm. Specs: ``dfire``,
``dfire:1,vdw:0.5`` or the path of a LightDock scoring file (one ``name weight`` per line,
``#`` comments). Unlike LightDock, which skips a line it cannot read, a bad line is a one-line
error naming the file and line.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backend import Engine
from ..errors import EngineError, InputFileError
from ..fileutil import read_text_input
from ..molecule.restraints import Restraints
from ..molecule.system import Partner
from .names import from_lightdock

#: The largest weight a combination takes: scores are O(1e4), so anything larger only
#: risks an infinite sum (and 1e308 overflows at once).
MAX_WEIGHT = 1e6


def _weight(text: str, where: str) -> float:
    try:
        weight = float(text)
    except ValueError:
        raise EngineError(f"{where}: weight {text!r} is not a number") from None
    if not np.isfinite(weight):
        raise EngineError(f"{where}: weight {text!r} is not finite")
    if abs(weight) > MAX_WEIGHT:
        raise EngineError(f"{where}: weight {text!r} is beyond ±{MAX_WEIGHT:g}")
    return weight


def read_scoring_file(path: str | os.PathLike[str]) -> list[tuple[str, float]]:
    """``(name, weight)`` pairs of a LightDock scoring file, in file order, named as
    sparkledock names them: the file's names are LightDock's (``fastdfire`` is ``dfire``,
    ``dfire`` is ``pydfire``)."""
    terms = []
    for lineno, raw in enumerate(read_text_input(path, "scoring").splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split()
        if len(fields) != 2:
            raise InputFileError(f"{path}:{lineno}: expected 'function weight', got {raw!r}")
        terms.append((from_lightdock(fields[0]), _weight(fields[1], f"{path}:{lineno}")))
    if not terms:
        raise InputFileError(f"{path}: no scoring functions listed")
    return terms


def names_only(spec: str, known: Collection[str]) -> bool:
    """Whether ``spec`` names functions only (``dfire``, ``dfire:1,vdw:0.5``): such a spec
    means the functions even where a file of that name lies in the working folder."""
    names = [part.strip().partition(":")[0].lower() for part in spec.split(",")]
    return all(name in known for name in names)


def parse_scoring(spec: str, known: Collection[str] = ()) -> list[tuple[str, float]]:
    """The ``(name, weight)`` terms of a spec: one name, ``a:w,b:w``, or a scoring file (a
    path that is not a spec of ``known`` function names)."""
    if os.path.isfile(spec) and not names_only(spec, known):
        terms = read_scoring_file(spec)
    else:
        terms = []
        for part in spec.split(","):
            name, _, weight = part.strip().partition(":")
            if not name:
                raise EngineError(f"scoring {spec!r}: empty function name")
            terms.append((name.lower(), _weight(weight, f"scoring {spec!r}") if weight else 1.0))
    names = [n for n, _ in terms]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise EngineError(f"scoring {spec!r}: {dup} is listed twice")
    if all(w == 0.0 for _, w in terms):
        raise EngineError(f"scoring {spec!r}: every weight is zero (nothing would be scored)")
    return terms


@dataclass(frozen=True)
class CombinationModel:
    """The prepared model of each function, with its weight."""

    names: tuple[str, ...]
    weights: tuple[float, ...]
    models: tuple[Any, ...]

    @property
    def layout(self):
        return self.models[0].layout


class Combination:
    """Several scoring functions with weights, scored as one (LightDock's sum)."""

    def __init__(self, terms: list[tuple[str, float]], functions: list[Any]) -> None:
        self.terms = terms
        self.functions = functions
        self.name = ",".join(f"{n}:{w:g}" for n, w in terms)
        self.cutoff = max(f.cutoff for f in functions)
        shared = set.intersection(*(set(f.backends) for f in functions))
        self.backends = {b: "combination" for b in sorted(shared)}
        #: LightDock draws two conformer ids per function for each glowworm that moves
        self.n_functions = len(functions)

    def typed_atoms(
        self, partner: Partner, *, source: str = "structure", skip_unknown: bool = False
    ) -> np.ndarray:
        keep = np.ones(len(partner.atoms), dtype=bool)
        for f in self.functions:
            keep &= f.typed_atoms(partner, source=source, skip_unknown=skip_unknown)
        return keep

    def prepare(
        self,
        receptor: Partner,
        ligand: Partner,
        restraints: Restraints | None = None,
        **options: Any,
    ) -> CombinationModel:
        models = tuple(f.prepare(receptor, ligand, restraints, **options) for f in self.functions)
        return CombinationModel(
            tuple(n for n, _ in self.terms), tuple(w for _, w in self.terms), models
        )

    def term_scores(
        self,
        model: CombinationModel,
        poses: np.ndarray,
        *,
        backend: str = "numba",
        threads: int | None = None,
        engine: Engine | None = None,
    ) -> dict[str, np.ndarray]:
        """Each function's weighted score ``w_i·S_i`` of ``poses``, by name."""
        if engine is not None:
            backend = engine.backend
        if backend not in self.backends:
            known = ", ".join(self.backends) or "none"
            raise EngineError(
                f"no {backend!r} backend shared by every function of {self.name!r} "
                f"(shared: {known})"
            )
        return {
            name: f.score(m, poses, backend=backend, threads=threads, engine=engine) * w
            for (name, w), f, m in zip(self.terms, self.functions, model.models, strict=True)
        }

    def score(
        self,
        model: CombinationModel,
        poses: np.ndarray,
        *,
        backend: str = "numba",
        threads: int | None = None,
        engine: Engine | None = None,
    ) -> np.ndarray:
        """``Σ w_i·S_i`` in the listed order (LightDock's per-glowworm sum)."""
        parts = self.term_scores(model, poses, backend=backend, threads=threads, engine=engine)
        total = np.zeros(len(poses))
        for values in parts.values():
            total = total + values
        return total

    def device_scorer(
        self, model: CombinationModel, engine: Engine, workspace_bytes: int
    ) -> DeviceCombination:
        """Every function's device scorer (each with the whole workspace: they run in turn)."""
        scorers = [
            f.device_scorer(m, engine, workspace_bytes)
            for f, m in zip(self.functions, model.models, strict=True)
        ]
        return DeviceCombination(engine, scorers, list(model.weights))


class DeviceCombination:
    """A combination on a torch device: ``Σ w_i·S_i`` of its functions' device scores."""

    def __init__(self, engine: Engine, scorers: list[Any], weights: list[float]) -> None:
        self.engine, self.scorers, self.weights = engine, scorers, weights

    def score(self, poses: Any) -> Any:
        total = None
        for scorer, weight in zip(self.scorers, self.weights, strict=True):
            part = scorer.score(poses) * weight
            total = part if total is None else total + part
        return total

    def model_bytes(self) -> int:
        return sum(s.model_bytes() for s in self.scorers)
