"""LightDock's ``pisa`` (a PISA-style atomic contact potential): the model (:mod:`.model`),
an all-pairs NumPy oracle and a culled, parallel Numba kernel."""

from .model import PISA

__all__ = ["PISA"]
