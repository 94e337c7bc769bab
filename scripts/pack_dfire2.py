"""Pack LightDock 0.9.4's DFIRE2 potential and atom types (run with a LightDock venv's python).

Writes ``dfire2.f64.xz`` (the (167, 167, 30) energies, little-endian float64, xz: the exact
doubles of LightDock's ``dfire2_energies.npy``) and ``dfire2_types.json`` (``"RES ATOM"`` →
type index) into the given folder.

Usage: LIGHTDOCK_PYTHON scripts/pack_dfire2.py src/sparkledock/data
"""

from __future__ import annotations

import json
import lzma
import os
import sys

import numpy as np
from lightdock.scoring.dfire2 import driver


def main(out_dir: str) -> None:
    folder = os.path.join(os.path.dirname(driver.__file__), "data")
    energies = np.load(os.path.join(folder, "dfire2_energies.npy"))
    if energies.shape != (167, 167, 30):
        raise SystemExit(f"unexpected DFIRE2 table shape {energies.shape}")
    with open(os.path.join(out_dir, "dfire2.f64.xz"), "wb") as handle:
        handle.write(lzma.compress(energies.astype("<f8").tobytes(), preset=9))
    with open(os.path.join(out_dir, "dfire2_types.json"), "w") as handle:
        json.dump(dict(sorted(driver.DFIRE2_ATOM_TYPES.items())), handle, separators=(",", ":"))
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
