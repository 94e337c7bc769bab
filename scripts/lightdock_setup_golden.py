"""Make tests/data/lightdock_setups/golden.json: LightDock 0.9.4's own setups, as checksums.

Runs ``lightdock3_setup.py`` (from the LightDock virtual environment named by ``--lightdock``)
on each case below in a scratch folder and records the SHA-256 of every file LightDock's own
setup regression tests compare (``swarm_centers.pdb``, chosen ``initial_positions_*.dat``,
``lightdock_*.pdb``) and the ``setup.json`` keys. The inputs of the cases from LightDock's
package (``--golden``: its ``lightdock/test/bin/golden_data``) are copied beside golden.json;
the others use ../shared/bench/2X9A.

    python scripts/lightdock_setup_golden.py --lightdock /work/ldvenv/bin \\
        --golden lightdock-0.9.4/lightdock/test/bin/golden_data
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "lightdock_setups"
BENCH = ROOT.parent / "shared" / "bench" / "2X9A"
X9A = ["bench:2X9A_r_u.pdb", "bench:2X9A_l_u.pdb", "bench:restraints.list"]
X9A_ARGS = "2X9A_r_u.pdb 2X9A_l_u.pdb --noxt --noh --now -g 20"

#: case: (inputs: package golden folder file names or bench: files, arguments, whether
#: lightdock_*.pdb are compared); the initial positions of the first, middle and last swarm are.
CASES: dict[str, tuple[list[str], str, bool]] = {
    "setup": (
        ["regression_setup/2UUY_rec.pdb", "regression_setup/2UUY_lig.pdb"],
        "2UUY_rec.pdb 2UUY_lig.pdb -g 25 -anm --noxt --noh",
        True,
    ),
    "restraints_insertion": (
        [
            f"regression_setup_rst_insert/{f}"
            for f in ("receptor.pdb", "ligand.pdb", "restraints.list")
        ],
        "receptor.pdb ligand.pdb --noh --noxt --now -anm -rst restraints.list",
        True,
    ),
    "restraints_flip": (
        [f"regression_setup_rst_flip/{f}" for f in ("3V6Z_A.pdb", "3V6Z_B.pdb", "restraints.list")],
        "3V6Z_A.pdb 3V6Z_B.pdb --noh --noxt -anm -flip -rst restraints.list",
        True,
    ),
    "membrane_restraints": (
        [
            f"regression_setup_membrane_restraints/{f}"
            for f in ("3x29_receptor_membrane.pdb", "3x29_ligand.pdb", "restraints.list")
        ],
        "3x29_receptor_membrane.pdb 3x29_ligand.pdb -g 50 -s 400 --noxt --noh -membrane "
        "-rst restraints.list",
        True,
    ),
    "transmembrane": (
        [
            f"regression_setup_membrane_restraints/{f}"
            for f in ("3x29_receptor_membrane.pdb", "3x29_ligand.pdb")
        ],
        "3x29_receptor_membrane.pdb 3x29_ligand.pdb -g 10 -s 400 --noxt --noh -transmembrane",
        False,
    ),
    "fixed_distance": (X9A, f"{X9A_ARGS} -fd 12", False),
    "surface_density": (X9A, f"{X9A_ARGS} -sd 100", False),
    "swarm_radius": (X9A, f"{X9A_ARGS} -sr 5 -rst restraints.list", False),
    "swarms_per_restraint": (X9A, f"{X9A_ARGS} -spr 5 -rst restraints.list", False),
    "dense_sampling": (X9A, f"{X9A_ARGS} --ds -rst restraints.list", False),
    "flip": (X9A, f"{X9A_ARGS} -flip -rst restraints.list", False),
    "seeds_and_amplitudes": (
        X9A,
        f"{X9A_ARGS} -anm --seed_points 7 --seed_anm 9 --anm_rec_rmsd 0.7 --anm_lig_rmsd 0.9 "
        "-rst restraints.list",
        False,
    ),
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lightdock", type=Path, required=True, help="LightDock venv's bin/")
    parser.add_argument("--golden", type=Path, required=True, help="LightDock's golden_data")
    args = parser.parse_args()
    golden: dict[str, dict] = {}
    for name, (inputs, argv, pdbs) in CASES.items():
        local = []
        with tempfile.TemporaryDirectory() as tmp:
            for item in inputs:
                if item.startswith("bench:"):
                    source = BENCH / item.split(":", 1)[1]
                    local.append(item)
                else:
                    source = args.golden / item
                    (OUT / name).mkdir(parents=True, exist_ok=True)
                    shutil.copy(source, OUT / name / source.name)
                    local.append(f"{name}/{source.name}")
                shutil.copy(source, tmp)
            command = [str(args.lightdock / "python"), str(args.lightdock / "lightdock3_setup.py")]
            subprocess.run([*command, *argv.split()], cwd=tmp, check=True, capture_output=True)
            folder = Path(tmp)
            setup = json.loads((folder / "setup.json").read_text())
            n = setup["swarms"]
            files = ["init/swarm_centers.pdb"]
            files += [f"init/initial_positions_{i}.dat" for i in sorted({0, n // 2, n - 1})]
            if pdbs:
                files += sorted(p.name for p in folder.glob("lightdock_*.pdb"))
            for key in ("setup_version", "start_time"):
                setup.pop(key, None)
            golden[name] = {
                "inputs": local,
                "argv": argv,
                "sha256": {f: sha256(folder / f) for f in files},
                "setup": setup,
            }
        print(name, setup["swarms"], "swarms")
    (OUT / "golden.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
