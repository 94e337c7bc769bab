"""LightDock's ``tobi`` (TOBI coarse-grained contact potentials): the model and a Numba kernel
(:mod:`.model`)."""

from .model import TOBI

__all__ = ["TOBI"]
