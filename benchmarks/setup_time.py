"""Setup time: `sparkledock setup` against LightDock 0.9.4's `lightdock3_setup.py`.

Both prepare each shared complex from its unbound inputs with the options of the shared
LightDock setups (256 glowworms, ANM, --noxt --noh --now), in fresh temporary folders, one
after the other on the same machine.

With ``--large N`` it also times a receptor of N copies of 4GAM's (17,307 atoms each, 90 Å
apart: about 100,000 atoms for N = 6) against 4GAM's ligand, sparkledock only (LightDock's dense
normal modes of 12,768 C-alpha atoms need about 12 GB and hours).

Usage:
    python benchmarks/setup_time.py [--complexes 2X9A 4GAM] [--lightdock-python PY] [--large 6]
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
from dataclasses import replace
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
    parser.add_argument("--large", type=int, default=0, help="copies of 4GAM's receptor")
    args = parser.parse_args()
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores")
    header = ["complex", "sparkledock s", "swarms"]
    if args.lightdock_python:
        header += ["LightDock s", "LightDock swarms", "LightDock / sparkledock"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name in args.complexes:
        time_complex(args, name)
    if args.large:
        time_large(args.bench, args.large)


def sparkledock_setup(receptor: str, ligand: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sparkledock.cli",
        "setup",
        receptor,
        ligand,
        "-g",
        "256",
        "--anm",
        "--noxt",
        "--noh",
        "--now",
    ]


def time_large(bench: Path, copies: int) -> None:
    import numpy as np

    from sparkledock.molecule.structure import Atoms, read_structure, write_structure

    one = read_structure(bench / "4GAM" / "4GAM_r_u.pdb")
    parts = [
        one.with_coords(one.coords + np.array([(k % 3) * 90.0, (k // 3) * 90.0, 0.0]))
        for k in range(copies)
    ]
    parts = [
        replace(part, chain=np.array([chr(65 + k)] * len(part), dtype=object))
        for k, part in enumerate(parts)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        big = Atoms.concatenate(parts)
        write_structure(big, folder / "large_r.pdb")
        shutil.copy(bench / "4GAM" / "4GAM_l_u.pdb", folder / "large_l.pdb")
        seconds = timed(sparkledock_setup("large_r.pdb", "large_l.pdb"), folder)
        swarms = json.loads((folder / "setup.json").read_text())["swarms"]
        print(f"| 4GAM receptor ×{copies} ({len(big):,} atoms) | {seconds:.1f} | {swarms} |")


def time_complex(args: argparse.Namespace, name: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ours, theirs = Path(tmp) / "ours", Path(tmp) / "theirs"
        for folder in (ours, theirs):
            folder.mkdir()
            for suffix in ("r_u.pdb", "l_u.pdb"):
                shutil.copy(args.bench / name / f"{name}_{suffix}", folder)
        t_ours = timed(sparkledock_setup(f"{name}_r_u.pdb", f"{name}_l_u.pdb"), ours)
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
