"""Pack LightDock's text DCparams into sparkledock's compact binary table.

The DFIRE table (168 x 168 x 20) is symmetric in its two atom-type axes, so only the upper
triangle (including the diagonal) is stored: 168*169/2 rows of 20 float64 values, in
little-endian byte order, compressed with xz. Values are the exact doubles that parsing the
text gives (LightDock parses it the same way), so nothing is rounded.

Usage: python scripts/pack_dfire.py ../shared/data/DCparams src/sparkledock/data/dfire.f64.xz
"""

from __future__ import annotations

import lzma
import sys

import numpy as np

N_TYPES = 168
N_BINS = 20


def pack(text_path: str, out_path: str) -> None:
    """Read DCparams text, check symmetry, write the xz-compressed upper triangle."""
    with open(text_path) as handle:
        values = np.array([float(tok) for tok in handle.read().split()], dtype="<f8")
    if values.size != N_TYPES * N_TYPES * N_BINS:
        raise SystemExit(f"{text_path}: expected {N_TYPES * N_TYPES * N_BINS} values")
    table = values.reshape(N_TYPES, N_TYPES, N_BINS)
    if not np.array_equal(table, table.transpose(1, 0, 2)):
        raise SystemExit(f"{text_path}: table is not symmetric; cannot store a triangle")
    rows, cols = np.triu_indices(N_TYPES)
    with lzma.open(out_path, "wb", preset=9 | lzma.PRESET_EXTREME) as handle:
        handle.write(np.ascontiguousarray(table[rows, cols]).tobytes())


if __name__ == "__main__":
    pack(sys.argv[1], sys.argv[2])
