"""Pack the AMBER94 parameters LightDock 0.9.4's vdw, cpydock and dna functions use into one
compact JSON table (run with a LightDock 0.9.4 venv's python).

The three functions share the same tables (checked here): per ``RESIDUE-ATOM`` the AMBER
type and partial charge, per type the Lennard-Jones well depth and radius, and the atom-name
translation LightDock applies (``OP1`` → ``O1P``). Values are written with ``repr`` so every
float round-trips exactly.

Usage: LIGHTDOCK_PYTHON scripts/pack_amber.py src/sparkledock/data/amber94.json
"""

from __future__ import annotations

import importlib
import json
import sys


def main(out_path: str) -> None:
    tables = {}
    for name in ("vdw", "cpydock", "dna"):
        amber = importlib.import_module(f"lightdock.scoring.{name}.data.amber")
        vdw = importlib.import_module(f"lightdock.scoring.{name}.data.vdw")
        tables[name] = (
            amber.amber_types,
            amber.charges,
            amber.translate,
            vdw.vdw_energy,
            vdw.vdw_radii,
        )
    first = tables["vdw"]
    for name, table in tables.items():
        if table != first:
            raise SystemExit(f"LightDock's {name} tables differ from vdw's: pack them apart")
    types, charges, translate, energy, radii = first
    atoms = {key: [types[key], charges[key]] for key in sorted(types)}
    params = {t: [energy[t], radii[t]] for t in sorted(energy)}
    missing = sorted({t for t, _ in atoms.values()} - set(params))
    if missing:
        raise SystemExit(f"AMBER types without Lennard-Jones parameters: {missing}")
    data = {
        "source": "LightDock 0.9.4 lightdock/scoring/{vdw,cpydock,dna}/data (AMBER94)",
        "translate": translate,
        "atoms": atoms,
        "lennard_jones": params,
    }
    with open(out_path, "w") as handle:
        json.dump(data, handle, separators=(",", ":"), sort_keys=True)
        handle.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
