"""LightDock's ``dna`` (pyDockDNA: electrostatics and van der Waals over AMBER94 atoms, for
protein–DNA docking), on the cpydock kernels without the desolvation term."""

from .model import DNA

__all__ = ["DNA"]
