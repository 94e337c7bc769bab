"""Copy LightDock 0.9.4's MJ3h residue contact potential (20 x 20, its ``MJ_potentials.dat``
section ``MJ3h``) and its residue order into JSON (run with a LightDock venv's python).

Usage: LIGHTDOCK_PYTHON scripts/pack_mj3h.py src/sparkledock/data/mj3h.json
"""

from __future__ import annotations

import json
import sys

from lightdock.scoring.mj3h.driver import MJ3h, MJPotential


def main(out_path: str) -> None:
    table = MJPotential().potentials["MJ3h"]
    order = sorted(MJ3h.potentials_dict, key=MJ3h.potentials_dict.get)
    with open(out_path, "w") as handle:
        json.dump({"residues": order, "energies": table}, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
