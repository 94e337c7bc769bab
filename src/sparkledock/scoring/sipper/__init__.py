"""LightDock's ``sipper`` (residue-pair contact energies): the model and a Numba kernel
(:mod:`.model`)."""

from .model import SIPPER

__all__ = ["SIPPER"]
