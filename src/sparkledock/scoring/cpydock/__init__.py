"""LightDock's ``cpydock`` (pyDock: electrostatics, desolvation, van der Waals): the model
(:mod:`.model`), an all-pairs NumPy oracle and a culled, parallel Numba kernel."""

from .model import CPyDock, PyDockModel

__all__ = ["CPyDock", "PyDockModel"]
