"""Time LightDock 0.9.4's own pose evaluation (run with a LightDock venv's python).

Usage: LIGHTDOCK_PYTHON lightdock_eval.py SETUP_DIR POSES.npy [RESTRAINTS] [--scoring NAME]
[--rigid]
Prints JSON: {"seconds_per_eval": ..., "scores": [...]}. NAME is a LightDock scoring module
(``lightdock.scoring.NAME``; default ``fastdfire``). Evaluation goes through
DockingLandscapePosition.evaluate_objective_function, the call LightDock's GSO makes per
glowworm, so conformer building and scoring are both timed. Single-threaded by design.
"""

import importlib
import json
import os
import sys
import time

import numpy as np
from lightdock.gso.searchspace.landscape import DockingLandscapePosition
from lightdock.prep.simulation import parse_restraints_file, read_input_structure
from lightdock.structure.nm import read_nmodes


def main() -> None:
    args = sys.argv[1:]
    scoring = "fastdfire"
    rigid = "--rigid" in args  # no normal modes (LightDock's mj3h and tobi refuse them)
    if rigid:
        args.remove("--rigid")
    if "--scoring" in args:
        at = args.index("--scoring")
        scoring = args[at + 1]
        del args[at : at + 2]
    setup_dir, poses_file = args[0], args[1]
    restraints_file = os.path.abspath(args[2]) if len(args) > 2 else None
    driver = importlib.import_module(f"lightdock.scoring.{scoring}.driver")
    if not hasattr(driver, "DEFAULT_CONTACT_RESTRAINTS_CUTOFF"):
        # LightDock 0.9.4's sipper driver uses this constant without importing it (every
        # evaluation raises NameError); supply it so its C code can be compared at all
        from lightdock.constants import DEFAULT_CONTACT_RESTRAINTS_CUTOFF

        driver.DEFAULT_CONTACT_RESTRAINTS_CUTOFF = DEFAULT_CONTACT_RESTRAINTS_CUTOFF
    poses_file = os.path.abspath(poses_file)
    poses = np.load(poses_file)
    os.chdir(setup_dir)
    with open("setup.json") as handle:
        setup = json.load(handle)
    rec = read_input_structure(
        "lightdock_" + os.path.basename(setup["receptor_pdb"]),
        setup["noxt"],
        setup["noh"],
        setup["now"],
    )
    lig = read_input_structure(
        "lightdock_" + os.path.basename(setup["ligand_pdb"]),
        setup["noxt"],
        setup["noh"],
        setup["now"],
    )
    rec.move_to_origin()
    lig.move_to_origin()
    nr = setup["anm_rec"] if setup["use_anm"] and not rigid else 0
    nl = setup["anm_lig"] if setup["use_anm"] and not rigid else 0
    if rigid:
        poses = poses[:, :7]
    if nr:
        rec.n_modes = read_nmodes("lightdock_rec.nm.npy")
    if nl:
        lig.n_modes = read_nmodes("lightdock_lig.nm.npy")
    rec_r = lig_r = None
    if restraints_file:
        parsed = parse_restraints_file(restraints_file)
        rec_r = parsed["receptor"]["active"] or None
        lig_r = parsed["ligand"]["active"] or None
    adapter = driver.DefinedModelAdapter(rec, lig, rec_r, lig_r)
    function = driver.DefinedScoringFunction()
    positions = [
        DockingLandscapePosition(
            function,
            list(p),
            adapter.receptor_model,
            adapter.ligand_model,
            step_nmodes=0.5,
            num_rec_nmodes=nr,
            num_lig_nmodes=nl,
        )
        for p in poses
    ]
    start = time.perf_counter()
    scores = [pos.evaluate_objective_function() for pos in positions]
    elapsed = time.perf_counter() - start
    print(json.dumps({"seconds_per_eval": elapsed / len(poses), "scores": scores}))


if __name__ == "__main__":
    main()
