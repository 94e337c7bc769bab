"""DFIRE as LightDock's ``fastdfire``: the table, atom typing and prepared model
(:mod:`.model`), and one kernel module per backend (``numpy_kernel``: the all-pairs oracle;
``numba_kernel``: tiled, culled and parallel; ``torch_kernel``: CPU or GPU), chosen by
:meth:`DFIRE.kernel`."""

from __future__ import annotations

from .model import DFIRE, DFIRE_CUTOFF_A, DFIREModel, SoftDFIRE, atom_types

__all__ = ["DFIRE", "DFIRE_CUTOFF_A", "DFIREModel", "SoftDFIRE", "atom_types"]
