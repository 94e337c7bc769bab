"""Setup time: `sparkledock setup` against LightDock 0.9.4's `lightdock3_setup.py`.

Both prepare each shared complex from its unbound inputs with the options of the shared
LightDock setups (256 glowworms, ANM, --noxt --noh --now), in fresh temporary folders, one
after the other on the same machine.

Usage:
    python benchmarks/setup_time.py [--complexes 2X9A 4GAM] [--lightdock-python PY]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMPLEXES = ["2X9A", "1RKE", "2A1A", "2GTP", "2VXT", "3VLB", "3LVK", "4JCV", "4LW4", "4GAM"]


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        cmd, cwd=cwd, check=True, capture_output=True, env={**os.environ, "OMP_NUM_THREADS": "1"}
    )
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=HERE.parent.parent / "shared" / "bench")
    parser.add_argument("--complexes", nargs="+", default=COMPLEXES)
    parser.add_argument("--lightdock-python")
    args = parser.parse_args()
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores")
    header = ["complex", "sparkledock s", "swarms"]
    if args.lightdock_python:
        header += ["LightDock s", "LightDock swarms", "LightDock / sparkledock"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in args.complexes:
        with tempfile.TemporaryDirectory() as tmp:
            ours, theirs = Path(tmp) / "ours", Path(tmp) / "theirs"
            for folder in (ours, theirs):
                folder.mkdir()
                for suffix in ("r_u.pdb", "l_u.pdb"):
                    shutil.copy(args.bench / name / f"{name}_{suffix}", folder)
            t_ours = timed(
                [
                    sys.executable,
                    "-m",
                    "sparkledock.cli",
                    "setup",
                    f"{name}_r_u.pdb",
                    f"{name}_l_u.pdb",
                    "-g",
                    "256",
                    "--anm",
                    "--noxt",
                    "--noh",
                    "--now",
                ],
                ours,
            )
            swarms = json.loads((ours / "setup.json").read_text())["swarms"]
            row = [name, f"{t_ours:.1f}", str(swarms)]
            if args.lightdock_python:
                script = Path(args.lightdock_python).parent / "lightdock3_setup.py"
                t_ld = timed(
                    [
                        args.lightdock_python,
                        str(script),
                        f"{name}_r_u.pdb",
                        f"{name}_l_u.pdb",
                        "-g",
                        "256",
                        "--noxt",
                        "--noh",
                        "--now",
                        "-anm",
                    ],
                    theirs,
                )
                ld_swarms = json.loads((theirs / "setup.json").read_text())["swarms"]
                row += [f"{t_ld:.1f}", str(ld_swarms), f"{t_ld / t_ours:.1f}"]
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
