"""Copy LightDock 0.9.4's SIPPER residue-pair energies (20 x 20) and residue index into JSON
(run with a LightDock venv's python).

Usage: LIGHTDOCK_PYTHON scripts/pack_sipper.py src/sparkledock/data/sipper.json
"""

from __future__ import annotations

import json
import sys

from lightdock.scoring.sipper.data.energy import res_to_index, sipper_energy


def main(out_path: str) -> None:
    with open(out_path, "w") as handle:
        json.dump({"residue_index": res_to_index, "energies": sipper_energy.tolist()}, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
