"""Copy LightDock 0.9.4's PISA parameters (``pisa.params``: 1,584 values, the upper triangle
of the 32 x 32 atom-type table, 3 distance bins each, in LightDock's reading order) into a
JSON list (run with a LightDock venv's python). Values are the exact doubles of the text.

Usage: LIGHTDOCK_PYTHON scripts/pack_pisa.py src/sparkledock/data/pisa_params.json
"""

from __future__ import annotations

import json
import os
import sys

from lightdock.scoring.pisa import driver


def main(out_path: str) -> None:
    path = os.path.join(os.path.dirname(driver.__file__), "data", "pisa.params")
    with open(path) as handle:
        values = [float(line) for line in handle if line.strip()]
    if len(values) != 32 * 33 // 2 * 3:
        raise SystemExit(f"{path}: expected 1584 values, got {len(values)}")
    with open(out_path, "w") as handle:
        json.dump(values, handle)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
