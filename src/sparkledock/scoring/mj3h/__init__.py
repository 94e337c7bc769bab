"""LightDock's ``mj3h`` (Miyazawa–Jernigan residue contacts over side-chain beads): the model
and a Numba kernel (:mod:`.model`)."""

from .model import MJ3h

__all__ = ["MJ3h"]
