"""A finished docking's swarm files in one archive: the disk budget of a screen.

A run leaves a file per swarm and saved step (``swarm_<id>/gso_<step>.out``, every 10 steps), a
starting file, a clustering and a done marker per swarm: thousands of files for a blind
docking. Once a docking is finished, what it still needs to be ranked again (each swarm's last
snapshot, clusters and done marker) and LightDock's rank lists (``rank_by_scoring.list``,
``rank_filtered.list``: every cluster representative's line, 13 MB for the largest blind
docking of the twenty, read by LightDock's tools only) go into one compressed ``swarms.tar.gz``
in the setup folder; the earlier snapshots are dropped (the report keeps their best scores:
:data:`CONVERGENCE_FILE`), and so are the starting poses (``init/initial_positions_*.dat``,
about half of what was left: nothing reads them once every swarm is done; a run asked again on
the setup says so in one line, :func:`missing_start`). Anything that reads a packed file (a
ranking asked again, ``sparkledock rank``, LightDock's tools through sparkledock) unpacks the
archive first (:func:`ensure_unpacked`), so a packed folder reads as an unpacked one.

The archive is written whole before anything is removed (a temporary file renamed into place),
and an archive that exists is never rewritten: a packing killed at any moment ends, when asked
again, with the same archive and nothing else removed.
"""

from __future__ import annotations

import io
import os
import re
import tarfile
from pathlib import Path

from ..errors import InputFileError
from ..fileutil import atomic_write_bytes
from .setupdir import CLUSTER_FILE, DONE_MARKER, FILTERED_FILE, RANKING_FILE, SetupDir

#: The archive of a finished docking's swarm files, in its setup folder.
PACK_FILE = "swarms.tar.gz"
#: Each swarm's best score at every saved step, kept when the snapshots are dropped.
CONVERGENCE_FILE = "convergence.npz"
_SNAPSHOT = re.compile(r"gso_(\d+)\.out$")
#: LightDock's rank lists in a setup folder, packed with the swarm files (the same run gives
#: the same lists: a ranking asked again by another method rewrites them unchanged).
RANK_LISTS = (RANKING_FILE, FILTERED_FILE)


def pack_path(root: str | os.PathLike[str]) -> Path:
    return Path(root) / PACK_FILE


def convergence_path(root: str | os.PathLike[str]) -> Path:
    return Path(root) / CONVERGENCE_FILE


def packed_files(folder: SetupDir, steps: int) -> tuple[list[Path], list[Path]]:
    """What packing keeps in the archive (each swarm's step-``steps`` snapshot, clusters and
    done marker; LightDock's rank lists) and what it drops (the earlier snapshots and the
    starting files)."""
    kept = [folder.root / name for name in RANK_LISTS if (folder.root / name).is_file()]
    dropped = sorted(folder.init.glob("initial_positions_*.dat"))
    for swarm in folder.swarms():
        for path in sorted(swarm.iterdir()):
            match = _SNAPSHOT.match(path.name)
            if match and int(match.group(1)) != steps:
                dropped.append(path)
            elif match or path.name in (CLUSTER_FILE, DONE_MARKER):
                kept.append(path)
    return kept, dropped


def pack(root: str | os.PathLike[str], steps: int) -> tuple[int, int]:
    """Pack a finished docking's setup folder ``root`` (its run of ``steps`` steps): the
    archive is written first (unless one is there already), then the packed files and the
    earlier snapshots are removed. Returns (files archived, files removed)."""
    folder = SetupDir(Path(root))
    kept, dropped = packed_files(folder, steps)
    target = pack_path(folder.root)
    archived = 0
    if not target.is_file():
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
            for path in kept:
                tar.add(path, arcname=path.relative_to(folder.root).as_posix())
        atomic_write_bytes(target, buffer.getvalue())
        archived = len(kept)
    for path in kept + dropped:
        _remove(path)
    for swarm in folder.swarms():
        if swarm.is_dir() and not any(swarm.iterdir()):
            swarm.rmdir()
    return archived, len(kept) + len(dropped)


def _remove(path: Path) -> None:
    path.unlink(missing_ok=True)


def ensure_unpacked(root: str | os.PathLike[str]) -> bool:
    """Restore a packed setup folder's files (those missing; none is overwritten). Returns
    whether an archive was there. A damaged archive is one line naming it."""
    root = Path(root)
    target = pack_path(root)
    if not target.is_file():
        return False
    try:
        with tarfile.open(target, mode="r:gz") as tar:
            for member in tar.getmembers():
                name = Path(member.name)
                if not member.isfile() or name.is_absolute() or ".." in name.parts:
                    raise InputFileError(f"{target}: unexpected entry {member.name!r}")
                path = root / name
                if path.is_file():
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                data = tar.extractfile(member)
                atomic_write_bytes(path, data.read() if data is not None else b"", durable=False)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise InputFileError(f"{target}: cannot be unpacked ({exc})") from None
    return True


def unpack_for(path: str | os.PathLike[str]) -> bool:
    """Before reading ``path`` (a swarm's file or a starting file of a setup folder) that
    is missing: unpack its setup folder's archive, if it has one."""
    return ensure_unpacked(Path(path).parent.parent)


def missing_start(path: str | os.PathLike[str]) -> str | None:
    """Why a swarm's starting file ``path`` is missing where its setup folder was packed (a
    finished docking keeps its final poses, not its starting ones), else None."""
    path = Path(path)
    archive = pack_path(path.parent.parent)
    if path.is_file() or not archive.is_file():
        return None
    name = path.relative_to(archive.parent).as_posix()
    try:  # (an archive of an earlier version holds them: they are unpacked when read)
        with tarfile.open(archive, mode="r:gz") as tar:
            if name in tar.getnames():
                return None
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise InputFileError(f"{archive}: cannot be read ({exc})") from None
    return (
        f"{path}: a finished docking keeps its final poses, not its starting ones; run "
        "`sparkledock setup` again for a new run (dock with --keep-trajectories to keep them)"
    )
