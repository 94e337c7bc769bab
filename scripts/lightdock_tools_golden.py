"""Make tests/data/lightdock_tools/golden.json: LightDock 0.9.4's helpers' outputs, as checksums.

Runs, from the LightDock virtual environment named by ``--lightdock``, on a scratch copy of
../shared/bench/2X9A's LightDock setup and swarm 0's trajectory (``gso_0``/``gso_10`` from
``lightdock_run``, ``gso_20``/``gso_30`` from tests/data/lightdock_runs):

- ``lgd_map_contacts.py`` over gso_0 and gso_10 (the receptor with contact frequencies);
- ``lgd_generate_trajectory.py`` for glowworm 7 over steps 0 to 30;
- ``lgd_create_membrane.py`` on the unbound receptor, with default and other resolutions;
- ``lgd_filter_membrane.py`` on swarm 0's ranking (``lgd_rank.py 1 10``) and its models
  (``lgd_generate_conformations.py``), receptor restraints from bench/2X9A/restraints.list.

It records each output file's SHA-256, the text of the small ones, and what the scripts print
that a user reads (the PyMOL spectrum line, the filter's percentages).

    python scripts/lightdock_tools_golden.py --lightdock /work/ldvenv/bin
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
OUT = ROOT / "tests" / "data" / "lightdock_tools"
BENCH = ROOT.parent / "shared" / "bench" / "2X9A"
RUNS = ROOT / "tests" / "data" / "lightdock_runs" / "2X9A_swarm0_seed324324"
REC, LIG = "lightdock_2X9A_r_u.pdb", "lightdock_2X9A_l_u.pdb"

#: lgd_create_membrane.py cases: name → arguments after the receptor
MEMBRANES = {
    "default": ["A.PRO.50"],
    "fine": ["A.ALA.1", "-ar", "10", "-rr", "3", "-ro", "20"],
}
#: lgd_filter_membrane.py cutoffs
FILTER_CUTOFFS = ["1.0", "0.5"]


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(bin_dir: Path, script: str | Path, args: list[str], cwd: Path) -> str:
    """Run LightDock's ``script`` (a name in ``bin_dir`` or a path) with its Python."""
    command = [str(bin_dir / "python"), str(bin_dir / script), *args]
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{script} {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lightdock", type=Path, required=True, help="LightDock venv's bin folder")
    args = p.parse_args()
    golden: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch) / "2X9A"
        shutil.copytree(BENCH / "lightdock_setup", work)
        swarm = work / "swarm_0"
        shutil.copytree(BENCH / "lightdock_run" / "swarm_0", swarm)
        for step in (20, 30):
            shutil.copy(RUNS / f"gso_{step}.out", swarm)

        for name in ("2X9A_r_u.pdb", "2X9A_l_u.pdb"):  # it reads their lightdock_ files
            shutil.copy(BENCH / name, work)
        out = run(
            args.lightdock,
            "lgd_map_contacts.py",
            [
                "2X9A_r_u.pdb",
                "2X9A_l_u.pdb",
                "setup.json",
                "contacts.pdb",
                "swarm_0/gso_0.out",
                "swarm_0/gso_10.out",
            ],
            work,
        )
        golden["map_contacts"] = {
            "sha256": sha(work / "contacts.pdb"),
            "spectrum": next(x for x in out.splitlines() if x.startswith("spectrum")),
        }

        run(
            args.lightdock,
            "lgd_generate_trajectory.py",
            ["7", "30", f"../{REC}", f"../{LIG}", "../setup.json"],
            swarm,
        )
        golden["trajectory"] = {
            f.name: sha(f) for f in sorted(swarm.glob("trajectory_7_step_*.pdb"))
        }

        golden["membranes"] = {}
        for name, extra in MEMBRANES.items():
            target = f"membrane_{name}.pdb"
            run(
                args.lightdock,
                "lgd_create_membrane.py",
                ["2X9A_r_u.pdb", *extra, "-o", target],
                work,
            )
            golden["membranes"][name] = {"args": extra, "sha256": sha(work / target)}

        run(
            args.lightdock,
            "lgd_generate_conformations.py",
            ["../2X9A_r_u.pdb", "../2X9A_l_u.pdb", "gso_10.out", "256"],
            swarm,
        )
        run(args.lightdock, "lgd_rank.py", ["1", "10"], work)
        shutil.copy(BENCH / "restraints.list", work)
        # LightDock 0.9.4's lgd_filter_membrane.py reads ``rank.id_cluster``, which its
        # ranking entries do not have (AttributeError on every ranking); run a copy with that
        # one attribute read as ``id_swarm``, the swarm it plainly means.
        script = (args.lightdock / "lgd_filter_membrane.py").read_text()
        patched = Path(scratch) / "lgd_filter_membrane.py"
        patched.write_text(script.replace("id_cluster", "id_swarm"))
        golden["filter_membrane"] = {}
        for cutoff in FILTER_CUTOFFS:
            out = run(
                args.lightdock,
                patched,
                ["rank_by_scoring.list", "restraints.list", REC, "A", "B", "-c", cutoff],
                work,
            )
            percentages = {
                Path(line.split()[0]).name: line.split()[1]
                for line in out.splitlines()
                if line.startswith(str(swarm))
            }
            filtered = work / "filtered"
            golden["filter_membrane"][cutoff] = {
                "rank_filtered": (filtered / "rank_filtered.list").read_text(),
                "copied": len(list(filtered.glob("swarm_*.pdb"))),
            }
            golden["filter_membrane"]["percentages"] = percentages
            shutil.rmtree(filtered)
        OUT.mkdir(parents=True, exist_ok=True)
        shutil.copy(work / "rank_by_scoring.list", OUT / "2X9A_swarm0_gso10_rank_by_scoring.list")
    (OUT / "golden.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT / 'golden.json'}")


if __name__ == "__main__":
    main()
