"""What finished dockings keep on disk (issue 56): files and MB per docking folder, hard links
counted once, beside the budget (a blind docking 2,000 files and 100 MB, a restrained one 300
files and 30 MB).

    python benchmarks/disk_budget.py OUT [OUT ...]
    python benchmarks/disk_budget.py --repack COPIES OUT [OUT ...]

``--repack COPIES``: each finished docking copied into ``COPIES`` and packed again as today's
code packs it (its setup's and site dockings' archives unpacked and packed again, each site
docking settled), then measured; rankings and models are not touched. This is how a docking
finished by an earlier version is measured under today's rules without docking it again.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
from pathlib import Path

from sparkledock.docking.disk import settle_site
from sparkledock.io.pack import ensure_unpacked, pack, pack_path

BUDGET = {"blind": (2000, 100.0), "restrained": (300, 30.0)}


def measure(folder: Path) -> tuple[int, float]:
    """Files and MB (10^6 bytes) under ``folder``, a hard-linked file counted once."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    sizes = {(p.stat().st_dev, p.stat().st_ino): p.stat().st_size for p in files}
    return len(files), sum(sizes.values()) / 1e6


def repack(source: Path, copy: Path) -> Path:
    """``source`` copied to ``copy`` (hard links kept) and packed again as today's code packs."""
    shutil.rmtree(copy, ignore_errors=True)
    subprocess.run(["cp", "-a", str(source), str(copy)], check=True)
    record = json.loads((copy / "run.json").read_text()) if (copy / "run.json").is_file() else {}
    keep = bool(record.get("options", {}).get("keep_trajectories"))
    for setup in [copy / "setup", *sorted(copy.glob("sites/site_*/setup"))]:
        if ensure_unpacked(setup):
            pack_path(setup).unlink()
        steps = max(int(p.stem.split("_")[1]) for p in setup.glob("swarm_*/gso_*.out"))
        pack(setup, steps)
    for site in sorted(p for p in copy.glob("sites/site_*") if p.is_dir()):
        settle_site(site, copy / "setup", keep_swarms=keep)
    return copy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="finished docking folders")
    parser.add_argument("--repack", type=Path, help="pack copies again into this folder")
    args = parser.parse_args()
    print("| docking | kind | files | MB | within budget |")
    print("|---|---|---|---|---|")
    for folder in args.folders:
        if args.repack is not None:
            args.repack.mkdir(parents=True, exist_ok=True)
            folder = repack(folder, args.repack / folder.name)
        kind = "restrained" if (folder / "setup" / "restraints.list").is_file() else "blind"
        files, mb = measure(folder)
        most_files, most_mb = BUDGET[kind]
        fits = "yes" if files <= most_files and mb <= most_mb else "no"
        print(f"| {folder} | {kind} | {files} | {mb:.1f} | {fits} |")


if __name__ == "__main__":
    main()
