"""Ranks of values, as the rankings combine them: plain (ties by position), averaged over
ties (SciPy's ``rankdata(method="average")``), and tied from the top."""

from __future__ import annotations

import numpy as np


def ranks(values: np.ndarray) -> np.ndarray:
    """0 for the largest value, 1 for the next, ... (ties by position): the ranks that the
    consensus methods average."""
    values = np.asarray(values, dtype=np.float64)
    out = np.empty(len(values))
    out[np.lexsort((np.arange(len(values)), -values))] = np.arange(len(values))
    return out


def average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, smallest first, equal values sharing their mean rank (SciPy's
    ``rankdata(method="average")``, written here: importing ``scipy.stats`` costs 0.8 s per
    command)."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, kind="mergesort")
    sorted_ = values[order]
    first = np.concatenate([[True], sorted_[1:] != sorted_[:-1]])
    group = np.cumsum(first) - 1  # tie group of each sorted position
    starts = np.append(np.flatnonzero(first), len(values))
    mean = 0.5 * (starts[:-1] + starts[1:] + 1)  # mean 1-based rank of each group
    out = np.empty(len(values))
    out[order] = mean[group]
    return out


def tied_ranks(values: np.ndarray) -> np.ndarray:
    """As :func:`ranks`, but equal values share their mean rank (for a feature with many
    ties, such as a share of residues, whose order would otherwise be the input's)."""
    values = np.asarray(values, dtype=np.float64)
    return len(values) - average_ranks(values)
