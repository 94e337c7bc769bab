"""Copy LightDock 0.9.4's TOBI potentials (two 22 x 22 tables, ``TOBI_SC_step1.dat`` and
``TOBI_SC_step2.dat``) and its bead atom lists into JSON (run with a LightDock venv's python).

Usage: LIGHTDOCK_PYTHON scripts/pack_tobi.py src/sparkledock/data/tobi.json
"""

from __future__ import annotations

import json
import sys

from lightdock.scoring.tobi.driver import TOBIPotential


def main(out_path: str) -> None:
    potential = TOBIPotential()
    data = {
        "residues": TOBIPotential.recognized_residues,
        "atom_types": TOBIPotential.atom_types,
        "step1": potential.tobi_sc_1,
        "step2": potential.tobi_sc_2,
    }
    with open(out_path, "w") as handle:
        json.dump(data, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
