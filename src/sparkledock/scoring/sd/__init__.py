"""LightDock's ``sd`` (switched electrostatics and van der Waals over AMBER94 atoms): the model
(:mod:`.model`), an all-pairs NumPy oracle and a culled, parallel Numba kernel."""

from .model import SD

__all__ = ["SD"]
