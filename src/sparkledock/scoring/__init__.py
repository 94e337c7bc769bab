"""Scoring functions behind one small interface.

A scoring function has ``prepare(receptor, ligand, restraints) -> model`` and
``score(model, poses) -> (P,) scores`` (batched, larger is better).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..errors import EngineError
from ..restraints import Restraints
from ..system import Partner
from .dfire import DFIRE


class ScoringFunction(Protocol):
    """What every scoring function offers."""

    name: str

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


SCORING_FUNCTIONS: dict[str, type] = {"dfire": DFIRE, "fastdfire": DFIRE}


def get_scoring(name: str) -> ScoringFunction:
    """Instantiate a scoring function by name (``dfire``; ``fastdfire`` is LightDock's name)."""
    try:
        return SCORING_FUNCTIONS[name.lower()]()
    except KeyError:
        raise EngineError(
            f"unknown scoring function {name!r} (available: {', '.join(SCORING_FUNCTIONS)})"
        ) from None


__all__ = ["DFIRE", "SCORING_FUNCTIONS", "ScoringFunction", "get_scoring"]
