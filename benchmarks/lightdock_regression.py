"""LightDock 0.9.4's own regression suite (``lightdock/test/bin``) through sparkledock.

Each case of LightDock's package ships a setup made by LightDock and the gso files its
``lightdock3.py`` wrote; this runs the same ``lightdock3.py`` command line through
``sparkledock lightdock lightdock3.py`` on a scratch copy of that setup and compares every
golden gso file byte for byte. Cases whose command needs what sparkledock has not built yet
(local minimisation ``-min``) are listed as such.

    python benchmarks/lightdock_regression.py --golden /path/to/lightdock/test/bin/golden_data

(``--golden`` defaults to the golden data of the LightDock in ``$LIGHTDOCK_PYTHON``'s venv.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: case: (lightdock3.py arguments, swarm, what it needs that is not built)
CASES: dict[str, tuple[str, int, str]] = {
    "dna_short": ("-c 1 -s dna setup.json 10 -l 0", 0, ""),
    "dna_restraints": ("-c 1 -s dna setup.json 30 -l 0", 0, ""),
    "dfire2_short": ("-c 1 -s dfire2 setup.json 5 -l 10", 10, ""),
    "dfire2_restraints": ("-c 1 -s dfire2 setup.json 5 -l 0", 0, ""),
    "dfire2_long": ("-c 1 -s dfire2 setup.json 40 -l 100", 100, ""),
    "fastdfire_short": ("-c 1 -s fastdfire setup.json 5 -l 10", 10, ""),
    "fastdfire_restraints": ("-c 1 -s fastdfire setup.json 5 -l 0", 0, ""),
    "fastdfire_long": ("-c 1 -s fastdfire setup.json 40 -l 100", 100, ""),
    "fastdfire_min": ("-c 1 -s fastdfire setup.json 10 -l 0 -min", 0, ""),
    "pydock_restraints": ("-c 1 -s cpydock setup.json 20 -l 0", 0, ""),
    "pydock_long": ("-c 1 -s cpydock setup.json 40 -l 100", 100, ""),
    "dfire_short": ("-c 1 -f glowworm.conf -s dfire setup.json 10 -l 0", 0, ""),
    "dfire_long": ("-c 1 -f glowworm.conf -s dfire setup.json 30 -l 0", 0, ""),
    "mj3h_short": ("-c 1 -f glowworm.conf -s mj3h setup.json 10 -l 0", 0, ""),
    "mj3h_long": ("-c 1 -f glowworm.conf -s mj3h setup.json 30 -l 0", 0, ""),
    "pisa_short": ("-c 1 -f glowworm.conf -s pisa setup.json 10 -l 0", 0, ""),
    "pisa_long": ("-c 1 -f glowworm.conf -s pisa setup.json 30 -l 0", 0, ""),
    "tobi_short": ("-c 1 -f glowworm.conf -s tobi setup.json 10 -l 0", 0, ""),
    "tobi_long": ("-c 1 -f glowworm.conf -s tobi setup.json 30 -l 0", 0, ""),
}


def default_golden() -> Path | None:
    python = os.environ.get("LIGHTDOCK_PYTHON")
    if not python:
        return None
    out = subprocess.run(
        [python, "-c", "import lightdock, os; print(os.path.dirname(lightdock.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(out) / "test" / "bin" / "golden_data"


def run_case(
    golden: Path, name: str, argv: str, swarm: int, command: list[str]
) -> tuple[str, str, float, dict[str, bytes]]:
    """(result against the golden files, files compared, seconds, the files written) of one
    case run by ``command`` (sparkledock's or LightDock's own ``lightdock3.py``)."""
    source = golden / f"regression_{name}"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / name
        shutil.copytree(source, work)
        for path in [work, *work.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        expected = sorted((source / f"swarm_{swarm}").glob("gso_*.out"))
        for path in (work / f"swarm_{swarm}").glob("*"):
            path.unlink()
        start = time.perf_counter()
        done = subprocess.run([*command, *argv.split()], cwd=work, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        names = ", ".join(p.name for p in expected)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["no message"])[-1]
            return f"FAILED: {tail}", names, seconds, {}
        written = {
            p.name: (work / f"swarm_{swarm}" / p.name).read_bytes()
            for p in expected
            if (work / f"swarm_{swarm}" / p.name).is_file()
        }
        differ = [p.name for p in expected if written.get(p.name) != p.read_bytes()]
        return ("differs: " + ", ".join(differ)) if differ else "identical", names, seconds, written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, default=None)
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    parser.add_argument(
        "--with-lightdock",
        action="store_true",
        help="also run LightDock's own lightdock3.py ($LIGHTDOCK_PYTHON's venv) on each case: "
        "does LightDock 0.9.4 reproduce its package's golden files, does sparkledock equal it",
    )
    args = parser.parse_args()
    golden = args.golden or default_golden()
    if golden is None or not golden.is_dir():
        parser.error("no LightDock golden data: give --golden or set LIGHTDOCK_PYTHON")
    ours = [sys.executable, "-m", "sparkledock", "lightdock", "lightdock3.py"]
    theirs = None
    if args.with_lightdock:
        python = os.environ.get("LIGHTDOCK_PYTHON")
        if not python:
            parser.error("--with-lightdock needs LIGHTDOCK_PYTHON")
        theirs = [python, str(Path(python).parent / "lightdock3.py")]
    print(f"# LightDock golden data: {golden}")
    head = ["case", "lightdock3.py", "golden files", "sparkledock against golden", "seconds"]
    if theirs:
        head += ["LightDock 0.9.4 against golden", "sparkledock against LightDock 0.9.4", "seconds"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in args.cases:
        argv, swarm, needs = CASES[name]
        if needs:
            row = [name, argv, "", f"not run: needs {needs} (issue 18)", ""]
        else:
            result, files, seconds, written = run_case(golden, name, argv, swarm, ours)
            row = [name, argv, files, result, f"{seconds:.1f}"]
            if theirs:
                own, _, own_seconds, reference = run_case(golden, name, argv, swarm, theirs)
                same = "identical" if written and written == reference else "differs"
                row += [own, same, f"{own_seconds:.1f}"]
        print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
