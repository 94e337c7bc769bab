"""What a finished docking keeps on disk: the disk budget of a screen of many pairs.

A finished docking keeps what its user reads (models, ``ranking.csv``, ``interface.csv``,
``report.html``, ``run.json``), what it needs to be ranked again or resumed (its record, the
setup's structures and modes, each swarm's last snapshot and clusters) and nothing else: the
swarm files go into one archive, the earlier snapshots and the starting poses are dropped
(:mod:`sparkledock.io.pack`; the report's convergence table is kept first). Under
``--protocol lightdock`` or with ``--keep-trajectories`` every file stays as the run wrote it,
for LightDock's tools. A blind docking's site dockings are sub-dockings: each keeps its
record, ranking and one model, not a report of its own, and shares the partners' files with
the blind docking's setup (:func:`settle_site`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..analysis.convergence import keep_convergence
from ..engine.spec import SAVE_EVERY
from ..io.pack import ensure_unpacked, pack, pack_path
from ..io.setupdir import SetupDir
from ..runlog import LOGGER
from .options import DockOptions


def keeps_everything(options: DockOptions) -> bool:
    """Whether a docking keeps every swarm file (LightDock's tools read them)."""
    return options.keep_trajectories or options.protocol == "lightdock"


def settle(out: Path, options: DockOptions) -> None:
    """A finished docking's swarm files packed (or, when it keeps everything, unpacked
    again). Safe to repeat and to kill at any moment: the archive is written whole before
    anything is removed, and an archive that exists is kept."""
    folder = SetupDir(out / "setup")
    if not folder.setup_json.is_file():
        return
    if keeps_everything(options):
        if ensure_unpacked(folder.root):
            LOGGER.info(
                f"{folder.root}: swarm files unpacked (the snapshots before the last step "
                "and the starting poses were dropped when it was packed)"
            )
        return
    if not pack_path(folder.root).is_file():
        swarms = json.loads(folder.setup_json.read_text()).get("swarms")
        ids = range(int(swarms)) if isinstance(swarms, int) else []
        keep_convergence(folder, ids, options.steps, SAVE_EVERY)
    archived, removed = pack(folder.root, options.steps)
    if removed:
        LOGGER.debug(
            f"packed {archived} swarm files into {pack_path(folder.root)}, {removed} files "
            "removed (--keep-trajectories keeps them)"
        )


#: What a finished site docking does not keep: its own report and interface table (the blind
#: docking's report covers its sites).
SITE_DROPS = ("report.html", "interface.csv")


def settle_site(folder: Path, blind_setup: Path) -> None:
    """A finished site docking slimmed (:data:`SITE_DROPS` removed) and each file of its
    setup that is byte for byte one of the blind docking's setup (the partners' structures,
    masks and normal modes) made a hard link to it. Safe to repeat and to kill: a link
    replaces its copy atomically; where the file system has no hard links the copies stay."""
    for name in SITE_DROPS:
        (folder / name).unlink(missing_ok=True)
    setup = folder / "setup"
    if not setup.is_dir():
        return
    for file in sorted(setup.iterdir()):
        twin = blind_setup / file.name
        if not (file.is_file() and twin.is_file()) or os.path.samefile(file, twin):
            continue
        if file.stat().st_size != twin.stat().st_size or file.read_bytes() != twin.read_bytes():
            continue
        temporary = file.with_name(f".{file.name}.link")
        try:
            temporary.unlink(missing_ok=True)
            os.link(twin, temporary)
            os.replace(temporary, file)
        except OSError:  # (no hard links here: the copy stays)
            temporary.unlink(missing_ok=True)
            return
