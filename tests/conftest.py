"""Shared fixtures: the benchmark complexes in ../shared/bench (CI has them too).

Without ../shared the core tests run on the copy of 2X9A in tests/data/bench, and every test
that names another shared complex (or bench5, the shared DFIRE table) is skipped; with
``SPARKLEDOCK_REQUIRE_SHARED=1`` (CI) a missing ../shared is an error instead.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import re
from pathlib import Path

# The golden files' bits were made with OpenBLAS's Haswell kernels. On a CPU with AVX-512
# OpenBLAS picks others, and the dense eigensolver's normal modes can come out with the
# other sign (2X9A's ligand: every output of an ANM docking changes): the tests pin the
# kernels before NumPy loads them (children inherit it). A user's results are reproducible
# on one kind of machine; benchmarks/notebook/performance.md, issue 36's fourth part.
os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SPARKLEDOCK_SHARED", REPO.parent / "shared"))
DATA = Path(__file__).parent / "data"  # reference outputs made with LightDock 0.9.4
HAVE_SHARED = (SHARED / "bench" / "2X9A").is_dir()
BENCH = SHARED / "bench" if HAVE_SHARED else DATA / "bench"
COMPLEXES = ["2X9A", "1RKE", "2A1A", "2GTP", "2VXT", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]
BENCH5 = ["2W9E", "3AAA", "3AAD", "3BIW", "3BX7", "3V6Z", "4G6J", "4H03", "4IZ7", "4M76"]
#: what a test needs ../shared for, when its source or parameters name it
SHARED_ONLY = re.compile(
    "|".join([*COMPLEXES[1:], *BENCH5, r"bench5", r"DCparams", r"SHARED\b", r"COMPLEXES"])
)

if not HAVE_SHARED and os.environ.get("SPARKLEDOCK_REQUIRE_SHARED") == "1":
    raise RuntimeError(f"benchmark data not found at {SHARED}; set SPARKLEDOCK_SHARED")


@pytest.fixture(autouse=True)
def _needs_extra(request):
    """Skip a test run for a scoring function whose extra is not installed (cpydock needs
    FreeSASA): the base install with ``.[test]`` passes; the function's refusal is tested."""
    import importlib.util

    from sparkledock.scoring import SCORING_FUNCTIONS

    callspec = getattr(request.node, "callspec", None)
    for value in callspec.params.values() if callspec else ():
        cls = SCORING_FUNCTIONS.get(value) if isinstance(value, str) else None
        for package, extra in getattr(cls, "requires", {}).items():
            if importlib.util.find_spec(package) is None:
                pytest.skip(f"{value} needs {package} (sparkledock[{extra}])")


@pytest.fixture(autouse=True)
def _needs_shared(request):
    """Skip, without ../shared, a test whose source or parameters name shared-only data."""
    if HAVE_SHARED or request.function is None:
        return
    callspec = getattr(request.node, "callspec", None)
    text = str(callspec.params if callspec else "")
    with contextlib.suppress(OSError, TypeError):
        text += inspect.getsource(request.function)
    if SHARED_ONLY.search(text):
        pytest.skip("needs ../shared (the other benchmark complexes)")


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


@pytest.fixture(scope="session")
def example_poses():
    """The packaged example's setup and its first 24 poses (a small docking's solutions)."""
    from sparkledock.cli import example_dir
    from sparkledock.io.lightdock import load_setup, read_poses

    setup = load_setup(example_dir())
    return setup, read_poses(example_dir() / "poses.dat", setup.layout)[:24]
