"""Pack pyDock's atomic desolvation parameters as LightDock 0.9.4's cpydock uses them into a
compact JSON table (run with a LightDock 0.9.4 venv's python).

Per residue and atom name the atomic solvation (ASP) type; per ASP type its solvation energy
and radius; per AMBER type the fallback energy and radius for atoms without an ASP type.
Values are written with ``repr`` so every float round-trips exactly.

Usage: LIGHTDOCK_PYTHON scripts/pack_pydock.py src/sparkledock/data/pydock_solvation.json
"""

from __future__ import annotations

import json
import sys

from lightdock.scoring.cpydock.data import solvation


def main(out_path: str) -> None:
    data = {
        "source": "LightDock 0.9.4 lightdock/scoring/cpydock/data/solvation.py (pyDock)",
        "asp_type": solvation.asp_type,
        "asp_energy": {str(k): v for k, v in solvation.asp_type_charges.items()},
        "asp_radius": {str(k): v for k, v in solvation.asp_type_radius.items()},
        "amber_energy": solvation.charges_per_asp_amber,
        "amber_radius": solvation.radius_per_asp,
    }
    with open(out_path, "w") as handle:
        json.dump(data, handle, separators=(",", ":"), sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
