"""What a finished docking keeps on disk: the disk budget of a screen of many pairs.

A finished docking keeps what its user reads (models, ``ranking.csv``, ``interface.csv``,
``report.html``, ``run.json``), what it needs to be ranked again or resumed (its record, the
setup's structures and modes, each swarm's last snapshot and clusters) and nothing else: the
swarm files and LightDock's rank lists go into one archive, the earlier snapshots and the
starting poses are dropped (:mod:`sparkledock.io.pack`; the report's convergence table is kept
first). Under ``--protocol lightdock`` or with ``--keep-trajectories`` every file stays as the
run wrote it, for LightDock's tools. A blind docking's site dockings are sub-dockings: each
keeps its record and ranking, not a report, model or swarm files of its own (its best model is
one of the blind docking's, ranked first there: ``ranking.csv``'s ``site`` column; nothing
ranks a site docking again: ``--keep-trajectories`` keeps its swarm files all the same), and
shares the partners' files with the blind docking's setup (:func:`settle_site`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..analysis.convergence import keep_convergence
from ..engine.spec import SAVE_EVERY
from ..errors import OptionsSaid, SparkledockError
from ..io.pack import CONVERGENCE_FILE, PACK_FILE, ensure_unpacked, pack, pack_path
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
    if not folder.setup_json.is_file() or slimmed(folder.root):
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
        said = (
            f"packed {archived} swarm files into {pack_path(folder.root)}, {removed} files "
            "removed ({0} keeps them)"
        )
        LOGGER.debug(OptionsSaid(said, "keep_trajectories"))


def slimmed(setup: Path) -> bool:
    """Whether a finished site docking's setup folder kept no swarm files (:func:`settle_site`)."""
    return not pack_path(setup).is_file() and not any(setup.glob("swarm_*"))


def refuse_slimmed(out: Path) -> None:
    """A finished docking without its swarm files (a site docking, :func:`settle_site`) cannot
    be ranked again: one line naming it."""
    if (out / "setup" / "setup.json").is_file() and slimmed(out / "setup"):
        raise SparkledockError(
            f"{out}: a finished site docking keeps its ranking, not its swarm files, so it "
            "cannot be ranked another way; remove it to dock it again"
        )


#: What a finished site docking does not keep: its own report and interface table (the blind
#: docking's report covers its sites) and its model (the blind docking writes it among its
#: own, 1.5 MB each for the largest of the twenty).
SITE_DROPS = ("report.html", "interface.csv", "top_1.pdb")
#: Nor, unless the blind docking keeps everything, its swarm files (the archive, with
#: LightDock's rank lists) and convergence table: about 4 MB per site for the largest of
#: the twenty, 39 MB for its ten sites.
SITE_SETUP_DROPS = (PACK_FILE, CONVERGENCE_FILE)


def settle_site(folder: Path, blind_setup: Path, keep_swarms: bool = False) -> None:
    """A finished site docking slimmed (:data:`SITE_DROPS` removed, and
    :data:`SITE_SETUP_DROPS` unless ``keep_swarms``) and each file of its setup that is byte
    for byte one of the blind docking's setup (the partners' structures, masks and normal
    modes) made a hard link to it. Safe to repeat and to kill: a link replaces its copy
    atomically; where the file system has no hard links the copies stay."""
    for name in SITE_DROPS:
        (folder / name).unlink(missing_ok=True)
    setup = folder / "setup"
    if not setup.is_dir():
        return
    if not keep_swarms and not any(setup.glob("swarm_*")):  # (a packed, finished docking)
        for name in SITE_SETUP_DROPS:
            (setup / name).unlink(missing_ok=True)
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
