"""Helpers shared by the benchmark scripts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

from sparkledock.io.lightdock import load_setup, write_poses
from sparkledock.preparation.poses import initial_poses

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
COMPLEXES = ["2VXT", "2X9A", "1RKE", "2A1A", "2GTP", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]


def full_setup(bench: Path, name: str, dest: Path) -> tuple[Path, int, int]:
    """A writable copy of a shared LightDock setup with starting poses for every swarm (made
    around the setup's swarm centres); returns (folder, swarms, glowworms)."""
    target = dest / name
    shutil.copytree(bench / name / "lightdock_setup", target)
    for path in [target, *target.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    config = json.loads((target / "setup.json").read_text())
    centres = json.loads((target / "swarm_centers.json").read_text())
    centres = np.array(centres["mean_translation_per_swarm"], dtype=float)
    layout = load_setup(target).layout
    swarms, glow = int(config["swarms"]), int(config["glowworms"])
    poses = initial_poses(centres, np.arange(swarms), glow, layout)
    for swarm in range(swarms):
        path = target / "init" / f"initial_positions_{swarm}.dat"
        if not path.exists():
            write_poses(path, poses[swarm])
    return target, swarms, glow


def write_model(path: Path, models: list, check: np.ndarray, fields: dict) -> None:
    """A ranking model fitted with LightGBM, as the package reads it
    (``sparkledock.analysis.learned``): ``fields`` (what it is, its features, training set,
    parameters), LightGBM's own predictions of the ``check`` rows (the package's inference is
    tested against them) and every tree as flat arrays (several models: summed)."""
    from sparkledock.analysis.learned import trees_from_lightgbm

    record = {
        **fields,
        "check": {
            "rows": check.tolist(),
            "predictions": sum(m.predict(check) for m in models).tolist(),
        },
        "trees": trees_from_lightgbm([m.booster_.dump_model() for m in models]),
    }
    path.write_text(json.dumps(record, separators=(",", ":")) + "\n")
