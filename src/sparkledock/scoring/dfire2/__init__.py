"""LightDock's ``dfire2`` (the DFIRE2 potential): the model (:mod:`.model`), an all-pairs
NumPy oracle and a culled, parallel Numba kernel."""

from .model import DFIRE2

__all__ = ["DFIRE2"]
