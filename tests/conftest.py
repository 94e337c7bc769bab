"""Shared fixtures: the benchmark complexes in ../shared/bench (CI has them too)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SPARKLEDOCK_SHARED", REPO.parent / "shared"))
BENCH = SHARED / "bench"
DATA = Path(__file__).parent / "data"  # reference outputs made with LightDock 0.9.4
COMPLEXES = ["2X9A", "1RKE", "2A1A", "2GTP", "2VXT", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]

if not (BENCH / "2X9A").is_dir():  # fail loudly: without the data the parity tests prove nothing
    raise RuntimeError(f"benchmark data not found at {BENCH}; set SPARKLEDOCK_SHARED")


def writable_setup(dest: Path, name: str = "2X9A") -> Path:
    """A writable copy of a complex's shared LightDock setup at ``dest``."""
    import shutil

    shutil.copytree(BENCH / name / "lightdock_setup", dest)
    for path in [dest, *dest.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


def golden(complex_name: str, restraints: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(poses, LightDock 0.9.4 scores) of a complex's golden file."""
    name = "golden_dfire_restraints.json" if restraints else "golden_dfire.json"
    data = json.loads((BENCH / complex_name / name).read_text())
    poses = np.array([p for case in data["cases"] for p in case["poses"]])
    scores = np.array([s for case in data["cases"] for s in case["scores"]])
    return poses, scores


@pytest.fixture(scope="session")
def setups():
    """Lazily loaded LightDock setups of the benchmark complexes, by name."""
    from sparkledock.io.lightdock import load_setup

    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = load_setup(BENCH / name / "lightdock_setup")
        return cache[name]

    return get
