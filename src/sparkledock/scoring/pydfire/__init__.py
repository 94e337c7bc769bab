"""LightDock's Python ``dfire`` (not its ``fastdfire``, which is sparkledock's ``dfire``): the
model (:mod:`.model`), an all-pairs NumPy oracle and a culled, parallel Numba kernel."""

from .model import PyDFIRE

__all__ = ["PyDFIRE"]
