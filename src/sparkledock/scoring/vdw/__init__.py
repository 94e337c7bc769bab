"""LightDock's ``vdw`` (truncated Lennard-Jones over AMBER94 atoms): the model and scorer
(:mod:`.model`), an all-pairs NumPy oracle and a culled, parallel Numba kernel."""

from .model import VDW_CUTOFF_A, PairModel, VdW, prepare_pair_model

__all__ = ["VDW_CUTOFF_A", "PairModel", "VdW", "prepare_pair_model"]
