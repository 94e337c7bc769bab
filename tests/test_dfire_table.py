"""The packaged DFIRE table and the LightDock quirks of binning."""

from __future__ import annotations

import math

import numpy as np

from conftest import SHARED
from sparkledock.scoring.dfire.model import (
    ATOM_TYPE,
    DIST_TO_BINS,
    N_BINS,
    N_TYPES,
    dfire_table,
    padded_table,
)


def test_packaged_table_equals_dcparams_bit_for_bit():
    with open(SHARED / "data" / "DCparams") as handle:
        text = np.array([float(v) for v in handle.read().split()])
    assert text.size == N_TYPES * N_TYPES * N_BINS
    assert np.array_equal(dfire_table().ravel(), text)


def test_atom_types_cover_168_types_once():
    assert sorted(ATOM_TYPE.values()) == list(range(N_TYPES))
    assert ATOM_TYPE[("CYS", "N")] == 0
    assert ATOM_TYPE[("MMB", "BJ")] == 167
    assert ATOM_TYPE[("ALA", "N")] == 74  # LightDock's residue-atom matrix row for ALA
    # LightDock's effective TRP mapping (its matrix, not its type-name list)
    assert [ATOM_TYPE[("TRP", a)] for a in ("CE2", "NE1", "CZ3", "CH2", "CZ2")] == [
        56,
        57,
        59,
        60,
        61,
    ]


def test_bin_20_reads_next_row_like_lightdock_flat_index():
    flat = dfire_table().ravel()
    compat = padded_table(True)
    for a, b in [(0, 0), (5, 100), (166, 167), (167, 166)]:
        idx = a * N_TYPES * N_BINS + b * N_BINS + N_BINS  # LightDock's flat index for bin 20
        assert compat[a, b, N_BINS] == flat[idx]
    assert compat[167, 167, N_BINS] == 0.0  # past the end: LightDock would fail
    strict = padded_table(False)
    assert np.array_equal(strict[:, :, N_BINS], dfire_table()[:, :, N_BINS - 1])


def test_dist_to_bins_at_the_cutoff():
    k = int(math.sqrt(225.0) * 2.0 - 1.0)
    assert k == 29 and DIST_TO_BINS[k] - 1 == N_BINS  # one past the row
    k = int(math.sqrt(224.99) * 2.0 - 1.0)
    assert DIST_TO_BINS[k] - 1 == N_BINS - 1


def test_cell_lookup_equals_square_root_binning():
    """The sqrt-free bin lookup agrees with trunc(2·sqrt(d2) − 1) on every edge and at random."""
    from sparkledock.scoring.dfire.model import BINS, cell_bins, interface_below, k_thresholds

    cells = cell_bins()
    edges = [(m + 1) ** 2 / 4.0 for m in range(30)] + list(k_thresholds()[1:])
    rng = np.random.default_rng(11)
    values = np.concatenate([rng.uniform(0, 225, 100_000), edges, [0.0, 225.0]])
    values = np.concatenate([values, np.nextafter(values, 0), np.nextafter(values, 300)])
    values = values[(values >= 0) & (values <= 225)]
    assert (cells < 0).sum() == 10  # only cells an edge's one-ulp sliver falls in
    for d2 in values:
        k = max(int(math.sqrt(d2) * 2.0 - 1.0), 0)
        b = cells[int(d2 * 4.0)]
        assert (b if b >= 0 else BINS[k]) == BINS[k], d2
        assert (d2 < interface_below(True)) == (k <= 3), d2
        assert (d2 < interface_below(False)) == (d2 <= 3.9**2), d2
